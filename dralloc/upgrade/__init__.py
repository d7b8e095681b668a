"""What changes on upgrade: the same cluster under two Kubernetes releases
(``dralloc compare-versions``)."""

from dralloc.upgrade.compare import Cause, Change, Comparison, GateChange, Side, compare_versions

__all__ = ["Cause", "Change", "Comparison", "GateChange", "Side", "compare_versions"]
