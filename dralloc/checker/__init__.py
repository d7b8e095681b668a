"""The independent rule checker: is an allocation valid under the rules?

It sits below the solver and imports no OR-Tools, solver or encoder (a test
enforces it): every answer of every mode is checked by it, and ``dralloc
verify`` audits whole clusters with it. ``verify_allocation`` checks one
allocation call's answer; ``check_claim`` one allocated claim against the
cluster."""

from __future__ import annotations

from dralloc.checker.finding import ERROR, INFO, WARNING, Finding, Report
from dralloc.checker.rules import check_claim, verify_allocation

__all__ = ["ERROR", "INFO", "WARNING", "Finding", "Report", "check_claim", "verify_allocation"]
