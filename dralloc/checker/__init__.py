"""The independent rule checker: is an allocation valid under the rules?

It sits below the solver and imports no OR-Tools, solver or encoder (a test
enforces it): every answer of every mode is checked by it, and ``dralloc
verify`` audits whole clusters with it. ``verify_allocation`` checks one
allocation call's answer; ``check_claim`` one allocated claim against the
cluster. The rules are loaded on first use, so that reading
:mod:`dralloc.checker.finding` (levels, rule names) stays light."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dralloc.checker.finding import ERROR, INFO, WARNING, Finding, Report

if TYPE_CHECKING:
    from dralloc.checker.rules import check_claim, verify_allocation

__all__ = ["ERROR", "INFO", "WARNING", "Finding", "Report", "check_claim", "verify_allocation"]


def __getattr__(name: str) -> Any:
    if name in ("check_claim", "verify_allocation"):
        from dralloc.checker import rules

        return getattr(rules, name)
    raise AttributeError(f"module 'dralloc.checker' has no attribute {name!r}")
