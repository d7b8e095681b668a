"""``add-nodes`` and ``fit`` answers for general demand (see :mod:`.general`).

add-nodes: the fewest copies k of a node type such that the whole demand
fits. Optimal: in the configuration model when it applies (a lower bound
from the configuration LP's bounds, the integer master at the counts near
it: :mod:`dralloc.planner.mixed.grow`), else bisection on k between 0 and
first-fit's answer with the joint model (more nodes never hurt the
optimum; a k the model could not decide within the time limit counts as
not enough, and the answer is then marked unproven). First-fit: doubling
then bisection on k with the scheduler simulation, from the optimum's lower
bound up (assumes more nodes never hurt first-fit)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from dralloc.audit.answers import Kube
from dralloc.errors import InputError
from dralloc.features import Features
from dralloc.io import ObjectSet
from dralloc.io.progress import Progress, counter
from dralloc.models import Node, ResourceClaim, ResourceSlice
from dralloc.planner.answer import Answer
from dralloc.planner.blocks.fit import block_fit
from dralloc.planner.general.parts import (
    DEFAULT_TIME_LIMIT,
    GeneralResult,
    everything_placed,
    solve_parts,
)
from dralloc.planner.mixed.fit import mixed_fit
from dralloc.planner.mixed.grow import NEVER, AddResult, fewest_added
from dralloc.planner.questions.grow import Grower, unit_from
from dralloc.planner.simulate.podsim import (
    NodeObjects,
    PodSimulator,
    PodsSim,
    probes,
    simulate_pods,
)
from dralloc.planner.view.pods import PodsDemand
from dralloc.solver.limits import limit_or_default
from dralloc.solver.proof import optimum

TIEBREAK_BUDGET = 400     # allocation calls per refused gang's search under every tie-break


def solve_general(objs: ObjectSet, demand: PodsDemand, features: Features, sim: PodSimulator, greedy: PodsSim,
                  time_limit: float | None = None, workers: int = 2, progress: Progress | None = None,
                  model: str = "auto") -> GeneralResult:
    """The optimum: the block-layout model when the demand and cluster have
    its shape (:mod:`.blocks`, one-device shared claims), else the
    configuration model when every device is node-local (:mod:`.mixed`),
    else the joint model part by part. ``model``: "auto", "blocks", "mixed"
    or "joint"."""
    if model == "auto" and (done := everything_placed(greedy, demand)) is not None:
        return done
    limit = time_limit if time_limit is not None else DEFAULT_TIME_LIMIT
    why: list[str] = []
    for name in ("blocks", "mixed"):
        if model not in ("auto", name):
            continue
        if name == "blocks" and demand.gangs:
            why.append("it does not place gangs")
            continue
        got = block_fit(objs, demand, features, sim, greedy, limit, workers) if name == "blocks" else \
            mixed_fit(objs, demand, features, sim, greedy, limit, workers, progress)
        if isinstance(got, GeneralResult):
            return got
        why.append(got)
    if model in ("blocks", "mixed"):
        raise InputError(f"the {'block' if model == 'blocks' else model} model does not apply: {why[-1]}")
    out = solve_parts(objs, demand, features, sim, greedy, time_limit, workers, progress)
    out.notes.extend(f"not the {m} model: {w}" for m, w in zip(("block", "configuration"), why, strict=False))
    return out


def general_fit(objs: ObjectSet, demand: PodsDemand, features: Features, nodes: Sequence[Node] | None = None,
                time_limit: float | None = None, workers: int = 2, mode: str = "replay",
                progress: Progress | None = None, model: str = "auto",
                policy: str = "first", tiebreak: int | None = None,
                per_node: NodeObjects | None = None) -> tuple[PodsSim, GeneralResult]:
    """The scheduler simulation (node ``policy``; ``tiebreak``: the calls
    each refused gang's search under every tie-break may make) and the
    optimum for ``demand`` on ``nodes``; ``per_node``: the nodes' objects and
    fingerprints, when the caller has them already."""
    nodes = list(nodes if nodes is not None else objs.nodes)
    tick = counter(progress, "first-fit: pods simulated")
    per_node = per_node if per_node is not None else NodeObjects(objs, probes(demand))
    greedy = simulate_pods(objs, demand, features, nodes, mode, tick, policy=policy, per_node=per_node,
                           tiebreak=tiebreak)
    sim = PodSimulator(objs, demand, features, nodes, mode, per_node=per_node)
    return greedy, solve_general(objs, demand, features, sim, greedy, time_limit, workers, progress, model)


def fit_answer(objs: ObjectSet, demand: PodsDemand, features: Features, time_limit: float | None,
               workers: int, progress: Progress | None = None, policy: str = "first",
               tiebreak: int = TIEBREAK_BUDGET, per_node: NodeObjects | None = None) -> Answer:
    greedy, opt = general_fit(objs, demand, features, None, time_limit, workers, progress=progress, policy=policy,
                              tiebreak=tiebreak, per_node=per_node)
    ff = sum(greedy.served.values())
    ans = Answer("fit", {"policy": policy, "mode": "replay", "pods": ff, "weighted": greedy.weighted(demand),
                         "perWorkload": greedy.served, "allocatorCalls": greedy.calls,
                         "simulationSeconds": round(greedy.seconds, 4)},
                 {**_opt(opt, time_limit), "pods": sum(opt.served.values()), "perWorkload": opt.served})
    ans.gap = ans.optimal["pods"] - ff
    ans.detail = {"demand": demand.total(), "nodes": len(objs.nodes), "model": opt.model, "parts": opt.parts,
                  **opt.detail, "placement": dict(sorted(opt.placed.items()))}
    ff_claims: dict[str, list[ResourceClaim]] = {}
    for p in greedy.placed:
        ff_claims.setdefault(p.node, []).extend(p.claims)
    by_node: dict[str | None, list[ResourceSlice]] = {}
    for s in objs.slices:
        by_node.setdefault(s.spec.node_name, []).append(s)
    ans.sources = {"objs": objs, "demand": demand, "firstFit": ff_claims, "optimal": opt.claims or ff_claims,
                   "slicesOf": lambda n: by_node.get(n.name, [])}
    if demand.gangs:
        ff_gangs, opt_gangs = greedy_gangs(greedy, demand), placed_gangs(opt.placed, demand)
        ans.first_fit["gangs"] = sum(ff_gangs.values())
        ans.optimal["gangs"] = sum(opt_gangs.values())
        ans.detail["gangs"] = {g: {"minCount": gang.min_count, "pods": gang.size, "firstFit": ff_gangs[g],
                                   "optimal": opt_gangs[g]} for g, gang in sorted(demand.gangs.items())}
        ans.detail.update(kubernetes_gangs(greedy, opt_gangs, policy))
    return ans


def kubernetes_gangs(greedy: PodsSim, opt_gangs: dict[str, bool], policy: str) -> dict[str, Any]:
    """What Kubernetes does with each gang the ``policy`` simulation refuses,
    under every tie-break (kube-scheduler picks among equally-scored nodes
    at random): refused under all of them (listed as refused only then),
    placed under some, or not decided within the search's budget."""
    words = {Kube.REFUSED: "refused", Kube.TIE_BREAK: "tieBreak", Kube.NOT_DECIDED: "notDecided",
             Kube.PLACED: "placed"}
    per = {g: r for g, r in sorted(greedy.tiebreak.items())}
    out: dict[str, Any] = {
        "gangsKubernetesRefusesThatFit": [g for g, r in per.items() if r.kube is Kube.REFUSED and opt_gangs.get(g)],
        "gangsKubernetesPlacesByTieBreak": [g for g, r in per.items() if r.kube in (Kube.TIE_BREAK, Kube.PLACED)],
        "gangsKubernetesNotDecided": [g for g, r in per.items() if r.kube is Kube.NOT_DECIDED],
    }
    if per:
        out["kubernetesTieBreak"] = {
            "note": f"gangs the {policy!r} simulation refuses, searched under every tie-break among "
                    "equally-scored nodes (the DRA score only; the pods queued before each gang placed by "
                    f"the {policy!r} policy)",
            "gangs": {g: {"answer": words[r.kube], "allocatorCalls": r.calls, **({"why": r.why} if r.why else {})}
                      for g, r in per.items()}}
    return out


def greedy_gangs(greedy: PodsSim, demand: PodsDemand) -> dict[str, bool]:
    """Per gang, whether the simulation placed it (at least its minimum)."""
    return {g: bool(greedy.gangs.get(g)) for g in demand.gangs}


def placed_gangs(placed: dict[str, str], demand: PodsDemand) -> dict[str, bool]:
    """Per gang, whether ``placed`` (replica key -> node) holds at least its minimum."""
    count: dict[str, int] = {}
    gang_of = {p.name: p.gang for p in demand.pods if p.gang is not None}
    for key in placed:
        g = gang_of.get(key.rpartition("#")[0])
        if g is not None:
            count[g] = count.get(g, 0) + 1
    return {g: count.get(g, 0) >= gang.needed and count.get(g, 0) > 0 for g, gang in demand.gangs.items()}


def _percent(part: int, whole: int) -> str:
    """``part / whole`` in percent, to 5 significant digits, from exact integers."""
    if whole <= 0:
        return "0%"
    return f"{float(Fraction(100 * part, whole)):.5g}%"


def _opt(res: GeneralResult, time_limit: float | None) -> dict[str, Any]:
    """The optimum's fields: proven when the answer meets its bound, and
    ``stopped`` only when a search did reach its time limit (:mod:`dralloc.solver.proof`)."""
    out: dict[str, Any] = {**optimum(res.value, res.bound, res.status, why=res.why,
                                     limit=limit_or_default(time_limit, "plan")),
                           "objective": res.value, "bound": res.bound, "boundGap": res.bound - res.value,
                           "boundGapPercent": _percent(res.bound - res.value, res.bound),
                           "solveSeconds": round(res.seconds, 4)}
    if res.notes:
        out["notes"] = res.notes
    return out


def _counted_answer(res: AddResult, ff_ok: Callable[[int], bool], name: str, total: int, limit: int,
                    policy: str, time_limit: float) -> Answer:
    """The configuration model's count with its proven lower bound, and
    first-fit's from that bound on (first-fit never beats the optimum)."""
    out = _counted_optimum(res, limit, time_limit)
    ff: int | None = None
    if res.nodes is not None:
        start = max(0, res.lower)
        ff = start if ff_ok(start) else _search(ff_ok, start, None, limit)
    elif res.lower != NEVER and not res.proven:
        ff = 0 if ff_ok(0) else _search(ff_ok, 0, None, limit)
    ans = Answer("add-nodes", {"policy": policy, "mode": "replay", "nodes": ff}, out,
                 detail={"template": name, "demand": total, "countsTried": res.counts})
    if ff is not None and res.nodes is not None:
        ans.gap = ff - res.nodes
    return ans


def _counted_optimum(res: AddResult, limit: int, time_limit: float) -> dict[str, Any]:
    """The optimum's fields: proven when the count meets the lower bound
    from the configuration LP's bounds; otherwise the bound and the gap."""
    lower = None if res.lower == NEVER else res.lower
    if res.nodes is not None:
        out = optimum(res.nodes, lower, "FEASIBLE", maximize=False, why="time limit" if res.stopped else None,
                      limit=time_limit, what="the search at a count")
    else:
        out = {"status": "INFEASIBLE" if res.proven else "UNKNOWN", "proven": res.proven}
    out = {"nodes": res.nodes, **out, "lowerBound": lower, "model": "mixed", "solveSeconds": round(res.seconds, 3)}
    undecided = f"not decided for k = {sorted(res.undecided)}" + (" (time limit)" if res.stopped else "")
    if res.nodes is None:
        out["note"] = ("no number of added nodes like the template holds the demand (the configuration LP's bound)"
                       if res.lower == NEVER else f"the demand does not fit even with {limit} added nodes"
                       if res.proven else f"no count up to {limit} was found to hold the demand; {undecided}")
    elif not res.proven:
        out["note"] = (f"not proven: {res.nodes} added nodes hold the demand, the configuration LP's bound says at "
                       f"least {lower}; {undecided}")
        out["boundGap"] = res.nodes - (lower or 0)
    return out


def _search(ok: Callable[[int], bool], lo: int, hi: int | None, limit: int) -> int | None:
    """Smallest k in (lo, hi] with ok(k), ok(hi) known true; without hi,
    lo + 1, lo + 2, lo + 4, ... up to ``limit`` first (the answer is
    usually near lo: few tries, each on a cluster not much larger)."""
    if hi is None:
        base, step = lo, 1
        hi = min(base + step, limit)
        while not ok(hi):
            if hi >= limit:
                return None
            lo, step = hi, step * 2
            hi = min(base + step, limit)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def add_nodes_answer(objs: ObjectSet, demand: PodsDemand, features: Features, template: str,
                     tmpl: ObjectSet | None = None, time_limit: float | None = None, workers: int = 2,
                     limit: int = 256, policy: str = "first", progress: Progress | None = None) -> Answer:
    """The fewest copies of ``template`` with which the whole demand fits,
    first-fit and optimal; ``progress`` is told each count tried."""
    unit = unit_from(objs, tmpl, template)
    grow = Grower(objs, unit)
    total = demand.total()
    tries = {"first-fit": 0, "optimal": 0}

    def trying(how: str, k: int) -> None:
        tries[how] += 1
        if progress is not None:
            progress(f"add-nodes ({how}): try", tries[how], note=f"does the demand fit with {k} added?")

    def ff_ok(k: int) -> bool:
        trying("first-fit", k)
        return not simulate_pods(grow.with_k(k), demand, features, policy=policy,
                                 progress=counter(progress, f"first-fit with {k} added: pods simulated")).unplaced

    limit_s = limit_or_default(time_limit, "plan")
    counted = fewest_added(grow.with_k(1), demand, features, unit.copy_name(0), limit, limit_s, workers, progress) \
        if len(unit.nodes) == 1 else "a block is added as copies"
    if not isinstance(counted, str):
        return _counted_answer(counted, ff_ok, unit.name, total, limit, policy, limit_s)
    ff = 0 if ff_ok(0) else _search(ff_ok, 0, None, limit)
    unproven: list[int] = []

    def opt_ok(k: int) -> bool:
        trying("optimal", k)
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
                 detail={"template": unit.name, "demand": total})
    if ff is not None and opt is not None:
        ans.gap = ff - opt
    return ans
