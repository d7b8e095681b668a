"""Answers as tables (text; wide lists every unit of a layout), YAML and
JSON (through the one serializer: a YAML stream, or one JSON object / a List)."""

from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction
from typing import Any

from dralloc.io.emit import render_objects
from dralloc.planner.answer import Answer

FRACTION = re.compile(r"-?\d+/\d+")
SHOWN_UNITS = 20  # layout rows in the table (wide: all)


def _mixed(text: str) -> str:
    """An exact fraction ``n/d`` as a mixed number (``5329/7`` -> ``761 2/7``)."""
    q = Fraction(text)
    whole = int(q)               # towards zero, so the rest keeps the sign
    rest = abs(q - whole)
    return f"{whole} {rest}" if whole else str(q)


def _cell(v: Any) -> str:
    if isinstance(v, str) and FRACTION.fullmatch(v):
        return _mixed(v)
    if isinstance(v, dict):
        return ", ".join(f"{k}={v[k]}" for k in v)
    return "-" if v is None else str(v)


# gangs the simulation's policy refuses, by what Kubernetes does under every tie-break
GANG_LINES = (("gangsKubernetesRefusesThatFit", "gangs Kubernetes refuses (under every tie-break) that fit"),
              ("gangsKubernetesPlacesByTieBreak", "gangs the policy refuses that Kubernetes places under some "
                                                  "tie-breaks"),
              ("gangsKubernetesNotDecided", "gangs the policy refuses, Kubernetes' answer not decided (budget)"))


def table(answers: list[Answer], wide: bool = False) -> str:
    """One block per answer: first-fit and optimal side by side."""
    out = []
    for a in answers:
        keys = [k for k in dict.fromkeys([*a.first_fit, *a.optimal]) if not isinstance(
            a.first_fit.get(k, a.optimal.get(k)), dict) or k in ("partitions",)]
        width = max([len(k) for k in keys] + [8])
        obj = a.objective
        out.append(f"{a.question}" + (f" (objective {obj['name']}: {obj['maximises']})" if obj.get("maximises") else ""))
        out.append(f"  {'':{width}}  {'first-fit':>14}  {'optimal':>14}")
        for k in keys:
            out.append(f"  {k:{width}}  {_cell(a.first_fit.get(k)):>14}  {_cell(a.optimal.get(k)):>14}")
        unit = obj.get("unit") if obj.get("name") in ("gpus", "devices") and a.question in ("fit", "fragmentation") \
            else None
        gap = f"gap ({unit})" if unit else "gap"
        out.append(f"  {gap:{width}}  {_cell(a.gap):>14}")
        if obj.get("note"):
            out.append(f"  objective {obj['name']}: {obj['note']}")
        for key, words in GANG_LINES:
            names = a.detail.get(key) or []
            if names:
                out.append(f"  {words}: {', '.join(names[:10])}"
                           + (f" and {len(names) - 10} more" if len(names) > 10 else ""))
        for note in a.optimal.get("notes") or []:
            out.append(f"  note: {note}")
        for gname, served in (a.optimal.get("perGroup") or {}).items():
            out.append(f"    optimal {gname}: {served}")
        units = a.detail.get("assignment") or []
        for row in units if wide else units[:SHOWN_UNITS]:
            parts = ", ".join(f"{k}x{v}" for k, v in row["partitions"].items())
            out.append(f"    {row['unit']}: {parts}")
        if not wide and len(units) > SHOWN_UNITS:
            out.append(f"    ... {len(units) - SHOWN_UNITS} more units (-o wide lists them all)")
    return "\n".join(out)


def _timing(key: str) -> bool:
    """Wall-clock fields (``solveSeconds``, ``simulationSeconds``, ...): left
    out unless asked for, so that equal inputs print equal bytes."""
    return key.endswith("Seconds")


def _untimed(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if not _timing(k)}


def without_timings(answers: list[Answer]) -> list[Answer]:
    return [replace(a, first_fit=_untimed(a.first_fit), optimal=_untimed(a.optimal), detail=_untimed(a.detail))
            for a in answers]


def render(answers: list[Answer], fmt: str, timings: bool = False) -> str:
    """The answers as ``fmt``; wall-clock times only with ``timings``."""
    if not timings:
        answers = without_timings(answers)
    if fmt in ("yaml", "json"):
        return render_objects([a.as_dict() for a in answers], fmt)
    return table(answers, wide=fmt == "wide")
