"""Which pools can concern a node, indexed once.

A slice reaches a node through its ``nodeName``, ``allNodes``, a
``nodeSelector`` or, with ``perDeviceNodeSelection``, through the same fields
of its devices. Each slice is registered under *keys* from which the nodes it
may concern can be found in O(1): the node name, a ``metadata.name`` field
value, a label ``key=value`` that a selector term requires with ``In``, or
"every node" when nothing narrower is known (``allNodes``, a term without an
``In`` requirement, a selector that does not parse). A node looks its pools up
under its name, its labels and "every node": a *superset* of the pools the
allocator gathers for it. Pool gathering then decides exactly, on whole pools
(every slice of a candidate pool is handed over, in input order), so the
answer is the one a gather over every slice of the cluster gives."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from dralloc.inventory.nodesel import NodeSelectorError, check_selector
from dralloc.models import Node, NodeSelector, ResourceSlice

PoolKey = tuple[str, str]          # (driver, pool name)
Key = tuple[str, ...]              # ("node", name) | ("field", name) | ("label", k, v) | ("all",)
EVERY_NODE: Key = ("all",)
HOSTLESS: Key = ("hostless",)      # never looked up: slices that concern no node


def _term_keys(sel: NodeSelector) -> set[Key]:
    """Keys under which a node may satisfy ``sel``; EVERY_NODE when a term
    could match a node whatever its name and labels."""
    try:
        check_selector(sel)
    except NodeSelectorError:
        return {EVERY_NODE}  # the allocator fails on it for every node that looks
    out: set[Key] = set()
    for term in sel.node_selector_terms:
        exprs, fields = term.match_expressions or [], term.match_fields or []
        if not exprs and not fields:
            continue  # matches nothing
        name = next((r for r in fields if r.key == "metadata.name" and r.operator == "In"), None)
        label = next((r for r in exprs if r.operator == "In"), None)
        if label is not None:
            out.update(("label", label.key, v) for v in label.values or [])
        elif name is not None:  # (a node without a name skips field terms: see pools_for)
            out.update(("field", v) for v in name.values or [])
        else:
            return {EVERY_NODE}
    return out


def _target_keys(node_name: str | None, all_nodes: bool | None, sel: NodeSelector | None) -> set[Key] | None:
    """Keys for one (nodeName, allNodes, nodeSelector) triple; None: nothing set."""
    if node_name:
        return {("node", node_name)}
    if all_nodes:
        return {EVERY_NODE}
    if sel is not None:
        return _term_keys(sel)
    return None


def slice_keys(s: ResourceSlice) -> set[Key]:
    spec = s.spec
    keys = _target_keys(spec.node_name, spec.all_nodes, spec.node_selector)
    if keys is not None:
        return keys or {HOSTLESS}
    if spec.per_device_node_selection:
        out: set[Key] = set()
        for d in spec.devices or []:
            out |= _target_keys(d.node_name, d.all_nodes, d.node_selector) or set()
        return out or {HOSTLESS}
    return {HOSTLESS}


def node_keys(node: Node) -> Iterator[Key]:
    yield ("node", node.name)
    yield ("field", node.name)
    for k, v in (node.metadata.labels or {}).items():
        yield ("label", k, v)
    yield EVERY_NODE


@dataclass
class SliceIndex:
    """Slices by input position, grouped by pool and by key."""

    slices: dict[int, ResourceSlice] = field(default_factory=dict)     # seq -> slice
    names: dict[str, list[int]] = field(default_factory=dict)         # slice name -> seqs
    pools: dict[PoolKey, set[int]] = field(default_factory=dict)      # pool -> seqs
    by_key: dict[Key, dict[PoolKey, int]] = field(default_factory=dict)  # key -> pool -> slices
    keys: dict[int, set[Key]] = field(default_factory=dict)           # seq -> its keys
    counter_pools: dict[PoolKey, int] = field(default_factory=dict)   # pools with sharedCounters slices
    counter_names: dict[str, set[PoolKey]] = field(default_factory=dict)  # pool name -> those pools
    bound: dict[str, set[int]] = field(default_factory=dict)          # nodeName -> seqs
    next_seq: int = 0

    def add(self, s: ResourceSlice, seq: int | None = None) -> tuple[int, set[Key]]:
        if seq is None:
            seq, self.next_seq = self.next_seq, self.next_seq + 1
        pool = pool_key(s)
        keys = slice_keys(s)
        self.slices[seq] = s
        self.names.setdefault(s.name, []).append(seq)
        self.pools.setdefault(pool, set()).add(seq)
        self.keys[seq] = keys
        if s.spec.node_name:
            self.bound.setdefault(s.spec.node_name, set()).add(seq)
        for k in keys:
            per = self.by_key.setdefault(k, {})
            per[pool] = per.get(pool, 0) + 1
        if s.spec.shared_counters:
            self.counter_pools[pool] = self.counter_pools.get(pool, 0) + 1
            self.counter_names.setdefault(pool[1], set()).add(pool)
        return seq, keys

    def remove(self, seq: int) -> tuple[ResourceSlice, set[Key]]:
        s = self.slices.pop(seq)
        pool = pool_key(s)
        keys = self.keys.pop(seq)
        seqs = self.names[s.name]
        seqs.remove(seq)
        if not seqs:
            del self.names[s.name]
        self.pools[pool].discard(seq)
        if not self.pools[pool]:
            del self.pools[pool]
        if s.spec.node_name:
            self.bound[s.spec.node_name].discard(seq)
            if not self.bound[s.spec.node_name]:
                del self.bound[s.spec.node_name]
        for k in keys:
            per = self.by_key[k]
            per[pool] -= 1
            if not per[pool]:
                del per[pool]
        if s.spec.shared_counters:
            self.counter_pools[pool] -= 1
            if not self.counter_pools[pool]:
                del self.counter_pools[pool]
                named = self.counter_names[pool[1]]
                named.discard(pool)
                if not named:
                    del self.counter_names[pool[1]]
        return s, keys

    def pools_for(self, node: Node) -> set[PoolKey]:
        """Every pool with a slice that may concern ``node`` (a superset)."""
        if not node.name:  # no name: field terms are skipped, no nodeName matches
            return set(self.pools)
        out: set[PoolKey] = set()
        for k in node_keys(node):
            per = self.by_key.get(k)
            if per:
                out.update(per)
        return out

    def slices_of(self, pools: Iterable[PoolKey]) -> list[ResourceSlice]:
        """Every slice of ``pools``, in input order."""
        seqs = sorted(q for p in pools for q in self.pools.get(p, ()))
        return [self.slices[q] for q in seqs]

    def all_slices(self) -> list[ResourceSlice]:
        return [self.slices[q] for q in sorted(self.slices)]


def pool_key(s: ResourceSlice) -> PoolKey:
    return (s.spec.driver, s.spec.pool.name)
