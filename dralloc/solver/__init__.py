"""Allocation modes: replay (the Kubernetes search), first-fit and optimal (CP-SAT)."""

from dralloc.solver.api import MODES, allocate
from dralloc.solver.outcome import Outcome, Status

__all__ = ["MODES", "Outcome", "Status", "allocate"]
