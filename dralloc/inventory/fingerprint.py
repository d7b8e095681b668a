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


def _device_key(d: Device, read: set[str] | None) -> Hashable:
    attrs = d.attributes or {}
    caps = d.capacity or {}
    a = tuple(sorted((k, _value(v)) for k, v in attrs.items() if read is None or k in read))
    c = tuple(sorted((k, _capacity(v)) for k, v in caps.items() if read is None or k in read))
    cons = tuple((cc.counter_set, tuple(sorted((k, v.value.value) for k, v in (cc.counters or {}).items())))
                 for cc in d.consumes_counters or [])
    extra = (d.taints, d.binding_conditions, d.binds_to_node, d.allow_multiple_allocations,
             d.node_name, d.all_nodes, d.node_selector)
    return (d.name, a, c, cons, repr(extra) if any(x is not None for x in extra) else None)


def _slice_key(s: ResourceSlice, read: set[str] | None) -> Hashable:
    sp = s.spec
    sets = tuple((cs.name, tuple(sorted((k, _n(v.value.value)) for k, v in (cs.counters or {}).items())))
                 for cs in sp.shared_counters or [])
    devs = tuple(_device_key(d, read) for d in sp.devices or [])
    return (sp.driver, sp.pool.generation, sp.pool.resource_slice_count, bool(sp.node_name),
            repr((sp.node_selector, sp.all_nodes, sp.per_device_node_selection)), sets, devs)


def node_fingerprint(node: Node, slices: list[ResourceSlice], allocated: set[tuple[str, str, str]],
                     read: set[str] | None) -> Hashable:
    pools: dict[tuple[str, str], list[ResourceSlice]] = {}
    for s in slices:
        pools.setdefault((s.spec.driver, s.spec.pool.name), []).append(s)
    parts = []
    selects = False
    for (driver, name) in sorted(pools, key=lambda k: (k[0].encode(), k[1].encode())):
        group = pools[(driver, name)]
        selects = selects or any(not s.spec.node_name or s.spec.per_device_node_selection for s in group)
        taken = tuple(sorted(dev for drv, pool, dev in allocated if drv == driver and pool == name))
        # the search walks a pool's slices in name order (incubating) or in
        # input order (stable): both orders are part of the key, never the
        # names themselves (they carry random suffixes)
        by_name = tuple(sorted(range(len(group)), key=lambda i: group[i].name))
        parts.append((driver, tuple(_slice_key(s, read) for s in group), by_name, taken))
    labels = tuple(sorted((node.metadata.labels or {}).items())) if selects else ()
    return (tuple(parts), labels)


def pool_names(slices: list[ResourceSlice]) -> list[tuple[str, str]]:
    """The node's pools in search order (driver, name)."""
    keys = {(s.spec.driver, s.spec.pool.name) for s in slices}
    return sorted(keys, key=lambda k: (k[0].encode(), k[1].encode()))
