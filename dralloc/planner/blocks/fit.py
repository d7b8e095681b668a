"""``fit`` through the block-layout pattern model (:mod:`.blocks`): the
solution handed to concrete devices by the allocator itself, re-checked by
the verifier, never below first-fit."""

from __future__ import annotations

from dralloc.features import Features
from dralloc.io import ObjectSet
from dralloc.models import Node, ResourceClaim, ResourceSlice
from dralloc.planner.blocks.model import Block, BlockDevice, BlockSolution, detect, solve
from dralloc.planner.general.joint import Part, PartResult, Replica
from dralloc.planner.general.parts import GeneralResult, verify_part
from dralloc.planner.simulate.podsim import PodSimulator, PodsSim, done
from dralloc.planner.view.pods import PodDemand, PodsDemand
from dralloc.solver import allocate


def _only(slices: list[ResourceSlice], device: str) -> list[ResourceSlice]:
    """The pool's slices with ``device`` as its only device (counters kept)."""
    out = []
    for s in slices:
        devs = [d for d in s.spec.devices or [] if d.name == device]
        out.append(s.model_copy(update={"spec": s.spec.model_copy(update={"devices": devs or None})})
                   if s.spec.devices else s)
    return out


def _allocate_on(objs: ObjectSet, node: Node, block: Block, dev: BlockDevice, claim: ResourceClaim,
                 held: list[ResourceClaim], features: Features) -> ResourceClaim | str:
    one = ObjectSet()
    for s in _only(block.slices, dev.name):
        one.add(s)
    for c in objs.classes:
        one.add(c)
    one.add(node)
    res = allocate(one, node, [claim], allocated=held, features=features, mode="replay", admission=False)
    if not res.ok or not res.allocations:
        return f"claim {claim.key} on device {dev.name} of pool {block.pool[1]}: {res.error or 'not allocatable'}"
    return done(claim, res.allocations[0])


def materialise(objs: ObjectSet, demand: PodsDemand, sol: BlockSolution, sim: PodSimulator,
                features: Features) -> tuple[Part, PartResult] | str:
    """Claims allocated on their devices, replicas on the nodes that see them."""
    by_name = {n.name: n for n in sim.nodes}
    res = PartResult(sol.status, sol.value, sol.bound)
    held = list(sim.allocated)
    for pod, block, dev in sol.assign:
        claim = demand.shared[pod.shared[0]]
        got = _allocate_on(objs, by_name[dev.nodes[0]], block, dev, claim, held, features)
        if isinstance(got, str):
            return got
        held.append(got)
        res.claims.setdefault(dev.nodes[0], []).append(got)
        for r in range(pod.replicas):
            res.placed[f"{pod.name}#{r}"] = dev.nodes[r % len(dev.nodes)]
    reps = [Replica(p, r, demand.weight(p)) for p in demand.queue() for r in range(p.replicas)]
    pending = {k: c for k, c in demand.shared.items() if not (c.status and c.status.allocation)}
    return Part(reps, list(sim.nodes), {}, pending), res


def _served(pods: list[PodDemand], placed: dict[str, str]) -> dict[str, int]:
    return {p.name: sum(1 for r in range(p.replicas) if f"{p.name}#{r}" in placed) for p in pods}


def block_fit(objs: ObjectSet, demand: PodsDemand, features: Features, sim: PodSimulator, greedy: PodsSim,
              time_limit: float, workers: int) -> GeneralResult | str:
    """The block model's answer, or why it does not apply (then the joint
    model answers)."""
    bp = detect(objs, demand, features, sim.nodes, sim.allocated)
    if isinstance(bp, str):
        return bp
    sol = solve(bp, time_limit, workers)
    if sol.status not in ("OPTIMAL", "FEASIBLE"):
        return f"block model: {sol.status} within the time limit"
    out = GeneralResult(status=sol.status, value=sol.value, bound=sol.bound, parts=sol.block_types,
                        seconds=sol.wall_time, model="blocks")
    out.stopped_by(sol.why)
    out.notes.extend(sol.notes)
    got = materialise(objs, demand, sol, sim, features)
    why = got if isinstance(got, str) else verify_part(*got, sim, features)
    gval = greedy.weighted(demand)
    if why or sol.value < gval:
        if why:
            out.notes.append(f"the verifier rejects the block model's answer ({why}); first-fit's kept")
        out.status = "FEASIBLE" if why or sol.status != "OPTIMAL" else out.status
        out.value, out.bound = gval, max(sol.bound, gval)
        out.placed = {f"{p.pod}#{p.replica}": p.node for p in greedy.placed}
    else:
        assert not isinstance(got, str)
        out.placed = got[1].placed
    out.served = _served(demand.pods, out.placed)
    return out
