"""Device compatibility groups (KEP-5963, DRADeviceCompatibilityGroups on):
on every counter set, the groups of all devices drawing from it -- allocated
ones as their claims recorded them, chosen ones as their slices declare them
-- have a common member (a device without groups counts as the one group
:data:`~dralloc.inventory.compat.NO_GROUPS`; :mod:`dralloc.inventory.compat`).

One witness literal per group that can still be common, at most one chosen;
a chosen device needs the witness among its groups. Allocated devices narrow
the witnesses to their own intersection (an empty one: nothing may join).
Devices held by claims the model may release (make-room, ``Encoding.held``)
count with the groups their claim recorded while held, and only when a new
device joins their counter set (held devices never constrain each other: they
are allocated already)."""

from __future__ import annotations

from ortools.sat.python import cp_model

from dralloc.encoders.base import Encoding
from dralloc.inventory.compat import Groups, baseline, device_groups, groups_of

Key = tuple[str, str, str]  # (driver, pool, counter set)


def add_compatibility_groups(enc: Encoding) -> None:
    p = enc.problem
    if not (p.features.compatibility_groups and p.features.partitionable_devices):
        return
    uses: dict[Key, list[tuple[Groups, cp_model.IntVar]]] = {}
    committed: dict[Key, Groups | None] = {}
    for pd, device_uses in enc.uses_of_device().values():
        if not pd.device.consumes_counters:
            continue
        base = baseline(p.state.compat_members(pd.pool))
        for cs, groups in device_groups(pd.device).items():
            key = (pd.pool.driver, pd.pool.name, cs)
            committed.setdefault(key, base.get(cs))
            uses.setdefault(key, []).extend((groups, v) for _, v in device_uses)
    held: dict[Key, list[tuple[Groups, cp_model.IntVar]]] = {}
    for dev_id, (pd, lits) in enc.held.items():
        recorded = enc.held_groups.get(dev_id, {})
        for cc in pd.device.consumes_counters or []:
            key = (pd.pool.driver, pd.pool.name, cc.counter_set)
            if key in uses:
                held.setdefault(key, []).extend((groups_of(recorded.get(cc.counter_set)), v) for v in lits)
    for key, items in uses.items():
        _counter_set(enc, key, items, committed[key], held.get(key, []))


def _counter_set(enc: Encoding, key: Key, items: list[tuple[Groups, cp_model.IntVar]],
                 committed: Groups | None, held: list[tuple[Groups, cp_model.IntVar]]) -> None:
    m = enc.model
    guard = enc.guard(f"compatibility {'/'.join(key)}")
    everyone = items + held
    universe: set[str] = set(committed) if committed is not None else {g for gs, _ in everyone for g in gs}
    if committed is None and all(gs == everyone[0][0] for gs, _ in everyone):
        return  # every device agrees with every other: nothing to choose
    witness = {g: m.NewBoolVar(f"compat[{'/'.join(key)}={g!r}]") for g in sorted(universe)}
    m.Add(sum(witness.values()) <= 1)
    for groups, v in items:
        allowed = [witness[g] for g in sorted(groups & universe)]
        if not allowed:
            m.Add(v == 0).OnlyEnforceIf(guard)
        else:
            m.AddBoolOr([v.Not(), *allowed]).OnlyEnforceIf(guard)
    if not held:
        return
    joined = m.NewBoolVar(f"compat-joined[{'/'.join(key)}]")
    m.AddMaxEquality(joined, [v for _, v in items])
    for groups, lit in held:   # a kept holder's device, once a new device joins its counter set
        allowed = [witness[g] for g in sorted(groups & universe)]
        m.AddBoolOr([lit.Not(), joined.Not(), *allowed]).OnlyEnforceIf(guard)
