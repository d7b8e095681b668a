"""Rendering a verification report: a table for people, YAML/JSON for tools."""

from __future__ import annotations

import json

import yaml

from dralloc.checker.finding import Report


def table(report: Report) -> str:
    s = report.to_dict()["summary"]
    lines = [f"verified {s['allocated']} allocated claim(s) of {s['claims']}, replayed {s['replayed_pods']} "
             f"pod(s), analysed {s['pending_pods']} pending pod(s): {s['errors']} error(s), "
             f"{s['warnings']} warning(s), {s['infos']} note(s)"]
    if not report.findings:
        return lines[0]
    rows = [("LEVEL", "RULE", "CLAIM/POD", "FINDING")]
    for f in report.findings:
        msg = f.message + (f" [{f.detail}]" if f.detail else "")
        rows.append((f.level, f.rule, f.claim or "-", msg))
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    w2 = min(max(len(r[2]) for r in rows), 40)
    lines.append("")
    for r in rows:
        lines.append(f"{r[0]:<{w0}}  {r[1]:<{w1}}  {r[2]:<{w2}}  {r[3]}")
    return "\n".join(lines)


def render(report: Report, fmt: str) -> str:
    data = report.to_dict()
    if fmt == "json":
        return json.dumps(data, indent=2, sort_keys=False)
    if fmt == "yaml":
        return yaml.safe_dump(data, sort_keys=False, width=120)
    return table(report)
