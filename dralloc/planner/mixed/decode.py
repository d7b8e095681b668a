"""From counts to devices: which node gets which configuration, which pods
fill it, and the allocator's allocation of their claims, re-checked by the
independent checker.

Configurations go to the nodes of their type in name order. Plain pods are
taken in queue order, as many as the answer places per group; the first
``z`` gangs of a type (queue order) are placed, their pods dealt round-robin
so that every gang gets at least its minimum; bundles take the first groups
of their type. On a node the allocator itself (``allocate``, Kubernetes'
search; CP-SAT if that search runs out of time) allocates all its claims
together, once per distinct (node type, content): nodes with the same
content get the same devices under their own pool and node names. Every
node's allocation is then checked by :func:`verify_allocation`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from dralloc.checker.rules import verify_allocation
from dralloc.encoders.choice import NeedsReplay
from dralloc.encoders.model import encode
from dralloc.errors import AllocationError
from dralloc.features import Features
from dralloc.inventory.problem import Problem, build_problem
from dralloc.models import AllocationResult, Node, ResourceClaim
from dralloc.planner.mixed.items import Items
from dralloc.planner.mixed.master import Solution
from dralloc.planner.mixed.nodetypes import NodeType
from dralloc.planner.mixed.pricing import Config
from dralloc.planner.simulate.nodememo import rename
from dralloc.planner.simulate.podsim import PodSimulator, done, visible_on
from dralloc.planner.view.pods import PodDemand, PodsDemand
from dralloc.solver.cpsat import decode, fill
from dralloc.solver.outcome import Outcome, Status
from dralloc.solver.replay import ReplaySearch, StepLimitReached
from dralloc.solver.results import build_allocation
from dralloc.solver.search import run

REPLAY_STEPS = 300      # Kubernetes' search per node content, before CP-SAT takes over
CPSAT_SECONDS = 30.0

Replica = tuple[PodDemand, int]


@dataclass
class NodePlan:
    node: Node
    type: NodeType
    config: Config
    pods: list[Replica] = field(default_factory=list)                   # plain and gang pods
    bundles: list[tuple[int, list[ResourceClaim], list[Replica]]] = field(default_factory=list)

    def content(self, items: Items) -> tuple[object, ...]:
        """What decides the allocation: the type and the claim shapes, in claim order."""
        return (self.type.id, tuple((b, tuple(items.pod_shape[p.name] for p, _ in m)) for b, _, m in self.bundles),
                tuple(items.pod_shape[p.name] for p, _ in self.pods))

    def claims(self, shared: dict[str, ResourceClaim]) -> tuple[list[ResourceClaim], list[tuple[str, int]]]:
        """The claims to allocate here, and per pod replica how many of them
        are its own (a claim no pod refers to is a pod of its own)."""
        claims: list[ResourceClaim] = []
        owners: list[tuple[str, int]] = []
        for _, group, members in self.bundles:
            claims.extend(c for c in group if not (c.status and c.status.allocation))
            for pod, r in members:
                inst = pod.instances(r)
                claims.extend(inst)
                owners.append((f"{pod.name}#{r}", len(inst)))
        for pod, r in self.pods:
            inst = [shared[pod.shared[0]]] if pod.lone else pod.instances(r)
            claims.extend(inst)
            owners.append((f"{pod.name}#{r}", len(inst)))
        return claims, owners


@dataclass
class Decoded:
    placed: dict[str, str] = field(default_factory=dict)                    # replica key -> node
    claims: dict[str, list[ResourceClaim]] = field(default_factory=dict)    # node -> claims allocated there
    error: str | None = None
    allocator_calls: int = 0


def _replicas(pods: Sequence[PodDemand], n: int) -> list[Replica]:
    out: list[Replica] = []
    for p in pods:
        take = min(p.replicas, n - len(out))
        out.extend((p, r) for r in range(take))
        if len(out) >= n:
            break
    return out


def plan_nodes(items: Items, types: list[NodeType], sol: Solution, demand: PodsDemand) -> list[NodePlan]:
    plans: list[NodePlan] = []
    for t in types:
        cols = sorted(((c, n) for c, n in sol.x.items() if c.type == t.id), key=lambda cn: (cn[0].shapes, cn[0].bundles))
        nodes = iter(t.nodes)
        for c, n in cols:
            plans.extend(NodePlan(next(nodes), t, c) for _ in range(n))
    pods: dict[int, list[Replica]] = {}
    for g, y in zip(items.groups, sol.y, strict=True):
        pods.setdefault(g.shape, []).extend(_replicas(g.pods, y))
    for s, reps in _gang_pods(items, sol, demand).items():
        pods.setdefault(s, []).extend(reps)
    for s, reps in pods.items():
        at = 0
        for np_ in plans:
            k = np_.config.pods(s)
            np_.pods.extend(reps[at:at + k])
            at += k
    _bundles(items, plans, demand)
    return plans


def _gang_pods(items: Items, sol: Solution, demand: PodsDemand) -> dict[int, list[Replica]]:
    out: dict[int, list[Replica]] = {}
    for t, z, q in zip(items.gangs, sol.z, sol.q, strict=True):
        chosen = t.gangs[:z]
        per = [[0] * len(t.slots) for _ in chosen]
        turn = 0
        for i, n in enumerate(q):
            for _ in range(n):
                per[turn % len(chosen)][i] += 1
                turn += 1
        for g, counts in zip(chosen, per, strict=True):
            for ((s, w), _n), k in zip(t.slots, counts, strict=True):
                if s == items.free_shape:
                    continue
                pods = [p for p in items.members[g] if items.pod_shape[p.name] == s and demand.weight(p) == w]
                out.setdefault(s, []).extend(_replicas(pods, k))
    return out


def _bundles(items: Items, plans: list[NodePlan], demand: PodsDemand) -> None:
    taken = {b: iter(bt.groups) for b, bt in enumerate(items.bundles)}
    for np_ in plans:
        for b, members in np_.config.bundles:
            unit, keys = next(taken[b])
            shared = [demand.shared[k] for k in keys]
            mine: list[Replica] = []
            for ((s, w), _n), k in zip(items.bundles[b].slots, members, strict=True):
                pods = [p for p in items.members[unit] if items.pod_shape[p.name] == s and demand.weight(p) == w]
                mine.extend(_replicas(pods, k))
            np_.bundles.append((b, shared, mine))


class Allocator:
    """Allocations per node, asked once per distinct (type, content)."""

    def __init__(self, sim: PodSimulator, features: Features, items: Items) -> None:
        self.sim, self.features, self.items = sim, features, items
        self.known: dict[object, tuple[str, list[tuple[str, str]], list[AllocationResult]] | None] = {}
        self.calls = 0

    def allocate(self, np_: NodePlan, claims: list[ResourceClaim]) -> list[AllocationResult] | str:
        key = np_.content(self.items)
        if key not in self.known:
            self.known[key] = self._ask(np_.node, claims, np_.type)
        got = self.known[key]
        if got is None:
            return f"node {np_.node.name}: the allocator finds no allocation for {len(claims)} claims"
        return rename(got[2], got, np_.node.name, np_.type.pools[np_.node.name])

    def _ask(self, node: Node, claims: list[ResourceClaim], t: NodeType) -> \
            tuple[str, list[tuple[str, str]], list[AllocationResult]] | None:
        """Kubernetes' search under a step budget, else the allocator's
        CP-SAT encoding (Kubernetes' search can take exponentially many
        steps to pack a node the configuration model proved packable)."""
        self.calls += 1
        objs, held = self.sim.per_node.get(node), self.sim.held(node)
        try:
            problem = build_problem(objs.slices, objs.classes, node, claims, held, self.features)
        except AllocationError:
            return None
        search = ReplaySearch(problem, step_limit=REPLAY_STEPS)
        try:
            if search.run():
                return node.name, t.pools[node.name], [
                    build_allocation(plan, search.results[plan.index], search.selected, node, self.features,
                                     problem.variant) for plan in problem.plans]
            return None
        except (StepLimitReached, AllocationError):
            pass
        return self._cpsat(problem, node, t)

    def _cpsat(self, problem: Problem, node: Node, t: NodeType) -> \
            tuple[str, list[tuple[str, str]], list[AllocationResult]] | None:
        try:
            enc = encode(problem)
        except (NeedsReplay, AllocationError):
            return None
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.max_time_in_seconds = CPSAT_SECONDS
        if not run(solver, enc.model).found:
            return None
        out = Outcome(Status.ERROR, "optimal", node.name, [])
        fill(out, enc, *decode(enc, solver))
        return (node.name, t.pools[node.name], list(out.allocations)) if out.allocations is not None else None


def materialise(plans: list[NodePlan], sim: PodSimulator, features: Features, items: Items) -> Decoded:
    """Allocate every node's claims and check them; the first problem stops it."""
    out = Decoded()
    alloc = Allocator(sim, features, items)
    for np_ in plans:
        claims, owners = np_.claims(sim.shared)
        if not claims:
            out.placed.update((k, np_.node.name) for k, _ in owners)
            continue
        got = alloc.allocate(np_, claims)
        if isinstance(got, str):
            out.error = got
            break
        why = _check(sim, np_, claims, got, features)
        if why:
            out.error = why
            break
        out.claims[np_.node.name] = [done(c, a) for c, a in zip(claims, got, strict=True)]
        out.placed.update((k, np_.node.name) for k, _ in owners)
    out.allocator_calls = alloc.calls
    return out


def _check(sim: PodSimulator, np_: NodePlan, claims: list[ResourceClaim], allocs: list[AllocationResult],
           features: Features) -> str | None:
    node = np_.node
    errors = [f for f in verify_allocation(sim.per_node.get(node).slices, sim.per_node.objs.classes, node, claims,
                                           allocs, sim.held(node), features) if f.level == "error"]
    if errors:
        return f"node {node.name}: {errors[0]}"
    for pod, _r in [*np_.pods, *(m for _, _, ms in np_.bundles for m in ms)]:
        for k in pod.shared:
            c = sim.shared[k]
            if c.status and c.status.allocation and not visible_on(c, node):
                return f"pod {pod.name} on node {node.name}: shared claim {k} is not visible there"
    return None
