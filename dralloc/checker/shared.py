"""Rules over all allocated claims together: no device held twice (unless
admin access or consumable capacity allows it), shares within capacity,
counter sets not overdrawn, and (DRADeviceCompatibilityGroups) the devices
drawing from one counter set sharing a compatibility group, each with the
groups its result recorded. Pools are keyed by (driver, pool name)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction

from dralloc.checker.finding import Finding, error
from dralloc.features import Features, Variant
from dralloc.inventory.compat import Groups, describe, groups_of
from dralloc.models import Device, DeviceRequestAllocationResult, ResourceClaim, ResourceSlice
from dralloc.quantity import amount_text

DeviceID = tuple[str, str, str]
Res = DeviceRequestAllocationResult


@dataclass
class PoolIndex:
    """The newest generation of every pool, over all nodes."""

    devices: dict[DeviceID, Device] = field(default_factory=dict)
    counters: dict[tuple[str, str], dict[str, dict[str, Fraction]]] = field(default_factory=dict)

    @classmethod
    def build(cls, slices: Iterable[ResourceSlice]) -> PoolIndex:
        newest: dict[tuple[str, str], int] = {}
        all_slices = list(slices)
        for s in all_slices:
            k = (s.spec.driver, s.spec.pool.name)
            newest[k] = max(newest.get(k, s.spec.pool.generation), s.spec.pool.generation)
        idx = cls()
        for s in all_slices:
            k = (s.spec.driver, s.spec.pool.name)
            if s.spec.pool.generation != newest[k]:
                continue
            for d in s.spec.devices or []:
                idx.devices.setdefault((k[0], k[1], d.name), d)
            for cs in s.spec.shared_counters or []:
                dst = idx.counters.setdefault(k, {}).setdefault(cs.name, {})
                for name, c in (cs.counters or {}).items():
                    dst[name] = c.value.value
        return idx


def _held(claims: Iterable[ResourceClaim]) -> dict[DeviceID, list[tuple[str, Res]]]:
    out: dict[DeviceID, list[tuple[str, Res]]] = {}
    for c in claims:
        alloc = c.status.allocation if c.status else None
        for r in (alloc.devices.results or []) if alloc and alloc.devices else []:
            out.setdefault((r.driver, r.pool, r.device), []).append((c.key, r))
    return out


def check_shared(slices: Iterable[ResourceSlice], claims: Iterable[ResourceClaim], features: Features,
                 variant: Variant) -> list[Finding]:
    idx = PoolIndex.build(slices)
    held = _held(claims)
    out: list[Finding] = []
    sharing = features.consumable_capacity and variant is not Variant.STABLE
    for dev_id, holders in sorted(held.items()):
        out.extend(_double(dev_id, holders, idx.devices.get(dev_id), sharing))
        dev = idx.devices.get(dev_id)
        if dev is not None and sharing:
            out.extend(_capacity(dev_id, holders, dev))
    out.extend(_counters(idx, held, features))
    if features.compatibility_groups and features.partitionable_devices:
        out.extend(_compatibility(idx, held))
    return out


def _compatibility(idx: PoolIndex, held: dict[DeviceID, list[tuple[str, Res]]]) -> list[Finding]:
    """KEP-5963: the groups of the devices on one counter set intersect."""
    members: dict[tuple[str, str, str], list[tuple[str, Groups]]] = {}
    for dev_id, holders in sorted(held.items()):
        dev = idx.devices.get(dev_id)
        users = [r for _, r in holders if not r.admin_access]
        if dev is None or not users:
            continue
        recorded: dict[str, list[str]] = {}
        for r in users:
            for cs, groups in (r.compatibility_groups or {}).items():
                recorded.setdefault(cs, groups)
        for cc in dev.consumes_counters or []:
            members.setdefault((dev_id[0], dev_id[1], cc.counter_set), []).append(
                (dev_id[2], groups_of(recorded.get(cc.counter_set))))
    out = []
    for (driver, pool, cs), items in sorted(members.items()):
        common = items[0][1]
        for _, g in items[1:]:
            common = common & g
        if common:
            continue
        shown = ", ".join(f"{name} {describe(g)}" for name, g in items)
        out.append(error("compatibility-groups", "", f"the devices drawing from counter set {cs} of pool "
                         f"{driver}/{pool} share no compatibility group ({shown})", (f"{driver}/{pool}/{cs}",),
                         ("status.allocation.devices.results[].compatibilityGroups",
                          "spec.devices[].consumesCounters[].compatibilityGroups")))
    return out


def _double(dev_id: DeviceID, holders: list[tuple[str, Res]], dev: Device | None, sharing: bool) -> list[Finding]:
    """A device is held once, unless by admin access or as shares of a device
    that allows multiple allocations; each share has its own ID."""
    lab = "/".join(dev_id)
    claims = sorted({k for k, _ in holders})
    objs = (lab, *(f"ResourceClaim {k}" for k in claims))
    fp = ("status.allocation.devices.results",)
    multi = sharing and dev is not None and bool(dev.allow_multiple_allocations)
    out: list[Finding] = []
    seen: dict[str, int] = {}
    for k, r in holders:
        seen[k] = seen.get(k, 0) + (0 if multi and r.share_id else 1)
    for k, n in seen.items():
        if n > 1:
            out.append(error("double-allocation", k, f"device {lab} appears {n} times in the claim", objs, fp))
    users = [(k, r) for k, r in holders if not r.admin_access]
    shares = [(k, r) for k, r in users if multi and r.share_id]
    exclusive = [(k, r) for k, r in users if not (multi and r.share_id)]
    owners = sorted({k for k, _ in exclusive})
    if len(owners) > 1 or (exclusive and shares):
        who = ", ".join(sorted({k for k, _ in users}))
        out.append(error("double-allocation", owners[0], f"device {lab} is held by several claims ({who}) "
                         "without admin access or shared capacity", objs, fp))
    ids: dict[str, list[str]] = {}
    for k, r in holders:
        if r.share_id:
            ids.setdefault(r.share_id, []).append(k)
    for sid, ks in sorted(ids.items()):
        if len(ks) > 1:
            out.append(error("share-id", ks[0], f"share ID {sid} of device {lab} is used by {len(ks)} results "
                             f"({', '.join(sorted(ks))}); each share needs its own", objs,
                             ("status.allocation.devices.results[].shareID",)))
    return out


def _capacity(dev_id: DeviceID, holders: list[tuple[str, Res]], dev: Device) -> list[Finding]:
    lab = "/".join(dev_id)
    total: dict[str, Fraction] = {}
    for _, r in holders:
        if not r.share_id or r.admin_access:
            continue
        for name, q in (r.consumed_capacity or {}).items():
            total[name] = total.get(name, Fraction(0)) + q.value
    out = []
    for name, used in sorted(total.items()):
        cap = (dev.capacity or {}).get(name)
        if cap is None:  # a capacity the device lacks: each such result is a consumed-capacity finding
            continue
        if used > cap.value.value:
            who = ", ".join(sorted({k for k, r in holders if r.share_id}))
            out.append(error("capacity", holders[0][0], f"the shares of device {lab} ({who}) consume "
                             f"{_q(used)} of capacity {name}, the device has {cap.value}",
                             (lab,), ("status.allocation.devices.results[].consumedCapacity",)))
    return out


def _q(v: Fraction) -> str:
    return amount_text(v)


def _counters(idx: PoolIndex, held: dict[DeviceID, list[tuple[str, Res]]], features: Features) -> list[Finding]:
    used: dict[tuple[str, str], dict[str, dict[str, Fraction | int]]] = {}   # whole amounts summed as ints
    out: list[Finding] = []
    for dev_id, holders in sorted(held.items()):
        dev = idx.devices.get(dev_id)
        if dev is None or not dev.consumes_counters or all(r.admin_access for _, r in holders):
            continue
        if not features.partitionable_devices:
            out.append(error("counters", holders[0][0], f"device {'/'.join(dev_id)} consumes counters, which "
                             "needs DRAPartitionableDevices", ("/".join(dev_id),)))
            continue
        pool = dev_id[:2]
        for cc in dev.consumes_counters:
            dst = used.setdefault(pool, {}).setdefault(cc.counter_set, {})
            for name, c in (cc.counters or {}).items():
                v = c.value.value
                dst[name] = dst.get(name, 0) + (v.numerator if v.denominator == 1 else v)
    for pool, sets in sorted(used.items()):
        for cs, counters in sorted(sets.items()):
            for name, amount in sorted(counters.items()):
                avail = idx.counters.get(pool, {}).get(cs, {}).get(name)
                if avail is not None and (amount <= avail.numerator if avail.denominator == 1 and
                                          isinstance(amount, int) else amount <= avail):
                    continue
                limit = "is not defined" if avail is None else f"holds {_q(avail)}"
                devs = ", ".join(_users(idx, held, pool, cs, name))
                out.append(error("counters", "", f"counter {name} of counter set {cs} in pool "
                                 f"{pool[0]}/{pool[1]} {limit}, the allocated devices ({devs}) consume "
                                 f"{_q(Fraction(amount))}", (f"{pool[0]}/{pool[1]}/{cs}",),
                                 ("spec.sharedCounters", "spec.devices[].consumesCounters")))
    return out


def _users(idx: PoolIndex, held: dict[DeviceID, list[tuple[str, Res]]], pool: tuple[str, str],
           cs: str, name: str) -> list[str]:
    """The held devices of ``pool`` that consume counter ``cs``/``name`` (for a finding)."""
    out = set()
    for dev_id, holders in held.items():
        dev = idx.devices.get(dev_id)
        if dev_id[:2] != pool or dev is None or all(r.admin_access for _, r in holders):
            continue
        if any(cc.counter_set == cs and name in (cc.counters or {}) for cc in dev.consumes_counters or []):
            out.add(dev_id[2])
    return sorted(out)
