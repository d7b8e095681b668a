"""Pool-level checks: what the allocator verifies when it gathers the slices
of a pool (spec §2, PG-5..PG-12), reported up front.

A pool is (driver, pool name). Only the slices of the newest generation
count; the pool is complete when their number equals ``resourceSliceCount``.
Across those slices device names and counter-set names must be unique, and
every counter consumption must name a counter set of the same pool and only
counters that set defines. The allocator turns a broken pool into "invalid"
or "being updated" and refuses requests that need it."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from dralloc.models import ResourceSlice
from dralloc.validation.finding import WARNING, Collector

Where = Callable[[ResourceSlice], Collector]


def _pools(slices: list[ResourceSlice]) -> dict[tuple[str, str], list[ResourceSlice]]:
    pools: dict[tuple[str, str], list[ResourceSlice]] = defaultdict(list)
    for s in slices:
        pools[(s.spec.driver, s.spec.pool.name)].append(s)
    return pools


def _completeness(pool: str, slices: list[ResourceSlice], current: list[ResourceSlice], where: Where) -> None:
    gen = current[0].spec.pool.generation
    for s in slices:
        if s.spec.pool.generation < gen:
            where(s).add("spec.pool.generation", "pool.stale-generation",
                         f"pool {pool}: generation {s.spec.pool.generation} is older than {gen}; "
                         "the allocator ignores this slice", WARNING)
    counts = {s.spec.pool.resource_slice_count for s in current}
    if len(counts) > 1:
        for s in current:
            where(s).add("spec.pool.resourceSliceCount", "pool.slice-count-agree",
                         f"pool {pool} generation {gen}: slices disagree on resourceSliceCount "
                         f"({', '.join(map(str, sorted(counts)))})")
        return
    want = counts.pop()
    if len(current) != want:
        names = ", ".join(s.name or "?" for s in current)
        where(current[0]).add("spec.pool.resourceSliceCount", "pool.complete",
                              f"pool {pool} generation {gen} is incomplete: resourceSliceCount is {want} "
                              f"but {len(current)} slice(s) were given ({names}); the allocator treats "
                              "the pool as being updated")


def _unique_names(pool: str, current: list[ResourceSlice], where: Where) -> dict[str, set[str]]:
    """Device and counter-set names unique across the pool; returns the
    counters of each counter set."""
    devices: dict[str, str] = {}
    sets: dict[str, set[str]] = {}
    set_owner: dict[str, str] = {}
    for s in current:
        for i, d in enumerate(s.spec.devices or ()):
            other = devices.setdefault(d.name, s.name)
            if other != s.name:
                where(s).add(f"spec.devices[{i}].name", "pool.devices.unique",
                             f"device name {d.name!r} is also used in slice {other} of pool {pool}")
        for i, cs in enumerate(s.spec.shared_counters or ()):
            other = set_owner.setdefault(cs.name, s.name)
            if other != s.name:
                where(s).add(f"spec.sharedCounters[{i}].name", "pool.counter-sets.unique",
                             f"counter set name {cs.name!r} is also used in slice {other} of pool {pool}")
            sets[cs.name] = set(cs.counters or {})
    return sets


def _references(pool: str, current: list[ResourceSlice], sets: dict[str, set[str]], where: Where) -> None:
    for s in current:
        for i, d in enumerate(s.spec.devices or ()):
            for k, cc in enumerate(d.consumes_counters or ()):
                path = f"spec.devices[{i}].consumesCounters[{k}]"
                if cc.counter_set not in sets:
                    known = ", ".join(sorted(sets)) or "none"
                    where(s).add(f"{path}.counterSet", "pool.counter-set.exists",
                                 f"counter set {cc.counter_set!r} is not defined in pool {pool} "
                                 f"(defined: {known})")
                    continue
                for name in cc.counters or {}:
                    if name not in sets[cc.counter_set]:
                        where(s).add(f"{path}.counters[{name}]", "pool.counter.exists",
                                     f"counter {name!r} is not defined in counter set {cc.counter_set!r}")


def check_pools(slices: list[ResourceSlice], where: Where) -> None:
    """Findings for every pool the slices form. ``where(slice)`` gives the
    collector that names the slice's file and object."""
    for (driver, name), members in sorted(_pools(slices).items()):
        pool = f"{driver}/{name}"
        gen = max(s.spec.pool.generation for s in members)
        current = [s for s in members if s.spec.pool.generation == gen]
        _completeness(pool, members, current, where)
        sets = _unique_names(pool, current, where)
        _references(pool, current, sets, where)
