"""The 2025-03 revision of KEP-4815: capacity pools, to resource.k8s.io/v1.

A slice (or a bare spec fragment) declares ``capacityPools``: named sets of
capacities, each built from ``capacityPool`` mixins (in ``includes`` order)
plus its own ``capacity``. A composite device lists ``consumesCapacity``
entries, each naming a ``capacityPool`` and the capacities it takes from it:
``deviceCapacityConsumption`` mixins (in order) plus its own ``capacity``.
Device attributes and capacities come from ``device`` mixins the same way.
Mixins live under ``mixins: {capacityPool, device, deviceCapacityConsumption}``.

A set of devices fits when, for every pool and capacity, what the devices
take stays within the pool: exactly v1's shared counters. So a capacity pool
becomes a counter set of the same name, its capacities counters, and a
``consumesCapacity`` entry a ``consumesCounters`` entry. A pool with more than
32 capacities is split (:func:`dralloc.formats.counter_split.split_flat`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dralloc.errors import InputError
from dralloc.formats.common import (
    Namer,
    Translation,
    as_list,
    as_mapping,
    c_identifier,
    dns_label,
    normalize_version,
    quantity,
    ref_name,
)
from dralloc.formats.composite import MAX_COUNTERS, slice_docs
from dralloc.formats.composite_parse import slice_header
from dralloc.formats.counter_split import check_spans, split_flat
from dralloc.quantity import Quantity

Caps = dict[str, Quantity]
MIXIN_KINDS = ("capacityPool", "device", "deviceCapacityConsumption")


def _has_pools(spec: dict[str, Any]) -> bool:
    if spec.get("capacityPools") is not None or isinstance(spec.get("mixins"), dict):
        return True
    devices = spec.get("devices")
    return isinstance(devices, list) and any(
        isinstance(d, dict) and isinstance(d.get("composite"), dict) and "consumesCapacity" in d["composite"]
        for d in devices)


def is_pools_document(doc: Any) -> bool:
    """A 2025-03 ResourceSlice (any resource.k8s.io version) or bare fragment."""
    if not isinstance(doc, dict):
        return False
    if doc.get("kind") == "ResourceSlice":
        return isinstance(doc.get("spec"), dict) and _has_pools(doc["spec"])
    return "kind" not in doc and "apiVersion" not in doc and _has_pools(doc)


@dataclass
class Consumption:
    pool: str
    path: str
    capacity: Caps


@dataclass
class PoolDevice:
    name: str
    path: str
    attributes: dict[str, dict[str, Any]] = field(default_factory=dict)
    capacity: Caps = field(default_factory=dict)
    consumes: list[Consumption] = field(default_factory=list)


@dataclass
class PoolsSlice:
    header: Any                                  # a CompositeSlice header: driver, pool, placement...
    mixins: dict[str, dict[str, Any]] = field(default_factory=dict)   # kind -> name -> body
    pools: dict[str, Caps] = field(default_factory=dict)
    devices: list[PoolDevice] = field(default_factory=list)

    def error(self, message: str, fieldp: str) -> InputError:
        return InputError(message, source=self.header.where, obj=self.header.obj, field=fieldp)


def _caps(s: PoolsSlice, body: dict[str, Any], path: str) -> Caps:
    return {str(k): quantity(v, s.header.where, s.header.obj, f"{path}.capacity[{k}]")
            for k, v in as_mapping(body.get("capacity"), s.header.where, s.header.obj, f"{path}.capacity").items()}


def _includes(s: PoolsSlice, body: dict[str, Any], path: str, kind: str) -> list[dict[str, Any]]:
    """The mixins of ``kind`` that ``body.includes`` names, in order."""
    out = []
    raw = as_list(body.get("includes"), s.header.where, s.header.obj, f"{path}.includes")
    for j, r in enumerate(raw):
        name = ref_name(r, s.header.where, s.header.obj, f"{path}.includes[{j}]")
        if name not in s.mixins[kind]:
            other = [k for k in MIXIN_KINDS if name in s.mixins[k]]
            hint = f" (there is a {other[0]} mixin of that name)" if other else ""
            raise s.error(f"includes {name!r}, which is not a {kind} mixin of this slice{hint}",
                          f"{path}.includes[{j}]")
        out.append(s.mixins[kind][name])
    return out


def _read_mixins(s: PoolsSlice, raw: Any, prefix: str) -> None:
    where, obj = s.header.where, s.header.obj
    mixins = as_mapping(raw, where, obj, f"{prefix}mixins")
    for kind in mixins:
        if kind not in MIXIN_KINDS:
            raise s.error(f"unknown mixin kind {kind!r} (known: {', '.join(MIXIN_KINDS)})", f"{prefix}mixins.{kind}")
    for kind in MIXIN_KINDS:
        table = s.mixins.setdefault(kind, {})
        for i, m in enumerate(as_list(mixins.get(kind), where, obj, f"{prefix}mixins.{kind}")):
            path = f"{prefix}mixins.{kind}[{i}]"
            m = as_mapping(m, where, obj, path)
            name = ref_name(m, where, obj, f"{path}.name")
            if name in table:
                raise s.error(f"duplicate {kind} mixin {name!r}", f"{path}.name")
            body = m.get("composite", m.get("basic", m)) if kind == "device" else m
            bpath = f"{path}.composite" if kind == "device" and "composite" in m else path
            body = as_mapping(body, where, obj, bpath)
            attrs = {str(k): dict(as_mapping(v, where, obj, f"{bpath}.attributes[{k}]"))
                     for k, v in as_mapping(body.get("attributes"), where, obj, f"{bpath}.attributes").items()}
            table[name] = {"attributes": attrs, "capacity": _caps(s, body, bpath)}


def _read_pools(s: PoolsSlice, raw: Any, prefix: str) -> None:
    for i, p in enumerate(as_list(raw, s.header.where, s.header.obj, f"{prefix}capacityPools")):
        path = f"{prefix}capacityPools[{i}]"
        p = as_mapping(p, s.header.where, s.header.obj, path)
        name = ref_name(p, s.header.where, s.header.obj, f"{path}.name")
        if name in s.pools:
            raise s.error(f"duplicate capacity pool {name!r}", f"{path}.name")
        caps: Caps = {}
        for m in _includes(s, p, path, "capacityPool"):
            caps.update(m["capacity"])
        caps.update(_caps(s, p, path))
        s.pools[name] = caps


def _consumption(s: PoolsSlice, dev: str, e: Any, path: str) -> Consumption:
    e = as_mapping(e, s.header.where, s.header.obj, path)
    pool = e.get("capacityPool")
    if not isinstance(pool, str) or not pool:
        raise s.error(f"device {dev!r}: capacityPool is required in every consumesCapacity entry",
                      f"{path}.capacityPool")
    if pool not in s.pools:
        kinds = [k for k in MIXIN_KINDS if pool in s.mixins[k]]
        hint = f"; {pool!r} is a {kinds[0]} mixin" if kinds else ""
        raise s.error(f"device {dev!r} consumes from capacity pool {pool!r}, which is not a capacity pool of "
                      f"this slice (pools: {', '.join(s.pools) or 'none'}){hint}", f"{path}.capacityPool")
    caps: Caps = {}
    for m in _includes(s, e, path, "deviceCapacityConsumption"):
        caps.update(m["capacity"])
    caps.update(_caps(s, e, path))
    for c in caps:
        if c not in s.pools[pool]:
            raise s.error(f"device {dev!r} consumes {c!r}, which capacity pool {pool!r} does not have",
                          f"{path}.capacity[{c}]")
    return Consumption(pool, path, caps)


def _read_device(s: PoolsSlice, i: int, d: Any, prefix: str) -> PoolDevice:
    where, obj = s.header.where, s.header.obj
    path = f"{prefix}devices[{i}]"
    d = as_mapping(d, where, obj, path)
    name = ref_name(d, where, obj, f"{path}.name")
    kinds = [k for k in ("composite", "basic") if d.get(k) is not None]
    if len(kinds) != 1:
        raise s.error(f"device {name!r} needs exactly one of composite, basic (found {', '.join(kinds) or 'none'})",
                      path)
    bpath = f"{path}.{kinds[0]}"
    body = as_mapping(d[kinds[0]], where, obj, bpath)
    dev = PoolDevice(name, bpath)
    for m in _includes(s, body, bpath, "device"):
        dev.attributes.update(m["attributes"])
        dev.capacity.update(m["capacity"])
    dev.attributes.update({str(k): dict(as_mapping(v, where, obj, f"{bpath}.attributes[{k}]"))
                           for k, v in as_mapping(body.get("attributes"), where, obj, f"{bpath}.attributes").items()})
    dev.capacity.update(_caps(s, body, bpath))
    seen: set[str] = set()
    for j, e in enumerate(as_list(body.get("consumesCapacity"), where, obj, f"{bpath}.consumesCapacity")):
        c = _consumption(s, name, e, f"{bpath}.consumesCapacity[{j}]")
        if c.pool in seen:
            raise s.error(f"device {name!r} consumes from capacity pool {c.pool!r} twice", c.path)
        seen.add(c.pool)
        dev.consumes.append(c)
    return dev


def parse_pools(doc: dict[str, Any], where: str, defaults: dict[str, str]) -> PoolsSlice:
    """Read one 2025-03 slice or fragment; ``defaults`` gives driver, pool and
    node for fragments."""
    header = slice_header(doc, where, defaults)
    spec = doc if header.prefix == "" else doc["spec"]
    s = PoolsSlice(header)
    _read_mixins(s, spec.get("mixins"), header.prefix)
    _read_pools(s, spec.get("capacityPools"), header.prefix)
    names: set[str] = set()
    for i, raw in enumerate(as_list(spec.get("devices"), where, header.obj, f"{header.prefix}devices")):
        dev = _read_device(s, i, raw, header.prefix)
        if dev.name in names:
            raise s.error(f"duplicate device name {dev.name!r}", f"{header.prefix}devices[{i}].name")
        names.add(dev.name)
        s.devices.append(dev)
    return s


class _Names:
    def __init__(self, s: PoolsSlice, notes: list[str]) -> None:
        label = f"{s.header.where}: {s.header.obj}"
        self.label, self.notes = label, notes
        self.device = Namer(dns_label, "device", notes, label)
        self.attr = Namer(c_identifier, "attribute", notes, label)
        self.cap = Namer(c_identifier, "capacity", notes, label)
        self.counter_set = Namer(dns_label, "capacity pool (counter set)", notes, label)
        self.counters: dict[str, Namer] = {}

    def counter(self, pool: str, cap: str) -> str:
        if pool not in self.counters:
            self.counters[pool] = Namer(dns_label, f"counter of capacity pool {pool!r}", self.notes, self.label)
        return self.counters[pool](cap)


def _sets(s: PoolsSlice, names: _Names, tr: Translation) -> tuple[list[dict[str, Any]], dict[tuple[str, str], str]]:
    """One counter set per capacity pool (split beyond 32 capacities), and
    the set of every (pool, capacity)."""
    sets: list[dict[str, Any]] = []
    where: dict[tuple[str, str], str] = {}
    parts_all: list[list[str]] = []
    for pool, caps in s.pools.items():
        if not caps:
            tr.notes.append(f"{names.label}: capacity pool {pool!r} has no capacity; left out (a v1 counter set "
                            "needs counters)")
            continue
        users = {d.name: list(c.capacity) for d in s.devices for c in d.consumes if c.pool == pool}
        parts = split_flat(list(caps), users, MAX_COUNTERS)
        base = names.counter_set(pool)
        for i, part in enumerate(parts):
            name = base if i == 0 else names.counter_set(f"{pool}-{i + 1}")
            sets.append({"name": name, "counters": {names.counter(pool, c): {"value": caps[c].canonical()}
                                                    for c in part}})
            where.update(((pool, c), name) for c in part)
            parts_all.append([f"{pool}\x00{c}" for c in part])
        if len(parts) > 1:
            tr.notes.append(f"{names.label}: capacity pool {pool!r} has {len(caps)} capacities, split over "
                            f"{len(parts)} counter sets (v1 allows {MAX_COUNTERS} counters per set)")
    users_all = {d.name: [f"{c.pool}\x00{k}" for c in d.consumes for k in c.capacity] for d in s.devices}
    check_spans(parts_all, users_all, MAX_COUNTERS, source=s.header.where, obj=s.header.obj,
                fields={d.name: f"{d.path}.consumesCapacity" for d in s.devices})
    return sets, where


def _never_fits(s: PoolsSlice, dev: PoolDevice, tr: Translation) -> None:
    for c in dev.consumes:
        for k, q in c.capacity.items():
            have = s.pools[c.pool][k]
            if q.value > have.value:
                tr.notes.append(f"{s.header.where}: {s.header.obj}: device {dev.name!r} can never be allocated: it "
                                f"consumes {q.canonical()} of {k!r} from capacity pool {c.pool!r}, which has "
                                f"{have.canonical()}")


def _device(dev: PoolDevice, names: _Names, where: dict[tuple[str, str], str]) -> dict[str, Any]:
    out: dict[str, Any] = {"name": names.device(dev.name)}
    if dev.attributes:
        out["attributes"] = {names.attr(k): _typed(v) for k, v in dev.attributes.items()}
    if dev.capacity:
        out["capacity"] = {names.cap(k): {"value": q.canonical()} for k, q in dev.capacity.items()}
    by_set: dict[str, dict[str, Any]] = {}
    for c in dev.consumes:
        for k, q in c.capacity.items():
            by_set.setdefault(where[(c.pool, k)], {})[names.counter(c.pool, k)] = {"value": q.canonical()}
    if by_set:
        out["consumesCounters"] = [{"counterSet": cs, "counters": v} for cs, v in by_set.items()]
    return out


def _typed(value: dict[str, Any]) -> dict[str, Any]:
    out = dict(value)
    if isinstance(out.get("version"), str):
        out["version"] = normalize_version(out["version"])
    return out


def translate_pools(s: PoolsSlice, tr: Translation) -> list[dict[str, Any]]:
    """The v1 ResourceSlice documents for one 2025-03 slice: counter sets in
    ``<slice>-counters``, devices in ``<slice>`` (``resourceSliceCount`` is
    set later, per pool)."""
    names = _Names(s, tr.notes)
    for d in s.devices:
        names.device(d.name)
    sets, where = _sets(s, names, tr)
    for d in s.devices:
        _never_fits(s, d, tr)
    devices = [_device(d, names, where) for d in s.devices]
    return slice_docs(s.header, dns_label(s.header.name), sets, devices)
