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
preemption. The simulation's answers are Kubernetes' (replay, its defects
included) and are not re-checked; the optimum they are compared with is.

Gangs (:meth:`PodSimulator.run_gang`) follow kube-scheduler's gang cycle:
all the group's pods one by one, at least the minimum placed or every
allocation of the cycle undone. Answers are remembered per (node type, node
state, claim shape) (:mod:`.nodememo`). The node policy is a stated policy:
kube-scheduler breaks ties among equally-scored nodes at random. With a
``tiebreak`` budget, a gang the policy refuses is searched under every
tie-break Kubernetes can make (:func:`dralloc.audit.tiebreak.gang_cycle`,
on the state the policy left before it): refused under every one, placed
under some, or not decided."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dralloc.audit.analysis import Budget
from dralloc.audit.tiebreak import CyclePod, CycleResult, gang_cycle
from dralloc.cluster import Cluster
from dralloc.errors import InputError
from dralloc.features import Features, Variant
from dralloc.inventory.fingerprint import Fingerprints, pool_names, read_attributes
from dralloc.inventory.nodesel import NodeSelectorError, allocation_admits
from dralloc.io import ObjectSet
from dralloc.models import (
    AllocationResult,
    DeviceRequestAllocationResult,
    Node,
    ResourceClaim,
    ResourceClaimStatus,
)
from dralloc.planner.simulate.nodememo import NodeMemo
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
    gangs: dict[str, bool] = field(default_factory=dict)           # gang -> placed (at least its minimum)
    tiebreak: dict[str, CycleResult] = field(default_factory=dict)  # refused gang -> under every tie-break
    seconds: float = 0.0

    def weighted(self, demand: PodsDemand) -> int:
        return sum(demand.weight(p) * self.served.get(p.name, 0) for p in demand.pods)


def visible_on(claim: ResourceClaim, node: Node) -> bool:
    """Whether a pod on ``node`` may use the allocated ``claim`` (a malformed
    allocation selector is an input error naming the claim)."""
    try:
        return allocation_admits(claim, node)
    except NodeSelectorError as e:
        raise InputError(f"ResourceClaim {claim.key}: status.allocation.nodeSelector: {e}") from None


