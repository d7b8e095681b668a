"""Composite devices (first KEP-4815 draft) to resource.k8s.io/v1 shared
counters.

The draft's rule: a device is allocatable only if no device on its
``consumesCapacityFrom`` path to the root is allocated, no device in its
subtree is allocated, and the capacities fit: what the allocated devices
below a source pull from it (recursively, so a grandchild also pulls from the
root) stays within the source's capacity.

The translation gives each tree with more than one device a counter set:

* for every device ``a`` that has consumers, and each capacity ``c`` of ``a``
  that some device below it also has, a counter holding ``a``'s ``c``; every
  device below ``a`` consumes its own ``c`` from it;
* for every such ``a`` an exclusivity counter ``<a>-exclusive`` of value
  n = the number of devices below ``a``: each device below consumes 1 and
  ``a`` itself consumes n, so ``a`` and anything below it never fit together
  while the devices below fit among themselves.

A tree with more than 32 counters (v1's limit per set) is split over several
sets (:func:`dralloc.formats.counter_split.split_tree`): the top of the tree
in one, each subtree below it in another, so that every device consumes from
at most 2 sets; a device that would need more is an error naming it.

Allocating a set of devices then fits the counters exactly when the draft's
rule allows it (tests/formats check this on generated trees)."""

from __future__ import annotations

from typing import Any

import networkx as nx

from dralloc.formats.common import Namer, Translation, c_identifier, dns_label, normalize_version
from dralloc.formats.composite_parse import CompositeSlice
from dralloc.formats.counter_split import check_spans, split_tree
from dralloc.quantity import Quantity

MAX_SETS_PER_SLICE = 8
MAX_DEVICES_WITH_COUNTERS = 64
MAX_DEVICES = 128
MAX_COUNTERS = 32
MAX_CONSUMED_COUNTERS_PER_SLICE = 2048
EXCLUSIVE = None  # the capacity key of an exclusivity counter


class _Names:
    """v1 names for one slice: devices (DNS labels), attribute and capacity
    names (C identifiers), counter sets and counters (DNS labels)."""

    def __init__(self, s: CompositeSlice, notes: list[str]) -> None:
        label = f"{s.where}: {s.obj}"
        self.device = Namer(dns_label, "device", notes, label)
        self.attr = Namer(c_identifier, "attribute", notes, label)
        self.cap = Namer(c_identifier, "capacity", notes, label)
        self.counter_set = Namer(dns_label, "counter set", [], label)
        self.counters: dict[str, dict[tuple[str, str | None], str]] = {}

    def counter(self, root: str, owner: str, cap: str | None) -> str:
        """The counter for ``owner``'s capacity ``cap`` (None: exclusivity) in
        the set of tree ``root``; root capacities keep their own name."""
        table = self.counters.setdefault(root, {})
        key = (owner, cap)
        if key not in table:
            if cap is None:
                base = dns_label(f"{self.device(owner)}-exclusive")
            elif owner == root:
                base = dns_label(cap)
            else:
                base = dns_label(f"{self.device(owner)}-{cap}")
            used = set(table.values())
            name, k = base, 1
            while name in used:
                k += 1
                name = f"{base[:60]}-{k}"
            table[key] = name
        return table[key]


def _attributes(attrs: dict[str, dict[str, Any]], names: _Names) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in attrs.items():
        val = dict(v)
        if isinstance(val.get("version"), str):
            val["version"] = normalize_version(val["version"])
        out[names.attr(k)] = val
    return out


def _consumption(s: CompositeSlice, g: Any, name: str, names: _Names, root: str) -> dict[str, Quantity]:
    dev = s.by_name[name]
    out: dict[str, Quantity] = {}
    for a in nx.ancestors(g, name):
        for c in s.by_name[a].capacity:
            q = dev.capacity.get(c)
            if q is not None and q.value != 0:
                out[names.counter(root, a, c)] = q
        out[names.counter(root, a, EXCLUSIVE)] = Quantity.parse(1)
    below = len(nx.descendants(g, name))
    if below:
        out[names.counter(root, name, EXCLUSIVE)] = Quantity.parse(below)
    return out


def _owned(s: CompositeSlice, g: Any, root: str, names: _Names) -> dict[str, dict[str, str]]:
    """The counters of one tree by the device that holds them: every consumed
    capacity of every source, and one exclusivity counter per source."""
    devs = s.by_name
    out: dict[str, dict[str, str]] = {}
    for a in [root, *nx.descendants(g, root)]:
        below = nx.descendants(g, a)
        if not below:
            continue
        mine = out.setdefault(a, {})
        for c, q in devs[a].capacity.items():
            if any(devs[b].capacity.get(c) is not None and devs[b].capacity[c].value != 0 for b in below):
                mine[names.counter(root, a, c)] = q.canonical()
        mine[names.counter(root, a, EXCLUSIVE)] = str(len(below))
    return out


