"""What a ``ResourcePoolStatusRequest`` (resource.k8s.io/v1alpha3, KEP-5677,
Kubernetes 1.37's second alpha) holds once the resource-pool-status
controller has processed it, computed from the same objects.

Per pool of the request's driver (and pool name): the newest generation's
slices only; a pool with fewer slices than it declares is reported with a
``PoolIncomplete:`` validation error and no counts. Otherwise: devices in
total; allocated (devices named by a non-admin result of some claim, each
once however many claims share it); unavailable (devices with a NoSchedule
or NoExecute taint); available = total - allocated - unavailable, never
below zero; the node when every slice names the same one. Then the KEP's
summaries:

* ``partitionSummary`` -- per (grouping attribute, partition type) of the
  counter-consuming devices: how many there are and how many more *could*
  be allocated: the controller's greedy count, each type alone, fresh devices
  in slice order deducting their counters from what the in-use devices leave.
  The attribute is the slice's ``partitionTypeAttribute``, else (when no slice
  of the pool declares one) the request's ``defaultPartitionTypeAttribute``;
* ``shareableSummary`` -- for devices that allow multiple allocations: how
  many are untouched and how many partly used, and per capacity the total,
  what the results consumed and what is left.

The KEP calls ``availableDevices`` "a naive count" on partitionable pools;
``partitionSummary`` is its own, still per type and greedy. What several
types leave *together*, under every counter, placement rule and constraint,
is :mod:`dralloc.audit.headroom`'s exact answer.

Where the controller's input order matters (which slice's declared count is
read, the order of the greedy fit) Kubernetes follows its informer cache;
dralloc follows input order. DeviceTaintRules are not read (dralloc reads
no such objects). The condition carries no ``lastTransitionTime``: the same
input prints the same bytes."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dralloc.io import ObjectSet
from dralloc.models import Device, DeviceCounterConsumption, ResourceClaim, ResourceSlice
from dralloc.quantity import Quantity

API_VERSION = "resource.k8s.io/v1alpha3"
LIMIT_DEFAULT = 100
LIMIT_MAX = 1000
MAX_VIEW_ITEMS = 32
MAX_ERROR_BYTES = 256
UNAVAILABLE_EFFECTS = ("NoSchedule", "NoExecute")


@dataclass(frozen=True)
class StatusRequest:
    """A ResourcePoolStatusRequest's spec."""

    driver: str
    pool_name: str | None = None
    limit: int = LIMIT_DEFAULT
    default_partition_type_attribute: str | None = None

    def spec(self) -> dict[str, Any]:
        out: dict[str, Any] = {"driver": self.driver}
        if self.pool_name is not None:
            out["poolName"] = self.pool_name
        out["limit"] = self.limit
        if self.default_partition_type_attribute is not None:
            out["defaultPartitionTypeAttribute"] = self.default_partition_type_attribute
        return out


@dataclass
class _Pool:
    driver: str
    name: str
    generation: int
    slices: list[ResourceSlice]

    def devices(self) -> list[tuple[ResourceSlice, Device]]:
        return [(s, d) for s in self.slices for d in s.spec.devices or []]


def requests_for(objs: ObjectSet, driver: str | None = None, pool: str | None = None, limit: int = LIMIT_DEFAULT,
                 attribute: str | None = None) -> list[StatusRequest]:
    """One request per driver (``driver``, or every driver of a slice, sorted)."""
    drivers = [driver] if driver else sorted({s.spec.driver for s in objs.slices})
    return [StatusRequest(d, pool, limit, attribute) for d in drivers]


def _pools(slices: Sequence[ResourceSlice], req: StatusRequest) -> list[_Pool]:
    newest: dict[tuple[str, str], int] = {}
    mine = [s for s in slices if s.spec.driver == req.driver
            and (req.pool_name is None or s.spec.pool.name == req.pool_name)]
    for s in mine:
        key = (s.spec.driver, s.spec.pool.name)
        newest[key] = max(newest.get(key, s.spec.pool.generation), s.spec.pool.generation)
    pools: dict[tuple[str, str], _Pool] = {}
    for s in mine:
        key = (s.spec.driver, s.spec.pool.name)
        if s.spec.pool.generation == newest[key]:
            pools.setdefault(key, _Pool(key[0], key[1], newest[key], [])).slices.append(s)
    return [pools[k] for k in sorted(pools, key=lambda k: (k[0].encode(), k[1].encode()))]


