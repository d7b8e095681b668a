"""The joint optimum for general demand, part by part (the model is
:mod:`dralloc.planner.general.joint`; first-fit is the scheduler simulation,
:mod:`dralloc.planner.simulate.podsim`).

Candidates: the nodes where a pod's claims can be allocated on today's
cluster (the allocator, one call per pod and node; no placement can use a
node outside them, allocations only grow). The problem splits into
independent parts (networkx components): a pod is joined to its candidate
nodes and to its shared claims, a node to the pools it sees that other nodes
see too (multi-host slices, network-attached devices). Each part is one
CP-SAT model, started from the first-fit answer; a part whose model has no
better answer within the time limit keeps first-fit's. Every joint answer is
re-checked by the independent verifier before it is reported."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import networkx as nx

from dralloc.checker.rules import verify_allocation
from dralloc.encoders.linear import OutOfRange
from dralloc.features import Features
from dralloc.inventory.nodesel import NodeSelectorError, node_matches
from dralloc.io import ObjectSet
from dralloc.io.progress import Progress
from dralloc.models import Node, ResourceClaim, ResourceSlice
from dralloc.planner.general.joint import JointModel, Part, PartResult, Replica
from dralloc.planner.simulate.podsim import (
    PodSimulator,
    PodsSim,
    allocated,
    visible_on,
)
from dralloc.planner.view.pods import PodsDemand
from dralloc.solver.limits import PLAN
from dralloc.solver.proof import meets

DEFAULT_TIME_LIMIT = PLAN     # seconds per part when none is given (dralloc.solver.limits)
RANK = {"OPTIMAL": 0, "FEASIBLE": 1, "UNKNOWN": 2, "MODEL_INVALID": 3, "INFEASIBLE": 4}


@dataclass
class GeneralResult:
    status: str = "OPTIMAL"
    value: int = 0
    bound: int = 0
    served: dict[str, int] = field(default_factory=dict)
    placed: dict[str, str] = field(default_factory=dict)       # replica key -> node
    parts: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    model: str = "joint"
    claims: dict[str, list[ResourceClaim]] = field(default_factory=dict)   # node -> claims allocated there
    detail: dict[str, object] = field(default_factory=dict)                # model-specific figures
    why: str | None = None      # "time limit" when a search (a part, column generation) stopped at it

    @property
    def proven(self) -> bool:
        """The answer meets its (valid) bound, whatever the searches' statuses."""
        return meets(self.value, self.bound)

    def stopped_by(self, why: str | None) -> None:
        """Remember why a search ended unfinished ("time limit" wins)."""
        if why is not None and self.why != "time limit":
            self.why = why


EVERYTHING_PLACED = "first-fit places the whole demand: it is optimal, no search needed"


def everything_placed(greedy: PodsSim, demand: PodsDemand) -> GeneralResult | None:
    """First-fit's answer as the proven optimum when it places every pod
    (nothing can be better, no model needs to run); else None."""
    if any(greedy.served.get(p.name, 0) < p.replicas for p in demand.pods):
        return None
    value = greedy.weighted(demand)
    out = GeneralResult(status="OPTIMAL", value=value, bound=value, model="first-fit", notes=[EVERYTHING_PLACED])
    out.placed = {f"{p.pod}#{p.replica}": p.node for p in greedy.placed}
    for p in greedy.placed:
        out.claims.setdefault(p.node, []).extend(p.claims)
    out.served = {p.name: greedy.served.get(p.name, 0) for p in demand.pods}
    return out


def _shared_pools(node: Node, slices: Sequence[ResourceSlice]) -> set[tuple[str, str]]:
    """Pools without a node name that publish something ``node`` may use."""
    out = set()
    for s in slices:
        spec = s.spec
        srcs = list(spec.devices or []) if spec.per_device_node_selection else [spec]
        try:
            if any(node_matches(node, x.node_name, x.all_nodes, x.node_selector) for x in srcs):
                out.add((spec.driver, spec.pool.name))
        except NodeSelectorError:
            continue
    return out


def candidates(sim: PodSimulator, demand: PodsDemand) -> dict[str, list[str]]:
    """Per pod, the nodes where its claims fit on the cluster as it is."""
    out = {}
    for pod in demand.pods:
        out[pod.name] = [n.name for n in sim.nodes if pod.replicas and sim.try_node(pod, 0, n) is not None]
    return out


