"""Rendering a verification report: a table for people (wide: each finding's
objects and fields too), YAML/JSON for tools (camelCase, through the one
serializer)."""

from __future__ import annotations

from dralloc.checker.finding import Report
from dralloc.io.emit import render as render_data


def _columns(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    widths[2] = min(widths[2], 40)
    return ["   ".join(v.ljust(w) for v, w in zip(r, widths, strict=False)) + "   " + r[-1] for r in rows]


def table(report: Report, wide: bool = False) -> str:
    s = report.to_dict()["summary"]
    head = (f"verified {s['allocated']} allocated claim(s) of {s['claims']}, replayed {s['replayedPods']} "
            f"pod(s), analysed {s['pendingPods']} pending pod(s): {s['errors']} error(s), "
            f"{s['warnings']} warning(s), {s['infos']} note(s)")
    if not report.findings:
        return head
    rows: list[tuple[str, ...]] = [("LEVEL", "RULE", "CLAIM/POD", "FINDING")]
    if wide:
        rows = [("LEVEL", "RULE", "CLAIM/POD", "OBJECTS", "FIELDS", "FINDING")]
    for f in report.findings:
        msg = f.message + (f" [{f.detail}]" if f.detail else "")
        if wide:
            rows.append((f.level, f.rule, f.claim or "-", ", ".join(f.objects) or "-",
                         ", ".join(f.fields) or "-", msg))
        else:
            rows.append((f.level, f.rule, f.claim or "-", msg))
    return "\n".join([head, "", *_columns(rows)])


def render(report: Report, fmt: str) -> str:
    if fmt in ("json", "yaml"):
        return render_data(report.to_dict(), fmt)
    return table(report, wide=fmt == "wide")