@dataclass
class Usage:
    """What the allocated claims hold, per pool: devices in use (non-admin)
    and capacity consumed."""

    in_use: dict[tuple[str, str], set[str]]
    consumed: dict[tuple[str, str], dict[str, Quantity]]

    @classmethod
    def of(cls, claims: Sequence[ResourceClaim]) -> Usage:
        in_use: dict[tuple[str, str], set[str]] = {}
        consumed: dict[tuple[str, str], dict[str, Quantity]] = {}
        for c in claims:
            alloc = c.status.allocation if c.status else None
            for r in (alloc.devices.results or []) if alloc and alloc.devices else []:
                if r.admin_access:
                    continue
                key = (r.driver, r.pool)
                in_use.setdefault(key, set()).add(r.device)
                for name, q in (r.consumed_capacity or {}).items():
                    have = consumed.setdefault(key, {})
                    have[name] = have[name] + q if name in have else q
        return cls(in_use, consumed)


def pool_status(objs: ObjectSet, req: StatusRequest, usage: Usage | None = None) -> dict[str, Any]:
    """The request's ``status``, as the controller writes it."""
    usage = usage or Usage.of(objs.claims)
    pools = [_one(p, req, usage) for p in _pools(objs.slices, req)]
    shown = pools[:req.limit]
    bad = sum(1 for p in shown if "validationError" in p)
    message = f"Calculated status for {len(shown)} pools" + (f" ({bad} incomplete)" if bad else "")
    out: dict[str, Any] = {"poolCount": len(pools)}
    if shown:
        out["pools"] = shown
    out["conditions"] = [{"type": "Complete", "status": "True", "reason": "CalculationComplete", "message": message}]
    return out


def status_object(req: StatusRequest, status: dict[str, Any]) -> dict[str, Any]:
    """The whole ResourcePoolStatusRequest, as ``kubectl get -o yaml`` prints it."""
    return {"apiVersion": API_VERSION, "kind": "ResourcePoolStatusRequest",
            "metadata": {"name": request_name(req)}, "spec": req.spec(), "status": status}


def request_name(req: StatusRequest) -> str:
    return "dralloc-" + req.driver.replace("/", "-") + (f"-{req.pool_name.replace('/', '-')}" if req.pool_name else "")


def _q(text: str) -> str:
    """A string as Go's %q prints it."""
    return json.dumps(text, ensure_ascii=False)


def _error(text: str) -> str:
    raw = text.encode()
    return raw[:MAX_ERROR_BYTES].decode(errors="ignore") if len(raw) > MAX_ERROR_BYTES else text


def _one(p: _Pool, req: StatusRequest, usage: Usage) -> dict[str, Any]:
    out: dict[str, Any] = {"driver": p.driver, "poolName": p.name, "generation": p.generation}
    nodes = {s.spec.node_name or "" for s in p.slices}
    if len(nodes) == 1 and "" not in nodes:
        out["nodeName"] = nodes.pop()
    expected = p.slices[0].spec.pool.resource_slice_count
    if len(p.slices) < expected:
        out["validationError"] = _error(f"PoolIncomplete: pool {p.driver}/{p.name} is incomplete: observed "
                                        f"{len(p.slices)}/{expected} slices at generation {p.generation}")
        return out
    devices = p.devices()
    in_use = usage.in_use.get((p.driver, p.name), set())
    unavailable = sum(1 for _, d in devices if any(t.effect in UNAVAILABLE_EFFECTS for t in d.taints or []))
    out.update({"resourceSliceCount": len(p.slices), "totalDevices": len(devices), "allocatedDevices": len(in_use),
                "availableDevices": max(0, len(devices) - len(in_use) - unavailable),
                "unavailableDevices": unavailable})
    partition, error = partition_summary(p, req, in_use)
    shareable, shareable_error = shareable_summary(p, in_use, usage.consumed.get((p.driver, p.name), {}))
    error = error or shareable_error
    if error:
        out["validationError"] = _error(error)
        partition = []
    if partition:
        out["partitionSummary"] = partition
    if shareable is not None and not shareable_error:
        out["shareableSummary"] = shareable
    return out


# ---------------------------------------------------------------- partitions

def _attribute_value(driver: str, device: Device, name: str) -> str | None:
    """The string value of attribute ``name`` (a name in the driver's domain
    may be written bare); None when the device lacks it as a string."""
    attrs = device.attributes or {}
    a = attrs.get(name)
    if a is None and name.startswith(driver + "/"):
        a = attrs.get(name[len(driver) + 1:])
    return a.string if a is not None else None


def _cost(ccs: Sequence[DeviceCounterConsumption]) -> tuple[tuple[str, str, Fraction], ...]:
    return tuple(sorted((cc.counter_set, n, c.value.value) for cc in ccs for n, c in (cc.counters or {}).items()))


