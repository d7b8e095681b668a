"""Allocation modes: replay (the Kubernetes search), first-fit and optimal (CP-SAT).

``allocate``, ``Outcome`` and ``Status`` are loaded on first use, so that
reading :mod:`dralloc.solver.modes` (the command line's choices) loads no
engine."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dralloc.solver.modes import MODES

if TYPE_CHECKING:
    from dralloc.solver.api import allocate
    from dralloc.solver.outcome import Outcome, Status

__all__ = ["MODES", "Outcome", "Status", "allocate"]


def __getattr__(name: str) -> Any:
    if name == "allocate":
        from dralloc.solver.api import allocate

        return allocate
    if name in ("Outcome", "Status"):
        from dralloc.solver import outcome

        return getattr(outcome, name)
    raise AttributeError(f"module 'dralloc.solver' has no attribute {name!r}")
