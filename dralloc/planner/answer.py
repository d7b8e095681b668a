"""What every planner question returns: first-fit beside the optimum, the gap,
details, and the cluster (for pictures)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dralloc.planner.view.cluster import Cluster


@dataclass
class Answer:
    question: str
    first_fit: dict[str, Any] = field(default_factory=dict)
    optimal: dict[str, Any] = field(default_factory=dict)
    gap: int | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    cluster: Cluster | None = field(default=None, repr=False)   # for pictures; not serialised
    sources: dict[str, Any] = field(default_factory=dict, repr=False)   # for pictures; not serialised

    def as_dict(self) -> dict[str, Any]:
        return {"question": self.question, "firstFit": self.first_fit, "optimal": self.optimal,
                "gap": self.gap, **({"detail": self.detail} if self.detail else {})}
