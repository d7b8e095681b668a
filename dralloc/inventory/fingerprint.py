"""Identical nodes are analysed once (the planner, and the tie-break search of
dralloc.audit.tiebreak). Two nodes are identical for the planner
when their pools (in search order: slices by name or in input order, as the
allocator variant walks them) hold the same slices, counter sets and devices, the same devices are allocated, and devices agree on everything the
selectors of the classes and claims can read. Pool and node names differ;
attributes no selector reads (serial numbers, UUIDs) are left out."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from fractions import Fraction
from typing import Any

from dralloc.cel import CELCompileError, compile_selector
from dralloc.models import Device, DeviceCapacity, DeviceClass, Node, ResourceClaim, ResourceSlice

ALL = "*"


def read_attributes(classes: Iterable[DeviceClass], claims: Iterable[ResourceClaim]) -> set[str] | None:
    """Attribute and capacity names (unqualified and ``domain/name``) that
    some selector reads; None when a selector reads the whole device."""
    exprs: list[str] = []
    for c in classes:
        exprs.extend(s.cel.expression for s in c.spec.selectors or [] if s.cel)
    for claim in claims:
        for r in (claim.spec.devices.requests if claim.spec.devices else None) or []:
            for sub in [r.exactly, *(r.first_available or [])]:
                if sub is not None:
                    exprs.extend(s.cel.expression for s in sub.selectors or [] if s.cel)
    out: set[str] = set()
    for e in exprs:
        try:
            paths = compile_selector(e).paths
        except CELCompileError:
            return None  # reported when the allocator compiles it
        for p in paths:
            if p[0] == ALL:
                return None
            if len(p) == 3:
                out.add(f"{p[1]}/{p[2]}")
                out.add(str(p[2]))
    return out


def _n(v: Fraction) -> Hashable:
    """Integers hash fast; Fractions do not."""
    return v.numerator if v.denominator == 1 else (v.numerator, v.denominator)


def _value(v: Any) -> Hashable:
    """An attribute or capacity value as a hashable tuple (lists as tuples)."""
    return tuple(tuple(x) if isinstance(x, list) else x for x in v.__dict__.values())


def _capacity(v: DeviceCapacity) -> Hashable:
    return (v.value.value, None if v.request_policy is None else v.request_policy.model_dump_json())


def _attr_key(attrs: dict[str, Any], read: set[str] | None) -> Hashable:
    return tuple(sorted((k, _value(v)) for k, v in attrs.items() if read is None or k in read))


def _caps_key(caps: dict[str, DeviceCapacity], read: set[str] | None) -> Hashable:
    return tuple(sorted((k, _capacity(v)) for k, v in caps.items() if read is None or k in read))


def _cons_key(cons: list[Any]) -> Hashable:
    return tuple((cc.counter_set, tuple(sorted((k, v.value.value) for k, v in (cc.counters or {}).items())))
                 for cc in cons)


_NONE: tuple[()] = ()


class Fingerprints:
    """:func:`node_fingerprint` for many nodes at the cost of what differs
    between them. The parts a load shares between devices (attribute and
    capacity maps, consumption lists: :mod:`dralloc.io.share`) are reduced
    once each, by identity; equal reductions, device keys and fingerprints
    are one object (nodes of one type hold one fingerprint, not a copy
    each); the allocated devices are indexed by pool once."""

    def __init__(self, allocated: Iterable[tuple[str, str, str]], read: set[str] | None) -> None:
        self.read = read
        self.taken: dict[tuple[str, str], list[str]] = {}
        for drv, pool, dev in allocated:
            self.taken.setdefault((drv, pool), []).append(dev)
        self._parts: dict[int, tuple[object, Hashable]] = {}   # id(part) -> (part, its reduction)
        self._canon: dict[Hashable, Hashable] = {}

    def _one(self, key: Hashable) -> Hashable:
        return self._canon.setdefault(key, key)

    def _part(self, part: Any, reduce: Any) -> Hashable:
        hit = self._parts.get(id(part))
        if hit is not None and hit[0] is part:
            return hit[1]
        key = self._one(reduce(part))
        self._parts[id(part)] = (part, key)   # the part is held: its id is not reused
        return key

    def device(self, d: Device) -> Hashable:
        read = self.read
        a = self._part(d.attributes, lambda m: _attr_key(m, read)) if d.attributes else _NONE
        c = self._part(d.capacity, lambda m: _caps_key(m, read)) if d.capacity else _NONE
        cons = self._part(d.consumes_counters, _cons_key) if d.consumes_counters else _NONE
        extra = (d.taints, d.binding_conditions, d.binds_to_node, d.allow_multiple_allocations,
                 d.node_name, d.all_nodes, d.node_selector)
        return self._one((d.name, a, c, cons, repr(extra) if any(x is not None for x in extra) else None))

    def slice(self, s: ResourceSlice) -> Hashable:
        sp = s.spec
        sets = tuple((cs.name, tuple(sorted((k, _n(v.value.value)) for k, v in (cs.counters or {}).items())))
                     for cs in sp.shared_counters or [])
        devs = tuple(self.device(d) for d in sp.devices or [])
        return self._one((sp.driver, sp.pool.generation, sp.pool.resource_slice_count, bool(sp.node_name),
                          repr((sp.node_selector, sp.all_nodes, sp.per_device_node_selection)), sets, devs))

    def node(self, node: Node, slices: list[ResourceSlice]) -> Hashable:
        """What the allocator can tell of ``node`` and its slices, names left out."""
        pools: dict[tuple[str, str], list[ResourceSlice]] = {}
        for s in slices:
            pools.setdefault((s.spec.driver, s.spec.pool.name), []).append(s)
        parts = []
        selects = False
        for (driver, name) in sorted(pools, key=lambda k: (k[0].encode(), k[1].encode())):
            group = pools[(driver, name)]
            selects = selects or any(not s.spec.node_name or s.spec.per_device_node_selection for s in group)
            taken = tuple(sorted(self.taken.get((driver, name), ())))
            # the search walks a pool's slices in name order (incubating) or in
            # input order (stable): both orders are part of the key, never the
            # names themselves (they carry random suffixes)
            by_name = tuple(sorted(range(len(group)), key=lambda i: group[i].name))
            parts.append((driver, tuple(self.slice(s) for s in group), by_name, taken))
        labels = tuple(sorted((node.metadata.labels or {}).items())) if selects else ()
        return self._one((tuple(parts), labels))


def node_fingerprint(node: Node, slices: list[ResourceSlice], allocated: set[tuple[str, str, str]],
                     read: set[str] | None) -> Hashable:
    """One node's fingerprint (:class:`Fingerprints` for many)."""
    return Fingerprints(allocated, read).node(node, slices)


def pool_names(slices: list[ResourceSlice]) -> list[tuple[str, str]]:
    """The node's pools in search order (driver, name)."""
    keys = {(s.spec.driver, s.spec.pool.name) for s in slices}
    return sorted(keys, key=lambda k: (k[0].encode(), k[1].encode()))
