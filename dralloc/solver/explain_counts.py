"""Per-request candidate counts: why a request found too few devices, in words
(no solver: the inventory's filters, one at a time)."""

from __future__ import annotations

from collections import Counter

from dralloc.errors import AllocationError
from dralloc.inventory.pools import PoolDevice
from dralloc.inventory.problem import Problem
from dralloc.inventory.requests import RequestSpec
from dralloc.inventory.taints import untolerated_taint


def _why_not(problem: Problem, req: RequestSpec, pd: PoolDevice) -> str | None:
    if pd.id in problem.state.devices and not req.admin:
        return "already allocated"
    try:
        why = problem.selectable.reason(pd, req)
    except AllocationError:
        return "selector error"
    if why:
        return why
    if problem.features.device_taints and untolerated_taint(pd.device.taints, req.tolerations):
        return "tainted (not tolerated)"
    return None


def candidate_report(problem: Problem) -> list[str]:
    """One line per request: how many devices pass each filter on this node."""
    lines = []
    usable = [pd for pool in problem.pools if pool.usable for pd in pool.devices]
    skipped = [f"{p.driver}/{p.name}" for p in problem.pools if not p.usable]
    for plan in problem.plans:
        for slot in plan.slots:
            for req in slot.options:
                reasons: Counter[str] = Counter()
                ok = 0
                for pd in usable:
                    w = _why_not(problem, req, pd)
                    if w is None:
                        ok += 1
                    else:
                        reasons[w] += 1
                want = req.num_devices if not req.is_all else f"all {req.num_devices}"
                detail = "; ".join(f"{n} {w}" for w, n in reasons.most_common())
                lines.append(f"claim {plan.key} request {req.name} wants {want} device(s): "
                             f"{ok} of {len(usable)} candidate(s) on node {problem.node.name or '<none>'} usable"
                             + (f" ({detail})" if detail else ""))
    if skipped:
        lines.append("pools skipped as incomplete or invalid: " + ", ".join(skipped))
    return lines
