"""Independent verification of allocations (no OR-Tools here).

``verify_allocation`` checks one allocation call's answer against the rules;
``verify_state`` checks a whole cluster dump: the rules, the Kubernetes
answer (replayed in allocation order) and the pending pods."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dralloc.verify.finding import ERROR, INFO, WARNING, Finding, Report
from dralloc.verify.rules import check_claim, verify_allocation

if TYPE_CHECKING:
    from dralloc.verify.core import verify_state

__all__ = ["ERROR", "INFO", "WARNING", "Finding", "Report", "check_claim", "verify_allocation",
           "verify_state"]


def __getattr__(name: str) -> Any:
    if name == "verify_state":  # imported lazily: it reaches the solver (replay)
        from dralloc.verify.core import verify_state

        return verify_state
    raise AttributeError(name)
