"""Node scores for the ``most`` / ``least`` policies of the pod-by-pod
simulation (:mod:`.podsim`).

A node's score is its utilisation as cluster-autoscaler computes it for DRA
(:mod:`.utilisation`, as the fast simulator scores: per pool the busiest counter blended
with the share of allocated counter-less devices; the node's busiest pool),
exact fractions, on the cluster as it is at that moment (the input's
allocations plus every pod committed so far). Nodes are tried best score
first, ties by node name; the first one where the allocator succeeds is the
best feasible node. A score is recomputed only after an allocation touched one
of the node's pools."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

from dralloc.errors import InputError
from dralloc.features import Features
from dralloc.io import ObjectSet
from dralloc.models import Node, ResourceClaim
from dralloc.planner.simulate import POLICIES
from dralloc.planner.view.cluster import ClusterBuilder
from dralloc.planner.view.demand import Demand
from dralloc.planner.view.utilisation import node_load, unit_pool

PoolKey = tuple[str, str]


def check_policy(policy: str) -> None:
    if policy not in POLICIES:
        raise InputError(f"unknown node policy {policy!r}; choose one of {', '.join(POLICIES)}")


def claim_pools(claim: ResourceClaim) -> set[PoolKey]:
    alloc = claim.status.allocation if claim.status else None
    if alloc is None or alloc.devices is None:
        return set()
    return {(r.driver, r.pool) for r in alloc.devices.results or []}


class NodeScores:
    """Cached utilisation per node; ``node_objects(node)`` gives the slices,
    classes and Node the allocator sees for it."""

    def __init__(self, node_objects: Callable[[Node], ObjectSet], features: Features) -> None:
        self.node_objects = node_objects
        self.features = features
        self._score: dict[str, Fraction] = {}
        self._pools: dict[str, set[str]] = {}

    def pools(self, node: Node) -> set[str]:
        """Names of the pools the node's devices are in (known once scored)."""
        return self._pools.get(node.name, set())

    def score(self, node: Node, allocated: Sequence[ResourceClaim]) -> Fraction:
        if node.name not in self._score:
            base = self.node_objects(node)
            mine = {(s.spec.driver, s.spec.pool.name) for s in base.slices}
            objs = ObjectSet()
            for o in base.all():
                objs.add(o)
            for c in allocated:
                if claim_pools(c) & mine:
                    objs.add(c)
            cluster = ClusterBuilder(objs, Demand(), self.features).single(node)
            self._pools[node.name] = {unit_pool(u) for u in cluster.units}
            self._score[node.name] = node_load(cluster, 0)
        return self._score[node.name]

    def committed(self, claims: Sequence[ResourceClaim], nodes: Sequence[Node]) -> None:
        """Forget the scores of the nodes that see a pool ``claims`` use."""
        touched = {p for c in claims for _, p in claim_pools(c)}
        for n in nodes:
            if n.name in self._score and self.pools(n) & touched:
                del self._score[n.name]

    def order(self, nodes: Sequence[Node], policy: str, allocated: Sequence[ResourceClaim]) -> list[Node]:
        """``nodes`` best first for ``policy`` (most: highest utilisation,
        least: lowest), ties by name."""
        if policy == "first":
            return list(nodes)
        sign = -1 if policy == "most" else 1
        return sorted(nodes, key=lambda n: (sign * self.score(n, allocated), n.name.encode()))
