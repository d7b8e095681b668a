"""Shared counters (partitionable devices): for every counter of every counter
set, what the chosen devices consume plus what allocated devices already
consume stays within the counter's value. A device that allows multiple
allocations consumes its counters once, when its first share is taken.
Rows are exact at any size (:mod:`dralloc.encoders.linear`)."""

from __future__ import annotations

from fractions import Fraction

from ortools.sat.python import cp_model

from dralloc.encoders.base import Encoding
from dralloc.encoders.linear import at_most, forbid
from dralloc.features import Variant
from dralloc.inventory.pools import CounterMap, Pool


def available_counters(pool: Pool, enc: Encoding) -> CounterMap:
    """Counter values minus what committed devices of the pool consume."""
    return enc.problem.state.available_counters(pool)


def add_counters(enc: Encoding) -> None:
    p = enc.problem
    if not p.features.partitionable_devices:
        return
    m = enc.model
    multi_ok = p.features.consumable_capacity and p.variant is not Variant.STABLE
    # (pool id) -> list of (consumption, literal)
    per_pool: dict[tuple[str, str], list[tuple[CounterMap, cp_model.IntVar]]] = {}
    pools: dict[tuple[str, str], Pool] = {}
    for pd, uses in enc.uses_of_device().values():
        if not pd.device.consumes_counters:
            continue
        pools[pd.pool.id] = pd.pool
        use = pd.consumption()
        if multi_ok and pd.device.allow_multiple_allocations:
            if pd.id in p.state.aggregated:
                continue  # its counters were consumed by the first, committed share
            any_use = m.NewBoolVar(f"shared-used[{pd.label}]")
            m.AddMaxEquality(any_use, [v for _, v in uses])
            per_pool.setdefault(pd.pool.id, []).append((use, any_use))
        else:
            per_pool.setdefault(pd.pool.id, []).extend((use, v) for _, v in uses)
    for pd, lits in enc.held.values():   # released claims' devices consume while still held
        if pd.pool.id in per_pool and pd.device.consumes_counters:
            per_pool[pd.pool.id].extend((pd.consumption(), v) for v in lits)
    for pid, items in per_pool.items():
        pool = pools[pid]
        avail = available_counters(pool, enc)
        rows: dict[tuple[str, str], list[tuple[Fraction, cp_model.IntVar]]] = {}
        for u, v in items:   # each consumer's terms, in the consumers' order
            for cs, counters in u.items():
                for name, amount in counters.items():
                    if amount:
                        rows.setdefault((cs, name), []).append((amount, v))
        for cs, counters in avail.items():
            for name, value in counters.items():
                terms = rows.get((cs, name))
                if not terms:
                    continue
                label = f"counter {pool.driver}/{pool.name}/{cs}/{name}"
                guard = enc.guard(label)
                if value < 0:   # overdrawn by allocated devices: no new consumer fits
                    forbid(m, [v for _, v in terms], guard)
                else:
                    at_most(m, terms, value, guard, label)
