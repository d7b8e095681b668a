"""Node types: nodes the configuration model cannot tell apart.

Two nodes are of one type when their fingerprints agree (the same pools in
search order with the same slices, counter sets, devices and allocated
devices, and the same values for everything a selector of the demand reads;
:mod:`dralloc.inventory.fingerprint`) and they see the same allocated
shared claims of the demand (a pod using an allocated claim runs only where
its allocation is visible). A type is analysed once, on its first node by
name; the model's size depends on the number of types, not of nodes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from dralloc.models import Node, ResourceClaim
from dralloc.planner.mixed.items import Items
from dralloc.planner.simulate.podsim import NodeObjects, visible_on


@dataclass
class NodeType:
    id: int
    nodes: list[Node] = field(default_factory=list)         # name order
    pools: dict[str, list[tuple[str, str]]] = field(default_factory=dict)   # node -> pools in search order
    visible: frozenset[str] = frozenset()
    extra: int = 0                                           # add-nodes: copies beyond ``nodes`` (what-if)

    @property
    def rep(self) -> Node:
        return self.nodes[0]

    @property
    def count(self) -> int:
        return len(self.nodes) + self.extra


def node_types(nodes: Sequence[Node], per_node: NodeObjects, items: Items,
               shared: dict[str, ResourceClaim]) -> list[NodeType]:
    """The types of ``nodes`` (first node by name first); ``per_node``
    fingerprints nodes for the demand's claims."""
    needs = sorted({k for s in items.shapes for k in s.needs})
    index: dict[object, NodeType] = {}
    for node in sorted(nodes, key=lambda n: n.name.encode()):
        visible = frozenset(k for k in needs if visible_on(shared[k], node))
        key = (per_node.fingerprint(node), visible)
        t = index.setdefault(key, NodeType(len(index), visible=visible))
        t.nodes.append(node)
        t.pools[node.name] = per_node.pools(node)
    return list(index.values())