def split(demand: PodsDemand, cands: dict[str, list[str]], sim: PodSimulator) -> list[Part]:
    g: nx.Graph = nx.Graph()
    for pod in demand.pods:
        g.add_node(("p", pod.name))
        g.add_edges_from((("p", pod.name), ("n", n)) for n in cands[pod.name])
        g.add_edges_from((("p", pod.name), ("s", k)) for k in pod.shared)
        if pod.gang is not None:
            g.add_edge(("p", pod.name), ("g", pod.gang))
    by_name = {n.name: n for n in sim.nodes}
    used = {n for ns in cands.values() for n in ns}
    for name in sorted(used):
        for pid in _shared_pools(by_name[name], sim.per_node.slices[""]):
            g.add_edge(("n", name), ("pool", pid))
    pending = {k: c for k, c in demand.shared.items() if not (c.status and c.status.allocation)}
    order = {p.name: i for i, p in enumerate(demand.queue())}
    parts = []
    for comp in nx.connected_components(g):
        pods = sorted((p for p in demand.pods if ("p", p.name) in comp), key=lambda p: order[p.name])
        nodes = [n for n in sim.nodes if ("n", n.name) in comp]
        reps = [Replica(p, r, demand.weight(p)) for p in pods for r in range(p.replicas)]
        if reps:
            parts.append(Part(reps, nodes, {p.name: cands[p.name] for p in pods},
                              {k: c for k, c in pending.items() if ("s", k) in comp}))
    return sorted(parts, key=lambda p: order[p.replicas[0].pod.name])


def verify_part(part: Part, res: PartResult, sim: PodSimulator, features: Features) -> str | None:
    """The first rule a joint answer breaks, or None."""
    held = list(sim.allocated)
    done_shared: dict[str, ResourceClaim] = {}
    by_name = {n.name: n for n in part.nodes}
    for name in sorted(res.claims, key=str.encode):
        claims = res.claims[name]
        allocs = [c.status.allocation for c in claims if c.status and c.status.allocation]
        bare = [c.model_copy(update={"status": None}) for c in claims]
        node = by_name[name]
        errors = [f for f in verify_allocation(sim.per_node.get(node).slices, sim.per_node.objs.classes, node, bare,
                                               allocs, held, features) if f.level == "error"]
        if errors:
            return f"node {name}: {errors[0]}"
        held.extend(claims)
        done_shared.update({c.key: c for c in claims if c.key in part.pending})
    for r in part.replicas:
        where = res.placed.get(r.key)
        for k in r.pod.shared if where else ():
            c = done_shared.get(k) or sim.shared[k]
            if not allocated(c) or not visible_on(c, by_name[str(where)]):
                return f"{r.key} on node {where}: shared claim {k} is not allocated where the pod may use it"
    return None


def _greedy_in(part: Part, greedy: dict[str, str]) -> tuple[int, dict[str, str]]:
    placed = {r.key: greedy[r.key] for r in part.replicas if r.key in greedy}
    return sum(r.weight for r in part.replicas if r.key in placed), placed


def _take(out: GeneralResult, res: PartResult) -> None:
    out.value += res.value
    out.bound += res.bound
    out.placed.update(res.placed)
    out.stopped_by(res.why)
    if RANK.get(res.status, 3) > RANK.get(out.status, 3):
        out.status = res.status


def solve_parts(objs: ObjectSet, demand: PodsDemand, features: Features, sim: PodSimulator, greedy: PodsSim,
                time_limit: float | None = None, workers: int = 2, progress: Progress | None = None) -> GeneralResult:
    """The joint optimum, part by part, never below first-fit."""
    out = GeneralResult()
    first = {f"{p.pod}#{p.replica}": p.node for p in greedy.placed}
    parts = split(demand, candidates(sim, demand), sim)
    out.parts = len(parts)
    for i, part in enumerate(parts):
        if progress is not None:
            progress("CP-SAT: the joint model, part", i + 1, len(parts),
                     note=f"{len(part.replicas)} pods, {len(part.nodes)} nodes")
        model = JointModel(part, sim.per_node.slices, list(objs.classes), sim.allocated, features,
                           {g: gang.needed for g, gang in demand.gangs.items()})
        gval, gplaced = _greedy_in(part, first)
        try:
            model.build()
        except OutOfRange as e:
            out.notes.append(f"part {i + 1}: {e}; first-fit's answer kept")
            _take(out, PartResult("FEASIBLE", gval, max(gval, sum(r.weight for r in part.replicas)), gplaced))
            continue
        out.notes.extend(model.skipped)
        model.hint(gplaced)
        res = model.solve(time_limit if time_limit is not None else DEFAULT_TIME_LIMIT, workers)
        out.seconds += res.wall_time
        out.notes.extend(f"part {i + 1}: {n}" for n in res.notes)
        why = verify_part(part, res, sim, features) if res.placed else None
        if why:
            out.notes.append(f"part {i + 1}: the verifier rejects the joint answer ({why}); first-fit's kept")
        if why or res.status not in ("OPTIMAL", "FEASIBLE") or res.value < gval:
            if not why and res.status != "OPTIMAL":
                when = "before its time limit" if res.why == "time limit" else f"({res.status})"
                out.notes.append(f"part {i + 1}: no better answer {when}; first-fit's answer kept")
            # without an answer CP-SAT proved nothing: the only bound is every replica placed
            known = res.bound if res.status in ("OPTIMAL", "FEASIBLE") else sum(r.weight for r in part.replicas)
            res = PartResult(res.status if res.status != "OPTIMAL" else "FEASIBLE", gval, max(known, gval), gplaced,
                             why=res.why)
        _take(out, res)
    for pod in demand.pods:
        out.served[pod.name] = sum(1 for r in range(pod.replicas) if f"{pod.name}#{r}" in out.placed)
    return out
