"""What every planner question returns: first-fit beside the optimum, the gap,
details, the objective they were measured in, and the cluster (for pictures)."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from dralloc.planner.objective import Weights, exact
from dralloc.planner.view.cluster import Cluster

PLACES_EVERYTHING = ("add-nodes", "layout")   # answers for the whole demand: every pod, whatever the objective


@dataclass
class Answer:
    question: str
    first_fit: dict[str, Any] = field(default_factory=dict)
    optimal: dict[str, Any] = field(default_factory=dict)
    gap: int | str | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    cluster: Cluster | None = field(default=None, repr=False)   # for pictures; not serialised
    sources: dict[str, Any] = field(default_factory=dict, repr=False)   # for pictures; not serialised
    objective: dict[str, Any] = field(default_factory=dict)      # what the optimum maximised, in which unit

    def as_dict(self) -> dict[str, Any]:
        return {"question": self.question, **({"objective": self.objective} if self.objective else {}),
                "firstFit": self.first_fit, "optimal": self.optimal,
                "gap": self.gap, **({"detail": self.detail} if self.detail else {})}


def express(ans: Answer, w: Weights, requested: str | None = None) -> Answer:
    """Say which objective the answer maximised; for GPUs and devices give
    first-fit's and the optimum's values, the bound and both gaps in that
    unit (exact: an integer or ``n/d``). ``requested``: the user's objective
    where the question answers for the whole demand whatever it is."""
    if ans.question in PLACES_EVERYTHING:
        ans.objective = {"name": requested or w.objective,
                         "note": f"{ans.question} places the whole demand (every pod): the objective does not change it"}
        return ans
    ans.objective = w.describe()
    if w.per_pod and not any(w.per_pod.values()):
        ans.objective["note"] = f"no pod of the demand has {w.unit}: every answer is worth 0"
    if not w.measured or ans.question != "fit":
        return ans
    for k in ("bound", "lpValue"):      # the configuration model's own figures, in the unit too
        if isinstance(ans.detail.get(k), (str, float)) and w.scale != 1:
            ans.detail[k] = exact(Fraction(ans.detail[k]) / w.scale) if k == "bound" else round(ans.detail[k] / w.scale, 3)
    key = w.unit.lower()
    ff, opt = ans.first_fit, ans.optimal
    if "weighted" in ff:
        ans.first_fit = ff = _after_pods(ff, key, exact(w.value(ff.pop("weighted"))))
    if opt.get("objective") is not None:
        for k in ("objective", "bound", "boundGap"):
            if opt.get(k) is not None:
                opt[k] = exact(w.value(opt[k]))
        ans.optimal = opt = _after_pods(opt, key, opt["objective"])
    if key in ff and key in opt:
        ans.gap = exact(Fraction(opt[key]) - Fraction(ff[key]))
    return ans


def _after_pods(d: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    """``d`` with ``key: value`` right after its pods (the table's row order)."""
    out: dict[str, Any] = {}
    for k, v in d.items():
        out[k] = v
        if k == "pods":
            out[key] = value
    out.setdefault(key, value)
    return out