def counters_left(p: _Pool, in_use: set[str]) -> dict[str, dict[str, Fraction]]:
    """Counter set -> counter -> its value minus what in-use devices consume."""
    left = {cs.name: {n: c.value.value for n, c in (cs.counters or {}).items()}
            for s in p.slices for cs in s.spec.shared_counters or []}
    for _, d in p.devices():
        if d.name in in_use:
            _deduct(d.consumes_counters or [], left)
    return left


def _deduct(ccs: Sequence[DeviceCounterConsumption], left: dict[str, dict[str, Fraction]]) -> None:
    for cc in ccs:
        have = left.get(cc.counter_set)
        for n, c in (cc.counters or {}).items():
            if have is not None and n in have:
                have[n] -= c.value.value


def _fits(ccs: Sequence[DeviceCounterConsumption], left: dict[str, dict[str, Fraction]]) -> bool:
    for cc in ccs:
        have = left.get(cc.counter_set, {})
        for n, c in (cc.counters or {}).items():
            if n not in have or have[n] < c.value.value:
                return False
    return True


def partition_attributes(p: _Pool, default: str | None) -> list[tuple[Device, str]]:
    """(device, grouping attribute) of the pool's devices that have one: their
    slice's, or the request's default when no slice of the pool declares one."""
    declared = any(s.spec.partition_type_attribute for s in p.slices)
    out = []
    for s, d in p.devices():
        attr = s.spec.partition_type_attribute or (None if declared else default)
        if attr:
            out.append((d, attr))
    return out


def partition_summary(p: _Pool, req: StatusRequest, in_use: set[str]) -> tuple[list[dict[str, Any]], str]:
    """The KEP's partitionSummary (sorted by attribute, then type), or a
    validation error."""
    grouped = partition_attributes(p, req.default_partition_type_attribute)
    if not grouped:
        return [], ""
    if not any(s.spec.shared_counters for s in p.slices):
        return [], (f"PartitionTypeMissing: pool {p.driver}/{p.name} declares partitionTypeAttribute but publishes "
                    "no sharedCounters")
    groups: dict[tuple[str, str], tuple[list[Device], list[Device], tuple[Any, ...]]] = {}
    for d, attr in grouped:
        if not d.consumes_counters:
            continue
        typ = _attribute_value(p.driver, d, attr)
        if typ is None:
            return [], (f"PartitionTypeMissing: device {_q(d.name)} in pool {p.driver}/{p.name} does not carry "
                        f"partition type attribute {_q(attr)}")
        every, fresh, cost = groups.setdefault((attr, typ), ([], [], _cost(d.consumes_counters)))
        if _cost(d.consumes_counters) != cost:
            return [], (f"PartitionCostMismatch: devices of partition type {_q(typ)} in pool {p.driver}/{p.name} "
                        "consume different counters")
        every.append(d)
        if d.name not in in_use:
            fresh.append(d)
    if len(groups) > MAX_VIEW_ITEMS:
        return [], (f"PartitionSummaryOverCap: pool {p.driver}/{p.name} has {len(groups)} partition types, "
                    f"exceeding the maximum of {MAX_VIEW_ITEMS}")
    base = counters_left(p, in_use)
    out = []
    for (attr, typ), (every, fresh, _) in sorted(groups.items()):
        left = {cs: dict(v) for cs, v in base.items()}
        allocatable = 0
        for d in fresh:
            if _fits(d.consumes_counters or [], left):
                allocatable += 1
                _deduct(d.consumes_counters or [], left)
        out.append({"attribute": attr, "type": typ, "total": len(every), "allocatable": allocatable})
    return out, ""


# ---------------------------------------------------------------- shareable

def shareable_summary(p: _Pool, in_use: set[str], consumed: dict[str, Quantity]) -> tuple[dict[str, Any] | None, str]:
    shared = [d for _, d in p.devices() if d.allow_multiple_allocations]
    if not shared:
        return None, ""
    total: dict[str, Quantity] = {}
    for d in shared:
        for name, cap in (d.capacity or {}).items():
            total[name] = total[name] + cap.value if name in total else cap.value
    if len(total) > MAX_VIEW_ITEMS:
        return None, (f"ShareableSummaryOverCap: pool {p.driver}/{p.name} has {len(total)} shareable capacity keys, "
                      f"exceeding the maximum of {MAX_VIEW_ITEMS}")
    caps = []
    for name in sorted(total):
        t = total[name]
        used = consumed.get(name, Quantity(0, t.format))
        left = t - used
        caps.append({"name": name, "total": t.canonical(), "consumed": used.canonical(),
                     "available": (left if left.sign() >= 0 else Quantity(0, t.format)).canonical()})
    busy = sum(1 for d in shared if d.name in in_use)
    out: dict[str, Any] = {"fullyAvailableDevices": len(shared) - busy, "partiallyAvailableDevices": busy}
    if caps:
        out["capacity"] = caps
    return out, ""
