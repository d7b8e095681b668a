"""Node types: nodes the configuration model cannot tell apart.

Two nodes are of one type when their fingerprints agree (the same pools in
search order with the same slices, counter sets, devices and allocated
devices, and the same values for everything a selector of the demand reads;
:mod:`dralloc.planner.view.fingerprint`) and they see the same allocated
shared claims of the demand (a pod using an allocated claim runs only where
its allocation is visible). A type is analysed once, on its first node by
name; the model's size depends on the number of types, not of nodes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from dralloc.models import Node, ResourceClaim, ResourceSlice
from dralloc.planner.mixed.items import Items
from dralloc.planner.simulate.podsim import visible_on
from dralloc.planner.view.fingerprint import node_fingerprint, pool_names, read_attributes


@dataclass
class NodeType:
    id: int
    nodes: list[Node] = field(default_factory=list)         # name order
    pools: dict[str, list[tuple[str, str]]] = field(default_factory=dict)   # node -> pools in search order
    visible: frozenset[str] = frozenset()

    @property
    def rep(self) -> Node:
        return self.nodes[0]

    @property
    def count(self) -> int:
        return len(self.nodes)


def node_types(nodes: Sequence[Node], slices_of: Callable[[Node], list[ResourceSlice]], classes: Sequence[object],
               allocated: Sequence[ResourceClaim], items: Items,
               shared: dict[str, ResourceClaim]) -> list[NodeType]:
    """The types of ``nodes`` (first node by name first)."""
    probes = [c for s in items.shapes for c in s.claims] + [c for b in items.bundles for c in b.claims]
    read = read_attributes(classes, probes)  # type: ignore[arg-type]
    taken = {(r.driver, r.pool, r.device) for c in allocated if c.status and c.status.allocation
             and c.status.allocation.devices for r in c.status.allocation.devices.results or []}
    needs = sorted({k for s in items.shapes for k in s.needs})
    index: dict[object, NodeType] = {}
    for node in sorted(nodes, key=lambda n: n.name.encode()):
        slices = slices_of(node)
        visible = frozenset(k for k in needs if visible_on(shared[k], node))
        key = (node_fingerprint(node, slices, taken, read), visible)
        t = index.setdefault(key, NodeType(len(index), visible=visible))
        t.nodes.append(node)
        t.pools[node.name] = pool_names(slices)
    return list(index.values())
