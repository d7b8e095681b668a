"""Device taints and request tolerations (DC-13, DC-14)."""

from __future__ import annotations

from dralloc.models import DeviceTaint, DeviceToleration

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


def untolerated_taint(taints: list[DeviceTaint] | None,
                      tolerations: list[DeviceToleration] | None) -> DeviceTaint | None:
    """The first blocking taint no toleration tolerates, or None."""
    for t in taints or []:
        if t.effect not in BLOCKING_EFFECTS:
            continue
        if not any(tolerates(tol, t) for tol in tolerations or []):
            return t
    return None
