"""Which devices a request alternative can ever take in one allocation call,
and why the others cannot (the static filters every engine shares): held by
an allocated claim, not selected (class and request selectors, node), the
partitionable-devices gate, an untolerated taint, consumable capacity against
committed use. Selector errors propagate as :class:`AllocationError`."""

from __future__ import annotations

from dralloc.features import Variant
from dralloc.inventory.capacity import UnknownCapacity, request_over_capacity_ok
from dralloc.inventory.pools import PoolDevice
from dralloc.inventory.problem import Problem
from dralloc.inventory.requests import RequestSpec
from dralloc.inventory.taints import untolerated_taint

IN_USE, NOT_SELECTED, TAINT = "in use", "not selected", "taint"


def static_reason(problem: Problem, spec: RequestSpec, pd: PoolDevice) -> str | None:
    """Why ``pd`` can never serve ``spec`` in this call (None: it may)."""
    dev = pd.device
    if not spec.admin and pd.id in problem.state.devices:
        return IN_USE
    if not problem.selectable(pd, spec):
        return NOT_SELECTED
    if not problem.features.partitionable_devices and dev.consumes_counters:
        return "consumes counters"
    if problem.features.device_taints and untolerated_taint(dev.taints, spec.tolerations) is not None:
        return TAINT
    if problem.features.consumable_capacity and problem.variant is not Variant.STABLE:
        try:
            if not request_over_capacity_ok(spec.capacity, dev.capacity, problem.state.aggregated.get(pd.id), None):
                return "capacity"
        except UnknownCapacity:
            return "capacity"
    return None


def searched_devices(problem: Problem, spec: RequestSpec) -> list[PoolDevice]:
    """The devices the search offers ``spec``: an All request's list, else
    every device of the usable pools, in search order."""
    if spec.is_all:
        return list(spec.all_devices or [])
    return [pd for pool in problem.pools if pool.usable for pd in pool.devices]


def request_candidates(problem: Problem, spec: RequestSpec) -> tuple[list[PoolDevice], dict[str, int]]:
    """The devices ``spec`` may take, and how many each filter removed."""
    excluded: dict[str, int] = {}
    out = []
    for pd in searched_devices(problem, spec):
        why = static_reason(problem, spec, pd)
        if why is None:
            out.append(pd)
        else:
            excluded[why] = excluded.get(why, 0) + 1
    return out, excluded
