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

Allocating a set of devices then fits the counters exactly when the draft's
rule allows it (tests/formats check this on generated trees)."""

from __future__ import annotations

from typing import Any

import networkx as nx

from dralloc.formats.common import Namer, Translation, c_identifier, dns_label, normalize_version
from dralloc.formats.composite_parse import CompositeSlice
from dralloc.quantity import Quantity

MAX_SETS_PER_SLICE = 8
MAX_DEVICES_WITH_COUNTERS = 64
MAX_DEVICES = 128
MAX_COUNTERS = 32
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


def _counter_set(s: CompositeSlice, g: Any, root: str, names: _Names) -> dict[str, Any]:
    """The counters of one tree: every consumed capacity of every source, and
    one exclusivity counter per source."""
    devs = s.by_name
    counters: dict[str, Any] = {}
    for a in [root, *nx.descendants(g, root)]:
        below = nx.descendants(g, a)
        if not below:
            continue
        for c, q in devs[a].capacity.items():
            if any(devs[b].capacity.get(c) is not None and devs[b].capacity[c].value != 0 for b in below):
                counters[names.counter(root, a, c)] = {"value": q.canonical()}
        counters[names.counter(root, a, EXCLUSIVE)] = {"value": str(len(below))}
    return {"name": names.counter_set(root), "counters": counters}


def _device(s: CompositeSlice, dev: Any, g: Any, names: _Names, roots: dict[str, str],
            tr: Translation) -> dict[str, Any]:
    out: dict[str, Any] = {"name": names.device(dev.name)}
    if dev.attributes:
        out["attributes"] = _attributes(dev.attributes, names)
    if dev.capacity:
        out["capacity"] = {names.cap(k): {"value": q.canonical()} for k, q in dev.capacity.items()}
    root = roots[dev.name]
    if g.out_degree(root) > 0:
        cons = _consumption(s, g, dev.name, names, root)
        if len(cons) > MAX_COUNTERS:
            tr.notes.append(f"{s.where}: {s.obj}: device {dev.name!r} consumes {len(cons)} counters; "
                            f"v1 allows {MAX_COUNTERS} per counter set, so the API server would reject it")
        out["consumesCounters"] = [{"counterSet": names.counter_set(root),
                                    "counters": {k: {"value": q.canonical()} for k, q in cons.items()}}]
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
    sets = [_counter_set(s, g, r, names) for r in (d.name for d in s.devices)
            if roots[r] == r and g.out_degree(r) > 0]
    for cs in sets:
        if len(cs["counters"]) > MAX_COUNTERS:
            tr.notes.append(f"{s.where}: {s.obj}: counter set {cs['name']!r} has {len(cs['counters'])} "
                            f"counters; v1 allows {MAX_COUNTERS}, so the API server would reject it")
    devices = [_device(s, d, g, names, roots, tr) for d in s.devices]
    base = dns_label(s.name)
    docs = []
    set_chunks = _chunks(sets, MAX_SETS_PER_SLICE) if sets else []
    for k, chunk in enumerate(set_chunks):
        docs.append(_slice_doc(s, f"{base}-counters" + (f"-{k + 1}" if k else ""), {"sharedCounters": chunk}))
    size = MAX_DEVICES_WITH_COUNTERS if sets else MAX_DEVICES
    for k, dchunk in enumerate(_chunks(devices, size)):
        docs.append(_slice_doc(s, base + (f"-{k + 1}" if k else ""), {"devices": dchunk}))
    return docs


def _slice_doc(s: CompositeSlice, name: str, body: dict[str, Any]) -> dict[str, Any]:
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
