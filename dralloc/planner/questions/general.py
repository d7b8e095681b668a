"""``add-nodes`` and ``fit`` answers for general demand (see :mod:`.general`).

add-nodes: the fewest copies k of a node type such that the whole demand
fits. First-fit: doubling then bisection on k with the scheduler simulation
(assumes more nodes never hurt first-fit). Optimal: bisection on k between 0
and first-fit's answer with the joint model (more nodes never hurt the
optimum); a k the model could not decide within the time limit counts as not
enough, and the answer is then marked unproven."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

from dralloc.errors import InputError
from dralloc.features import Features
from dralloc.io import ObjectSet
from dralloc.models import Node, ObjectMeta, ResourceSlice
from dralloc.planner.answer import Answer
from dralloc.planner.blocks.fit import block_fit
from dralloc.planner.general.parts import DEFAULT_TIME_LIMIT, GeneralResult, solve_parts
from dralloc.planner.simulate.podsim import PodSimulator, PodsSim, simulate_pods
from dralloc.planner.view.pods import PodsDemand


def solve_general(objs: ObjectSet, demand: PodsDemand, features: Features, sim: PodSimulator, greedy: PodsSim,
                  time_limit: float | None = None, workers: int = 2, progress: bool = False,
                  model: str = "auto") -> GeneralResult:
    """The optimum: the block-layout model when the demand and cluster have
    its shape (:mod:`.blocks`, one-device shared claims), else the joint
    model part by part. ``model``: "auto", "blocks" or "joint"."""
    why = "joint model asked for"
    if model != "joint":
        got = block_fit(objs, demand, features, sim, greedy,
                        time_limit if time_limit is not None else DEFAULT_TIME_LIMIT, workers)
        if isinstance(got, GeneralResult):
            return got
        why = got
    if model == "blocks":
        raise InputError(f"the block model does not apply: {why}")
    return solve_parts(objs, demand, features, sim, greedy, time_limit, workers, progress)


def general_fit(objs: ObjectSet, demand: PodsDemand, features: Features, nodes: Sequence[Node] | None = None,
                time_limit: float | None = None, workers: int = 2, mode: str = "replay",
                progress: bool = False, model: str = "auto",
                policy: str = "first") -> tuple[PodsSim, GeneralResult]:
    """The scheduler simulation (node ``policy``) and the optimum for
    ``demand`` on ``nodes``."""
    nodes = list(nodes if nodes is not None else objs.nodes)
    tick = _ticker("pods simulated") if progress else None
    greedy = simulate_pods(objs, demand, features, nodes, mode, tick, policy=policy)
    sim = PodSimulator(objs, demand, features, nodes, mode)
    return greedy, solve_general(objs, demand, features, sim, greedy, time_limit, workers, progress, model)


def _ticker(what: str) -> Any:
    def tick(done: int, total: int) -> None:
        if done == total or done % 50 == 0:
            print(f"\r  {what}: {done}/{total}", end="" if done < total else "\n", file=sys.stderr)
    return tick



def fit_answer(objs: ObjectSet, demand: PodsDemand, features: Features, time_limit: float | None,
               workers: int, progress: bool = False, policy: str = "first") -> Answer:
    greedy, opt = general_fit(objs, demand, features, None, time_limit, workers, progress=progress, policy=policy)
    ff = sum(greedy.served.values())
    ans = Answer("fit", {"policy": policy, "mode": "replay", "pods": ff, "weighted": greedy.weighted(demand),
                         "perWorkload": greedy.served, "allocatorCalls": greedy.calls},
                 {**_opt(opt), "pods": sum(opt.served.values()), "perWorkload": opt.served})
    ans.gap = ans.optimal["pods"] - ff
    ans.detail = {"demand": demand.total(), "nodes": len(objs.nodes), "model": opt.model, "parts": opt.parts,
                  "placement": dict(sorted(opt.placed.items()))}
    return ans


def _opt(res: GeneralResult) -> dict[str, Any]:
    out: dict[str, Any] = {"status": res.status, "proven": res.proven, "objective": res.value, "bound": res.bound,
                           "solveSeconds": round(res.seconds, 4)}
    if res.status in ("FEASIBLE", "UNKNOWN"):
        out["stopped"] = "CP-SAT stopped at its time limit before proving the optimum"
    if res.notes:
        out["notes"] = res.notes
    return out


def node_copy(node: Node, slices: Sequence[ResourceSlice], name: str) -> list[Any]:
    """A copy of ``node`` named ``name`` with its own node-local slices
    (slice, pool and node names rewritten)."""
    labels = {k: (name if v == node.name else v) for k, v in (node.labels or {}).items()}
    out: list[Any] = [node.model_copy(update={"metadata": ObjectMeta(name=name, labels=labels)})]
    for s in slices:
        spec = s.spec
        pool = spec.pool.model_copy(update={"name": spec.pool.name.replace(node.name, name)
                                            if node.name in spec.pool.name else f"{spec.pool.name}-{name}"})
        out.append(s.model_copy(update={
            "metadata": ObjectMeta(name=f"{s.name}-{name}"),
            "spec": spec.model_copy(update={"node_name": name, "pool": pool})}))
    return out


def _template(objs: ObjectSet, tmpl: ObjectSet | None, name: str) -> tuple[Node, list[ResourceSlice]]:
    src = tmpl if tmpl is not None else objs
    node = next((n for n in src.nodes if n.name == name), None)
    if node is None:
        raise InputError(f"add-nodes: template node {name!r} not found among the nodes")
    slices = [s for s in src.slices if s.spec.node_name == name]
    if not slices:
        raise InputError(f"add-nodes: template node {name!r} has no ResourceSlice with nodeName {name!r}")
    return node, slices


class Grower:
    """The cluster plus k copies of a node type."""

    def __init__(self, objs: ObjectSet, node: Node, slices: list[ResourceSlice]) -> None:
        self.objs, self.node, self.slices = objs, node, slices

    def with_k(self, k: int) -> ObjectSet:
        out = ObjectSet()
        for o in self.objs.all():
            out.add(o)
        for j in range(k):
            for o in node_copy(self.node, self.slices, f"{self.node.name}-added-{j:04d}"):
                out.add(o)
        return out


def _search(ok: Callable[[int], bool], lo: int, hi: int | None, limit: int) -> int | None:
    """Smallest k in (lo, hi] with ok(k), ok(hi) known true; without hi,
    doubling from lo+1 up to ``limit`` first."""
    if hi is None:
        hi = max(1, lo + 1)
        while not ok(hi):
            if hi >= limit:
                return None
            lo, hi = hi, min(hi * 2, limit)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def add_nodes_answer(objs: ObjectSet, demand: PodsDemand, features: Features, template: str,
                     tmpl: ObjectSet | None = None, time_limit: float | None = None, workers: int = 2,
                     limit: int = 256, policy: str = "first") -> Answer:
    node, slices = _template(objs, tmpl, template)
    grow = Grower(objs, node, slices)
    total = demand.total()

    def ff_ok(k: int) -> bool:
        return not simulate_pods(grow.with_k(k), demand, features, policy=policy).unplaced

    ff = 0 if ff_ok(0) else _search(ff_ok, 0, None, limit)
    unproven: list[int] = []

    def opt_ok(k: int) -> bool:
        objs_k = grow.with_k(k)
        greedy = simulate_pods(objs_k, demand, features, policy=policy)
        res = solve_general(objs_k, demand, features, PodSimulator(objs_k, demand, features, objs_k.nodes), greedy,
                          time_limit, workers)
        if sum(res.served.values()) == total:
            return True
        if not res.proven:
            unproven.append(k)
        return False

    hi = ff if ff is not None else limit
    opt = 0 if opt_ok(0) else (_search(opt_ok, 0, hi, limit) if ff is not None else _search(opt_ok, 0, None, limit))
    out: dict[str, Any] = {"nodes": opt, "proven": not unproven, "model": "joint"}
    if unproven:
        out["note"] = f"not decided within the time limit for k = {sorted(unproven)}; the answer is an upper bound"
    if opt is None:
        out["note"] = f"the demand does not fit even with {limit} added nodes"
    ans = Answer("add-nodes", {"policy": policy, "mode": "replay", "nodes": ff}, out,
                 detail={"template": template, "demand": total})
    if ff is not None and opt is not None:
        ans.gap = ff - opt
    return ans
