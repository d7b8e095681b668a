"""First-fit for general demand: what the scheduler would do, pod by pod.

Every replica of the queue is tried on the nodes in name order; on a node the
allocator itself (:meth:`dralloc.cluster.Cluster.allocate`, ``allocate()`` at
the cost of one node; ``replay`` = Kubernetes' search, or ``first-fit``
through CP-SAT) allocates the pod's claims together:
its template claims and its shared claims not allocated yet. A shared claim
already allocated limits the pod to the nodes its allocation's nodeSelector
admits. The node is chosen by a policy: ``first`` commits the first success
in name order; ``most`` / ``least`` the feasible node with the highest /
lowest utilisation (:mod:`.nodescore`), ties by name. The choice is committed
(allocated ResourceClaims) before the next pod. A node where a pod (with the same shared claims pending) failed is
not tried again for it, nor for any later pod asking for the same claim specs
(its *shape*): allocations only grow, so a failure stays a failure. No
preemption."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from dralloc.cluster import Cluster
from dralloc.errors import InputError
from dralloc.features import Features
from dralloc.inventory.nodesel import NodeSelectorError, selector_matches
from dralloc.io import ObjectSet
from dralloc.models import AllocationResult, Node, ResourceClaim, ResourceClaimStatus
from dralloc.planner.simulate.nodescore import NodeScores, check_policy
from dralloc.planner.view.cluster import _node_slices
from dralloc.planner.view.pods import PodDemand, PodsDemand

Progress = Callable[[int, int], None]


@dataclass
class PodPlacement:
    pod: str
    replica: int
    node: str
    claims: list[ResourceClaim]          # allocated here (template instances and shared claims)


@dataclass
class PodsSim:
    placed: list[PodPlacement] = field(default_factory=list)
    served: dict[str, int] = field(default_factory=dict)
    unplaced: dict[str, int] = field(default_factory=dict)
    allocated: list[ResourceClaim] = field(default_factory=list)   # the state after the run
    calls: int = 0

    def weighted(self, demand: PodsDemand) -> int:
        w = demand.weights()
        return sum(w[p.priority] * self.served.get(p.name, 0) for p in demand.pods)


def visible_on(claim: ResourceClaim, node: Node) -> bool:
    """Whether a pod on ``node`` may use the allocated ``claim``."""
    alloc = claim.status.allocation if claim.status else None
    if alloc is None or alloc.node_selector is None:
        return True
    try:
        return selector_matches(alloc.node_selector, node)
    except NodeSelectorError as e:
        raise InputError(f"ResourceClaim {claim.key}: status.allocation.nodeSelector: {e}") from None


class NodeObjects:
    """Per node, only the slices of pools that concern it (the allocator
    would gather the same pools; this keeps each call small)."""

    def __init__(self, objs: ObjectSet) -> None:
        self.objs = objs
        self.slices = _node_slices(objs)
        self._cache: dict[str, ObjectSet] = {}

    def get(self, node: Node) -> ObjectSet:
        if node.name not in self._cache:
            out = ObjectSet()
            for s in self.slices.get(node.name, self.slices[""]):
                out.add(s)
            for c in self.objs.classes:
                out.add(c)
            out.add(node)
            self._cache[node.name] = out
        return self._cache[node.name]


class PodSimulator:
    def __init__(self, objs: ObjectSet, demand: PodsDemand, features: Features, nodes: Sequence[Node],
                 mode: str = "replay", cache: bool = True, policy: str = "first") -> None:
        check_policy(policy)
        self.policy = policy
        self.demand = demand
        self.features = features
        self.mode = mode
        self.per_node = NodeObjects(objs)
        self.cluster = Cluster(objs, features, admission=False)
        self.nodes = sorted(nodes, key=lambda n: n.name.encode())
        self.shared = dict(demand.shared)
        self.allocated = [c for c in objs.claims if c.status and c.status.allocation]
        self.failed: set[tuple[str, tuple[str, ...], str]] = set()
        self.cache = cache
        self.failed_shapes: set[tuple[tuple[str, ...], str]] = set()   # (claim specs, node) that failed
        self._shapes: dict[tuple[str, tuple[str, ...]], tuple[str, ...]] = {}
        self.calls = 0
        self.scores = NodeScores(self.per_node.get, features)

    def shape(self, pod: PodDemand, todo: list[ResourceClaim], claims: list[ResourceClaim]) -> tuple[str, ...]:
        """The claim specs a try allocates (names do not matter to the allocator)."""
        key = (pod.name, tuple(c.key for c in todo))
        if key not in self._shapes:
            self._shapes[key] = tuple(json.dumps(c.spec.model_dump(by_alias=True, exclude_none=True), sort_keys=True)
                                      for c in claims)
        return self._shapes[key]

    def pending_shared(self, pod: PodDemand) -> list[ResourceClaim]:
        return [self.shared[k] for k in pod.shared if not allocated(self.shared[k])]

    def try_node(self, pod: PodDemand, replica: int, node: Node) -> list[ResourceClaim] | None:
        todo = self.pending_shared(pod)
        key = (pod.name, tuple(c.key for c in todo), node.name)
        if key in self.failed:
            return None
        if not all(visible_on(self.shared[k], node) for k in pod.shared if k not in {c.key for c in todo}):
            self.failed.add(key)
            return None
        claims = todo + pod.instances(replica)
        if not claims:
            return []
        shape = (self.shape(pod, todo, claims), node.name) if self.cache else None
        if shape in self.failed_shapes:
            self.failed.add(key)
            return None
        self.calls += 1
        res = self.cluster.allocate(node, claims, mode=self.mode)
        if not res.ok or res.allocations is None:
            self.failed.add(key)
            if shape is not None:
                self.failed_shapes.add(shape)
            return None
        return [done(c, a) for c, a in zip(claims, res.allocations, strict=True)]

    def place(self, pod: PodDemand, replica: int) -> PodPlacement | None:
        """The pod on the policy's best feasible node: nodes are tried best
        score first (a total order, ties by name), so the first success is
        the best feasible node."""
        for node in self.scores.order(self.nodes, self.policy, self.allocated):
            got = self.try_node(pod, replica, node)
            if got is None:
                continue
            self.allocated.extend(got)
            for c in got:
                self.cluster.record(c)
                if c.key in self.shared:
                    self.shared[c.key] = c
            if self.policy != "first":
                self.scores.committed(got, self.nodes)
            return PodPlacement(pod.name, replica, node.name, got)
        return None

    def run(self, progress: Progress | None = None) -> PodsSim:
        out = PodsSim()
        total, done_pods = self.demand.total(), 0
        for pod in self.demand.queue():
            out.served[pod.name] = 0
            for r in range(pod.replicas):
                got = self.place(pod, r)
                done_pods += 1 if got is not None else pod.replicas - r
                if progress:
                    progress(done_pods, total)
                if got is None:
                    out.unplaced[pod.name] = pod.replicas - r
                    break
                out.placed.append(got)
                out.served[pod.name] += 1
        out.allocated, out.calls = self.allocated, self.calls
        return out


def allocated(claim: ResourceClaim) -> bool:
    return claim.status is not None and claim.status.allocation is not None


def done(claim: ResourceClaim, alloc: AllocationResult) -> ResourceClaim:
    return claim.model_copy(update={"status": ResourceClaimStatus(allocation=alloc)})


def simulate_pods(objs: ObjectSet, demand: PodsDemand, features: Features, nodes: Sequence[Node] | None = None,
                  mode: str = "replay", progress: Progress | None = None, cache: bool = True,
                  policy: str = "first") -> PodsSim:
    """The scheduler's pod-by-pod answer for ``demand`` (see the module doc);
    ``cache=False`` calls the allocator for every pod and node; ``policy``:
    first, most or least."""
    nodes = list(nodes if nodes is not None else objs.nodes)
    return PodSimulator(objs, demand, features, nodes, mode, cache, policy).run(progress)
