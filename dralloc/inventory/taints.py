"""Device taints and request tolerations (DC-13, DC-14). :func:`blocking_taint`
is the one test every engine and the checker make: the gates decide whether
taints count at all (DRADeviceTaints) and whether those DeviceTaintRules put
on a device do (:attr:`dralloc.features.Features.taint_rules_apply`)."""

from __future__ import annotations

from collections.abc import Sequence

from dralloc.features import Features
from dralloc.models import DeviceTaint, DeviceToleration, RuleTaint

BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")


def tolerates(tol: DeviceToleration, taint: DeviceTaint) -> bool:
    if tol.effect and tol.effect != taint.effect:
        return False
    if tol.key and tol.key != taint.key:
        return False
    op = tol.operator or "Equal"
    if op == "Equal":
        return (tol.value or "") == (taint.value or "")
    return op == "Exists"


def untolerated_taint(taints: Sequence[DeviceTaint] | None,
                      tolerations: list[DeviceToleration] | None) -> DeviceTaint | None:
    """The first blocking taint no toleration tolerates, or None."""
    for t in taints or []:
        if t.effect not in BLOCKING_EFFECTS:
            continue
        if not any(tolerates(tol, t) for tol in tolerations or []):
            return t
    return None


def blocking_taint(taints: Sequence[DeviceTaint] | None, tolerations: list[DeviceToleration] | None,
                   features: Features) -> DeviceTaint | None:
    """The first counted NoSchedule/NoExecute taint no toleration tolerates,
    or None (the device may be allocated as far as taints go)."""
    if not taints or not features.device_taints:
        return None
    for t in taints:
        if t.effect not in BLOCKING_EFFECTS or (isinstance(t, RuleTaint) and not features.taint_rules_apply):
            continue
        if not any(tolerates(tol, t) for tol in tolerations or []):
            return t
    return None


def rule_text(taint: DeviceTaint) -> str:
    """`` (DeviceTaintRule R)`` for a rule's taint, else nothing."""
    return f" (DeviceTaintRule {taint.rule})" if isinstance(taint, RuleTaint) and taint.rule else ""
