"""Device compatibility groups (KEP-5963, ``DRADeviceCompatibilityGroups``,
Kubernetes 1.37 alpha), the facts every engine and the checker share.

A device names, per counter set it consumes, the groups it agrees to be
allocated alongside (``consumesCounters[].compatibilityGroups``). Devices
drawing from one counter set may be allocated together only when their groups
have a common member -- or when none of them declares any: a device without
groups goes only with devices without groups. Devices that share no counter
set are never compared.

dralloc gives a device without groups the one-member set :data:`NO_GROUPS`;
the rule is then a plain one: the groups of every device allocated on a
counter set (already allocated ones and new ones) intersect. Already
allocated devices count with the groups their claim recorded when they were
allocated (``results[].compatibilityGroups``, the KEP's snapshot), not the
slice's current ones; one allocated without a snapshot for a counter set
counts as declaring none. Which counter sets an allocated device draws from
is read from the pool's slices, as for counters.

With the gate off, Kubernetes 1.37 ignores every device that declares groups,
and every device drawing from a counter set on which an allocated device
recorded groups (:func:`skipped_without_gate`)."""

from __future__ import annotations

from collections.abc import Iterable

from dralloc.inventory.pools import Pool
from dralloc.models import Device, DeviceRequestAllocationResult, ResourceClaim

NO_GROUPS = "\x00none"  # the group of a device that declares no groups
Groups = frozenset[str]
Snapshots = dict[tuple[str, str, str], dict[str, list[str]]]  # device -> counter set -> groups


def groups_of(names: Iterable[str] | None) -> Groups:
    got = frozenset(names or ())
    return got if got else frozenset([NO_GROUPS])


def device_groups(device: Device) -> dict[str, Groups]:
    """Counter set -> the device's groups there, as its slice declares them."""
    return {cc.counter_set: groups_of(cc.compatibility_groups) for cc in device.consumes_counters or []}


def declares_groups(device: Device) -> bool:
    return any(cc.compatibility_groups for cc in device.consumes_counters or [])


def snapshot(device: Device) -> dict[str, list[str]] | None:
    """What a result records of the device (counter sets with groups only;
    None when it declares none)."""
    out = {cc.counter_set: list(cc.compatibility_groups) for cc in device.consumes_counters or []
           if cc.compatibility_groups}
    return out or None


def record(snapshots: Snapshots, r: DeviceRequestAllocationResult) -> None:
    """Note an allocated result's recorded groups (admin results are not
    allocations, as the scheduler's allocated state does not record them)."""
    if r.admin_access:
        return
    entry = snapshots.setdefault((r.driver, r.pool, r.device), {})
    for cs, groups in (r.compatibility_groups or {}).items():
        entry[cs] = list(groups)


def recorded_groups(claim: ResourceClaim, device: tuple[str, str, str]) -> dict[str, list[str]]:
    """The groups ``claim``'s allocation recorded for ``device`` (driver,
    pool, device), per counter set; empty when it recorded none."""
    alloc = claim.status.allocation if claim.status else None
    out: dict[str, list[str]] = {}
    for r in (alloc.devices.results or []) if alloc and alloc.devices else []:
        if (r.driver, r.pool, r.device) == device and not r.admin_access:
            for cs, groups in (r.compatibility_groups or {}).items():
                out[cs] = list(groups)
    return out


def allocated_members(pool: Pool, allocated: Iterable[tuple[str, str, str]],
                      snapshots: Snapshots) -> dict[str, list[tuple[str, Groups]]]:
    """Counter set -> (device, recorded groups) of the pool's allocated
    devices (every device of its slices, on any node, as counters count them)."""
    held = set(allocated)
    out: dict[str, list[tuple[str, Groups]]] = {}
    for d in [d for s in pool.slices for d in s.spec.devices or []] + pool.nontargeting_devices():
        dev_id = (pool.driver, pool.name, d.name)
        if dev_id not in held:
            continue
        recorded = snapshots.get(dev_id, {})
        for cc in d.consumes_counters or []:
            out.setdefault(cc.counter_set, []).append((d.name, groups_of(recorded.get(cc.counter_set))))
    return out


def baseline(members: dict[str, list[tuple[str, Groups]]]) -> dict[str, Groups]:
    """Counter set -> the intersection of its allocated devices' groups (an
    empty set: they already disagree, so no device may join)."""
    out: dict[str, Groups] = {}
    for cs, items in members.items():
        common: Groups | None = None
        for _, g in items:
            common = g if common is None else common & g
        out[cs] = common if common is not None else frozenset()
    return out


def skipped_without_gate(device: Device, members: dict[str, list[tuple[str, Groups]]]) -> bool:
    """The gate is off: the device declares groups, or draws from a counter
    set on which an allocated device recorded some."""
    if declares_groups(device):
        return True
    none = frozenset([NO_GROUPS])
    return any(g != none for cc in device.consumes_counters or [] for _, g in members.get(cc.counter_set, ()))


def describe(groups: Groups) -> str:
    return "no groups" if groups == frozenset([NO_GROUPS]) else "{" + ", ".join(sorted(groups)) + "}"