class NodeObjects:
    """Per node, only the slices of pools that concern it (the allocator
    would gather the same pools; this keeps each call small), and the node's
    fingerprint for the claims ``probes`` (computed once per node)."""

    def __init__(self, objs: ObjectSet, probes: Sequence[ResourceClaim] = ()) -> None:
        self.objs = objs
        self.slices = _node_slices(objs)
        self._cache: dict[str, ObjectSet] = {}
        self.probes = list(probes)
        self._prints: dict[str, Hashable] = {}
        self._fingerprints: Fingerprints | None = None

    def fingerprint(self, node: Node) -> Hashable:
        """Identical for nodes the allocator cannot tell apart for the probes
        (:class:`Fingerprints`, input allocations included)."""
        if node.name not in self._prints:
            if self._fingerprints is None:
                self._fingerprints = Fingerprints(
                    ((r.driver, r.pool, r.device) for c in self.objs.claims for r in _results(c)),
                    read_attributes(self.objs.classes, self.probes))
            self._prints[node.name] = self._fingerprints.node(node, self.get(node).slices)
        return self._prints[node.name]

    def pools(self, node: Node) -> list[tuple[str, str]]:
        """The node's pools in search order."""
        return pool_names(self.get(node).slices)

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
                 mode: str = "replay", cache: bool = True, policy: str = "first",
                 per_node: NodeObjects | None = None, tiebreak: int | None = None,
                 variant: Variant | None = None) -> None:
        check_policy(policy)
        self.policy = policy
        self.tiebreak = tiebreak          # allocation calls per refused gang's tie-break search
        self.demand = demand
        self.features = features
        self.mode = mode
        self.per_node = per_node if per_node is not None else NodeObjects(objs, probes(demand))
        self.cluster = Cluster(objs, features, variant, admission=False)
        self.nodes = sorted(nodes, key=lambda n: n.name.encode())
        self.shared = dict(demand.shared)
        self.allocated = [c for c in objs.claims if c.status and c.status.allocation]
        self.failed: set[tuple[str, tuple[str, ...], str]] = set()
        self.cache = cache
        self.failed_shapes: set[tuple[int, str]] = set()   # (claim specs, node) that failed
        self._shapes: dict[tuple[str, tuple[str, ...]], int] = {}
        self._shape_ids: dict[tuple[str, ...], int] = {}
        self.calls = 0
        self.scores = NodeScores(self.per_node.get, features)
        self.journal: list[tuple[str, Any]] | None = None   # undo log while a gang is tried
        self.cursor: dict[tuple[str, tuple[str, ...]], int] = {}   # first node not failed yet (policy first)
        self.memo = NodeMemo(self.per_node.fingerprint, self.per_node.pools,
                             enabled=cache and mode == "replay" and not self.per_node.slices[""])

    def held(self, node: Node) -> list[ResourceClaim]:
        """Allocated claims holding devices of pools the node sees (all the
        allocator looks at there)."""
        return self.cluster.held_for(self.cluster.view(node))

    def shape(self, pod: PodDemand, todo: list[ResourceClaim], claims: list[ResourceClaim]) -> int:
        """The claim specs a try allocates (names do not matter to the allocator), as a number."""
        key = (pod.name, tuple(c.key for c in todo))
        if key not in self._shapes:
            specs = tuple(json.dumps(c.spec.model_dump(by_alias=True, exclude_none=True), sort_keys=True)
                          for c in claims)
            self._shapes[key] = self._shape_ids.setdefault(specs, len(self._shape_ids))
        return self._shapes[key]

    def pending_shared(self, pod: PodDemand) -> list[ResourceClaim]:
        return [self.shared[k] for k in pod.shared if not allocated(self.shared[k])]

    def _fail(self, key: tuple[str, tuple[str, ...], str], shape: tuple[int, str] | None) -> None:
        self.failed.add(key)
        if self.journal is not None:
            self.journal.append(("failed", key))
        if shape is not None:
            self.failed_shapes.add(shape)
            if self.journal is not None:
                self.journal.append(("shape", shape))

    def try_node(self, pod: PodDemand, replica: int, node: Node) -> list[ResourceClaim] | None:
        todo = self.pending_shared(pod)
        key = (pod.name, tuple(c.key for c in todo), node.name)
        if key in self.failed:
            return None
        if not all(visible_on(self.shared[k], node) for k in pod.shared if k not in {c.key for c in todo}):
            self._fail(key, None)
            return None
        claims = todo + pod.instances(replica)
        if not claims:
            return []
        sid = self.shape(pod, todo, claims)
        shape = (sid, node.name) if self.cache else None
        if shape in self.failed_shapes:
            self._fail(key, None)
            return None
        known, allocs = self.memo.lookup(node, sid)
        if not known:
            self.calls += 1
            res = self.cluster.allocate(node, claims, mode=self.mode, verify=False)
            allocs = res.allocations if res.ok else None
            self.memo.store(node, sid, allocs)
        if allocs is None:
            self._fail(key, shape)
            return None
        return [done(c, a) for c, a in zip(claims, allocs, strict=True)]

    def place(self, pod: PodDemand, replica: int) -> PodPlacement | None:
        """The pod on the policy's best feasible node: nodes are tried best
        score first (a total order, ties by name), so the first success is
        the best feasible node. With the ``first`` policy the nodes before
        the first one this pod has not failed on are skipped (failures
        last: allocations only grow)."""
        if self.policy != "first":
            order = self.scores.order(self.nodes, self.policy, self.allocated)
            return next((p for n in order if (p := self._try(pod, replica, n)) is not None), None)
        key = (pod.name, tuple(c.key for c in self.pending_shared(pod)))
        at = self.cursor.get(key, 0)
        for i in range(at, len(self.nodes)):
            got = self._try(pod, replica, self.nodes[i])
            if got is not None:
                self._move(key, at, i)
                return got
        self._move(key, at, len(self.nodes))
        return None

    def _move(self, key: tuple[str, tuple[str, ...]], old: int, new: int) -> None:
        if new != old:
            self.cursor[key] = new
            if self.journal is not None:
                self.journal.append(("cursor", (key, old)))

    def _try(self, pod: PodDemand, replica: int, node: Node) -> PodPlacement | None:
        got = self.try_node(pod, replica, node)
        if got is None:
            return None
        self.commit(node, got)
        return PodPlacement(pod.name, replica, node.name, got)

    def commit(self, node: Node, got: list[ResourceClaim]) -> None:
        self.allocated.extend(got)
        for c in got:
            self.cluster.record(c)
            if c.key in self.shared:
                if self.journal is not None:
                    self.journal.append(("shared", self.shared[c.key]))
                self.shared[c.key] = c
        self.memo.commit(node, [c.status.allocation for c in got if c.status and c.status.allocation])
        if self.policy != "first":
            self.scores.committed(got, self.nodes)

    def run(self, progress: Progress | None = None) -> PodsSim:
        out = PodsSim()
        count = _Count(self.demand.total(), progress)
        done_gangs: set[str] = set()
        for pod in self.demand.queue():
            if pod.gang is not None:
                if pod.gang not in done_gangs:
                    done_gangs.add(pod.gang)
                    self.run_gang(pod.gang, out, count)
                continue
            self.run_pod(pod, out, count)
        out.allocated, out.calls = self.allocated, self.calls
        return out

    def run_pod(self, pod: PodDemand, out: PodsSim, count: _Count) -> int:
        """Place the replicas of ``pod`` in order until one fails (the rest
        fail too: same claims, allocations only grow); pods placed."""
        out.served[pod.name] = 0
        for r in range(pod.replicas):
            got = self.place(pod, r)
            count.tick(1 if got is not None else pod.replicas - r)
            if got is None:
                out.unplaced[pod.name] = pod.replicas - r
                break
            out.placed.append(got)
            out.served[pod.name] += 1
        return out.served[pod.name]

    def run_gang(self, key: str, out: PodsSim, count: _Count) -> None:
        """Kubernetes' gang cycle: the group's pods one by one (priority,
        then input order), each on the policy's node with the allocator's
        first answer, none revisited; at least the minimum placed or the
        whole group undone."""
        gang = self.demand.gangs[key]
        members = sorted((p for p in self.demand.pods if p.gang == key), key=lambda p: (-p.priority, p.order))
        mark, saved = (len(out.placed), len(self.allocated)), self.memo.snapshot()
        self.journal = []
        with self.cluster.trial():   # the cluster object forgets the cycle's claims at the end ...
            placed = sum(self.run_pod(p, out, count) for p in members)
        journal, self.journal = self.journal, None
        out.gangs[key] = placed >= gang.needed
        undone = self.allocated[mark[1]:]
        if out.gangs[key]:
            for c in undone:     # ... and takes them back when the gang is placed
                self.cluster.record(c)
            return
        del out.placed[mark[0]:], self.allocated[mark[1]:]
        self.memo.restore(saved)
        self._undo(journal)
        if self.policy != "first":
            self.scores.committed(undone, self.nodes)
        for p in members:
            out.served[p.name] = 0
            out.unplaced[p.name] = p.replicas
        if self.tiebreak is not None:
            out.tiebreak[key] = self.search_gang(gang.needed, members)

    def search_gang(self, needed: int, members: list[PodDemand]) -> CycleResult:
        """The gang's cycle under every tie-break, on the state now."""
        pods = [CyclePod(f"{p.name}#{r}", tuple([self.shared[k] for k in p.shared] + p.instances(r)))
                for p in members for r in range(p.replicas)]
        return gang_cycle(self.cluster, pods, needed, self.nodes, Budget(self.tiebreak or 0),
                          self.per_node.fingerprint)

    def _undo(self, journal: list[tuple[str, Any]]) -> None:
        for what, item in reversed(journal):
            if what == "failed":
                self.failed.discard(item)
            elif what == "shape":
                self.failed_shapes.discard(item)
            elif what == "cursor":
                self.cursor[item[0]] = item[1]
            else:
                self.shared[item.key] = item


