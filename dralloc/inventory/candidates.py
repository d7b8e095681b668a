"""Which devices a request alternative can ever take in one allocation call,
and why the others cannot (the static filters every engine shares, in
:mod:`dralloc.inventory.exclusions`): held by an allocated claim, not
selected (class and request selectors, node), the partitionable-devices gate,
an untolerated taint, consumable capacity against committed use. Selector
errors propagate as :class:`AllocationError`."""

from __future__ import annotations

from dralloc.inventory.exclusions import (
    STAGE_IN_USE,
    STAGE_NOT_SELECTED,
    STAGE_TAINT,
    static_exclusion,
)
from dralloc.inventory.pools import PoolDevice
from dralloc.inventory.problem import Problem
from dralloc.inventory.requests import RequestSpec

IN_USE, NOT_SELECTED, TAINT = STAGE_IN_USE, STAGE_NOT_SELECTED, STAGE_TAINT


def static_reason(problem: Problem, spec: RequestSpec, pd: PoolDevice) -> str | None:
    """The search step that refuses ``pd`` for ``spec`` in this call (None: it may take it)."""
    why = static_exclusion(problem, spec, pd)
    return None if why is None else why.stage


def searched_devices(problem: Problem, spec: RequestSpec) -> list[PoolDevice]:
    """The devices the search offers ``spec``: an All request's list, else
    every device of the usable pools, in search order."""
    if spec.is_all:
        return list(spec.all_devices or [])
    return [pd for pool in problem.pools if pool.usable for pd in pool.devices]


def request_candidates(problem: Problem, spec: RequestSpec) -> tuple[list[PoolDevice], dict[str, int]]:
    """The devices ``spec`` may take, and how many each exclusion (by kind) removed."""
    excluded: dict[str, int] = {}
    out = []
    for pd in searched_devices(problem, spec):
        why = static_exclusion(problem, spec, pd)
        if why is None:
            out.append(pd)
        else:
            excluded[why.kind] = excluded.get(why.kind, 0) + 1
    return out, excluded