def _tree_sets(s: CompositeSlice, g: Any, root: str, names: _Names, owned: dict[str, dict[str, str]],
               cons: dict[str, dict[str, Quantity]]) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The counter sets of one tree (split when it has more than
    MAX_COUNTERS counters) and the set of every counter; an error names a
    device that would need more than 2 sets."""
    children = {n: [c for c in (d.name for d in s.devices) if g.has_edge(n, c)] for n in owned}
    parts = split_tree(root, children, {n: list(c) for n, c in owned.items()}, MAX_COUNTERS)
    value = {k: v for c in owned.values() for k, v in c.items()}
    base = names.counter_set(root)
    sets: list[dict[str, Any]] = []
    where: dict[str, str] = {}
    for i, part in enumerate(parts):
        name = base if i == 0 else names.counter_set(f"{root}-{i + 1}")
        sets.append({"name": name, "counters": {k: {"value": value[k]} for k in part}})
        where.update((k, name) for k in part)
    if len(parts) > 1:
        members = [d for d in s.devices if d.name in cons]
        check_spans(parts, {d.name: list(cons[d.name]) for d in members}, MAX_COUNTERS,
                    source=s.where, obj=s.obj, fields={d.name: f"{d.path}.consumesCapacityFrom" for d in members})
    return sets, where


def _device(dev: Any, names: _Names, cons: dict[str, Quantity] | None, where: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {"name": names.device(dev.name)}
    if dev.attributes:
        out["attributes"] = _attributes(dev.attributes, names)
    if dev.capacity:
        out["capacity"] = {names.cap(k): {"value": q.canonical()} for k, q in dev.capacity.items()}
    if cons is not None:
        by_set: dict[str, dict[str, Any]] = {}
        for k, q in cons.items():
            by_set.setdefault(where[k], {})[k] = {"value": q.canonical()}
        out["consumesCounters"] = [{"counterSet": cs, "counters": c} for cs, c in by_set.items()]
    return out


def _roots(g: Any) -> dict[str, str]:
    out: dict[str, str] = {}
    for r in (n for n in g.nodes if g.in_degree(n) == 0):
        out[r] = r
        for d in nx.descendants(g, r):
            out[d] = r
    return out


def _chunks(items: list[Any], size: int) -> list[list[Any]]:
    return [items[i:i + size] for i in range(0, len(items), size)] or [[]]


def translate_slice(s: CompositeSlice, tr: Translation) -> list[dict[str, Any]]:
    """The v1 ResourceSlice documents for one composite slice: counter sets
    in slices of their own (v1 forbids devices and counters together), the
    devices in one or more slices. ``resourceSliceCount`` is set later, per pool."""
    g = s.graph
    names = _Names(s, tr.notes)
    roots = _roots(g)
    owned = {r: _owned(s, g, r, names) for r in (d.name for d in s.devices) if roots[r] == r}  # names first
    cons = {d.name: _consumption(s, g, d.name, names, roots[d.name]) for d in s.devices
            if g.out_degree(roots[d.name]) > 0}
    sets: list[dict[str, Any]] = []
    where: dict[str, dict[str, str]] = {}  # per tree: counter -> its set (trees reuse counter names)
    for r in (d.name for d in s.devices):
        if roots[r] == r and g.out_degree(r) > 0:
            tree_cons = {m: c for m, c in cons.items() if roots[m] == r}
            tree_sets, tree_where = _tree_sets(s, g, r, names, owned[r], tree_cons)
            if len(tree_sets) > 1:
                tr.notes.append(f"{s.where}: {s.obj}: the counters of tree {r!r} are split over counter sets "
                                f"{', '.join(repr(t['name']) for t in tree_sets)} (v1 allows {MAX_COUNTERS} "
                                "counters per set)")
            sets.extend(tree_sets)
            where[r] = tree_where
    devices = [_device(d, names, cons.get(d.name), where.get(roots[d.name], {})) for d in s.devices]
    return slice_docs(s, dns_label(s.name), sets, devices)


def slice_docs(s: Any, base: str, sets: list[dict[str, Any]], devices: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Counter sets (8 per slice) in ``<base>-counters``, ``-counters-2``...;
    devices in ``<base>``, ``<base>-2``... (64 per slice with counters, 128
    without, and at most 2048 consumed counters per slice)."""
    docs = []
    for k, chunk in enumerate(_chunks(sets, MAX_SETS_PER_SLICE) if sets else []):
        docs.append(_slice_doc(s, f"{base}-counters" + (f"-{k + 1}" if k else ""), {"sharedCounters": chunk}))
    for k, dchunk in enumerate(_device_chunks(devices, MAX_DEVICES_WITH_COUNTERS if sets else MAX_DEVICES)):
        docs.append(_slice_doc(s, base + (f"-{k + 1}" if k else ""), {"devices": dchunk}))
    return docs


def _device_chunks(devices: list[dict[str, Any]], size: int) -> list[list[dict[str, Any]]]:
    out: list[list[dict[str, Any]]] = [[]]
    used = 0
    for d in devices:
        n = sum(len(c["counters"]) for c in d.get("consumesCounters", []))
        if len(out[-1]) >= size or used + n > MAX_CONSUMED_COUNTERS_PER_SLICE:
            out.append([])
            used = 0
        out[-1].append(d)
        used += n
    return out


def _slice_doc(s: Any, name: str, body: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = {"driver": s.driver,
                            "pool": {"name": s.pool, "generation": s.generation, "resourceSliceCount": 1}}
    spec.update(s.placement)
    spec.update(body)
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name},
            "spec": spec}


def set_slice_counts(docs: list[dict[str, Any]], declared: dict[tuple[str, str], tuple[int, int]]) -> None:
    """Each produced slice's ``resourceSliceCount``: all slices produced for
    its pool, plus the pool's slices that were declared but not in the input.
    ``declared`` maps (driver, pool) to (declared count, composite slices read)."""
    produced: dict[tuple[str, str], int] = {}
    for d in docs:
        key = (d["spec"]["driver"], d["spec"]["pool"]["name"])
        produced[key] = produced.get(key, 0) + 1
    for d in docs:
        key = (d["spec"]["driver"], d["spec"]["pool"]["name"])
        count, read = declared.get(key, (1, 1))
        d["spec"]["pool"]["resourceSliceCount"] = produced[key] + max(0, count - read)