class _Count:
    def __init__(self, total: int, progress: Progress | None) -> None:
        self.total, self.done, self.progress = total, 0, progress

    def tick(self, n: int) -> None:
        self.done += n
        if self.progress:
            self.progress(self.done, self.total)


def _results(claim: ResourceClaim) -> list[DeviceRequestAllocationResult]:
    alloc = claim.status.allocation if claim.status else None
    return list(alloc.devices.results or []) if alloc and alloc.devices else []


def probes(demand: PodsDemand) -> list[ResourceClaim]:
    """Every claim the demand allocates (what fingerprints must tell apart)."""
    return [c for p in demand.pods for _, c in p.templates] + list(demand.shared.values())


def allocated(claim: ResourceClaim) -> bool:
    return claim.status is not None and claim.status.allocation is not None


def done(claim: ResourceClaim, alloc: AllocationResult) -> ResourceClaim:
    return claim.model_copy(update={"status": ResourceClaimStatus(allocation=alloc)})


def simulate_pods(objs: ObjectSet, demand: PodsDemand, features: Features, nodes: Sequence[Node] | None = None,
                  mode: str = "replay", progress: Progress | None = None, cache: bool = True,
                  policy: str = "first", per_node: NodeObjects | None = None,
                  tiebreak: int | None = None, variant: Variant | None = None) -> PodsSim:
    """The scheduler's pod-by-pod answer for ``demand`` (see the module doc);
    ``cache=False`` calls the allocator for every pod and node; ``policy``:
    first, most or least; ``tiebreak``: allocation calls for each refused
    gang's search under every tie-break (None: no search); ``variant``:
    another allocator variant than the one the features' release picks."""
    nodes = list(nodes if nodes is not None else objs.nodes)
    t0 = time.perf_counter()
    out = PodSimulator(objs, demand, features, nodes, mode, cache, policy, per_node, tiebreak,
                       variant).run(progress)
    out.seconds = time.perf_counter() - t0
    return out
