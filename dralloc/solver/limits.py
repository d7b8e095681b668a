"""Time limits of the CP-SAT searches, and the words for when one stops.

Every CP-SAT search in dralloc (first-fit, optimal, explain, the audit's joint
placement, the planner's models) runs under a time limit: the caller's, or
:data:`DEFAULT_TIME_LIMIT`. A search that stops at its limit says so: in
``Outcome.notes`` / ``Outcome.error``, in the explanation, or in the planner's
answer (``status`` FEASIBLE or UNKNOWN, ``proven: false``, ``stopped``)."""

from __future__ import annotations

import time

DEFAULT_TIME_LIMIT = 60.0    # seconds, when the caller gives none


def limit_or_default(time_limit: float | None) -> float:
    return DEFAULT_TIME_LIMIT if time_limit is None else float(time_limit)


def stopped(limit: float, what: str = "the search") -> str:
    return f"{what} stopped at its time limit ({limit:g} s)"


class Deadline:
    """One time budget shared by several solver calls (a lexicographic
    optimum, a core shrunk by deletion)."""

    def __init__(self, time_limit: float | None) -> None:
        self.limit = limit_or_default(time_limit)
        self.end = time.monotonic() + self.limit

    def left(self) -> float:
        """Seconds left (CP-SAT stops at once, UNKNOWN, when none are)."""
        return max(1e-9, self.end - time.monotonic())

    def over(self) -> bool:
        return time.monotonic() >= self.end
