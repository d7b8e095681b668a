"""The planner's questions, each answered by first-fit (what Kubernetes would
do) and by the optimum (what is possible), side by side with the gap."""

from __future__ import annotations

from typing import Any

from dralloc.errors import InputError
from dralloc.io.progress import Progress
from dralloc.planner.answer import Answer
from dralloc.planner.pattern.layouts import enumerate_layouts
from dralloc.planner.pattern.model import Group, PatternModel, PatternResult, Supply
from dralloc.planner.pattern.structure import solve_split
from dralloc.planner.simulate.firstfit import SimResult, simulate
from dralloc.planner.view.cluster import Cluster, NodeModel, Unit
from dralloc.solver.limits import limit_or_default
from dralloc.solver.proof import meets, optimum


def groups(cluster: Cluster) -> list[Group]:
    """Demand grouped by (claim type, priority), weighted by the objective
    (``priority``: lexicographically)."""
    total: dict[tuple[int, int], int] = {}
    weight: dict[tuple[int, int], int] = {}
    for w in cluster.demand.workloads:
        total[w.type, w.priority] = total.get((w.type, w.priority), 0) + w.replicas
        weight[w.type, w.priority] = cluster.demand.weight(w)     # one claim type and priority: one weight
    out = []
    for (t, p), n in sorted(total.items(), key=lambda kv: (-kv[0][1], kv[0][0])):
        kinds = frozenset(k for k, (mask, _) in enumerate(cluster.kinds) if t in mask)
        out.append(Group(f"{cluster.demand.types[t].key}@{p}", kinds, n, weight[t, p]))
    return out


def supplies(cluster: Cluster, useful: frozenset[int], units: list[int] | None = None,
             added: bool = False) -> list[Supply]:
    counts: dict[int, int] = {}
    for ui in units if units is not None else range(len(cluster.units)):
        t = cluster.units[ui].type
        counts[t] = counts.get(t, 0) + 1
    out = []
    for t in sorted(counts):
        layouts = tuple(enumerate_layouts(cluster.types[t], useful))
        if layouts:
            out.append(Supply(f"type{t}", layouts, counts[t], added))
    return out


def _useful(gs: list[Group]) -> frozenset[int]:
    return frozenset(k for g in gs for k in g.kinds)


def _opt(res: PatternResult, time_limit: float | None = None, maximize: bool = True) -> dict[str, Any]:
    """Proven when the objective meets CP-SAT's bound; ``stopped`` only when
    the search reached its time limit (:mod:`dralloc.solver.proof`)."""
    proven = res.proven or (res.objective is not None and meets(res.objective, res.bound, maximize))
    out = {**optimum(res.objective, res.bound, res.status, maximize, res.why, limit_or_default(time_limit, "plan")),
           "objective": res.objective, "bound": res.bound, "solveSeconds": round(res.wall_time, 4)}
    out.update(status="OPTIMAL" if proven else out["status"], proven=proven)
    if res.notes:   # a search retried with one worker says so
        out["notes"] = list(res.notes)
    return out


def fit(cluster: Cluster, policy: str = "first", time_limit: float | None = None, workers: int = 2,
        progress: Progress | None = None) -> Answer:
    """How many pods of the demand fit (weighted by priority)."""
    gs = groups(cluster)
    _step(progress, "first-fit: simulating the scheduler")
    sim = simulate(cluster, policy, record=False)
    ff = sum(sim.served.values())
    _step(progress, "CP-SAT: the pattern model")
    res = solve_split(supplies(cluster, _useful(gs)), gs, PatternModel.fit, time_limit, workers)
    served = sum(res.served) if res.served else 0
    ff_weighted = _weighted(cluster, sim)
    ans = Answer("fit", {"policy": policy, "pods": ff, "weighted": ff_weighted, "perWorkload": sim.served},
                 {**_opt(res, time_limit), "pods": served,
                  "perGroup": {g.name: s for g, s in zip(gs, res.served, strict=False)},
                  "perWorkload": per_workload(cluster, dict(zip(gs, res.served, strict=False)))})
    if res.objective is None or res.objective < ff_weighted:   # never worse than first-fit
        ans.optimal.update({"pods": ff, "objective": ff_weighted, "perWorkload": sim.served,
                            "note": "first-fit's answer (solver had none better)"})
        if res.bound is not None and res.bound <= ff_weighted:   # the bound proves first-fit's answer optimal
            ans.optimal.update({"status": "OPTIMAL", "proven": True})
    ans.gap = ans.optimal["pods"] - ff
    ans.detail = {"demand": cluster.demand.total(), "units": len(cluster.units), "unitTypes": len(cluster.types),
                  "nodes": len(cluster.nodes)}
    return ans


def per_workload(cluster: Cluster, served: dict[Group, int]) -> dict[str, int]:
    """A group's pods served, dealt to its workloads in queue order (pods of
    one claim type and priority are interchangeable: any split is the same
    answer; this one is stated)."""
    left = {g.name: n for g, n in served.items()}
    out = {}
    for w in cluster.demand.queue():
        key = f"{cluster.demand.types[w.type].key}@{w.priority}"
        out[w.name] = min(w.replicas, left.get(key, 0))
        left[key] = left.get(key, 0) - out[w.name]
    return out


def _step(progress: Progress | None, step: str) -> None:
    if progress is not None:
        progress(step)


def _weighted(cluster: Cluster, sim: SimResult) -> int:
    return sum(cluster.demand.weight(w) * sim.served.get(w.name, 0) for w in cluster.demand.workloads)


def with_added(cluster: Cluster, template: int, k: int, keep: bool = True) -> Cluster:
    """The cluster (without node ``template`` unless ``keep``) plus ``k``
    copies of it (named ``<template>-added-NNNN``, placed in name order)."""
    out = Cluster(cluster.demand, cluster.kinds, cluster.types)
    src = cluster.nodes[template]
    entries: list[tuple[str, NodeModel, str]] = [(n.name, n, "") for i, n in enumerate(cluster.nodes)
                                             if keep or i != template]
    entries += [(f"{src.name}-added-{j:04d}", src, f"{src.name}-added-{j:04d}") for j in range(k)]
    for name, node, suffix in sorted(entries, key=lambda e: e[0].encode()):
        first = len(out.units)
        for ui in node.units:
            u = cluster.units[ui]
            ids = [f"{d}@{suffix}" for d in u.device_ids] if suffix else u.device_ids
            out.units.append(Unit(u.type, len(out.nodes), u.label, ids, u.total, list(u.used_devices),
                                  list(u.used_labels), list(u.used_uses)))
        offset = {ui: first + i for i, ui in enumerate(node.units)}
        out.nodes.append(NodeModel(name, list(range(first, len(out.units))),
                                   [(offset[ui], di) for ui, di in node.order]))
    return out


def _ff_added(cluster: Cluster, template: int, policy: str, limit: int, keep: bool,
              progress: Progress | None = None) -> int | None:
    """Fewest copies with which first-fit places every pod: doubling, then
    bisection (assumes more nodes never hurt first-fit)."""
    tries = [0]

    def ok(k: int) -> bool:
        tries[0] += 1
        if progress is not None:
            progress("add-nodes (first-fit): try", tries[0], note=f"does the demand fit with {k} added?")
        sim = simulate(with_added(cluster, template, k, keep), policy, record=False)
        return not sim.unplaced
    hi = 1
    if ok(0):
        return 0
    while not ok(hi):
        if hi >= limit:
            return None
        hi = min(hi * 2, limit)
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def add_nodes(cluster: Cluster, template: str, policy: str = "first", limit: int = 10000,
              time_limit: float | None = None, workers: int = 2, keep: bool = True,
              progress: Progress | None = None) -> Answer:
    """Fewest nodes like ``template`` to add so that the whole demand fits.
    The template node itself stays in the cluster unless ``keep`` is False
    (a template read from its own file describes a node type, not a node)."""
    idx = next((i for i, n in enumerate(cluster.nodes) if n.name == template), None)
    if idx is None:
        raise InputError(f"add-nodes: template node {template!r} not found among the nodes")
    gs = groups(cluster)
    useful = _useful(gs)
    existing = [ui for i, n in enumerate(cluster.nodes) if keep or i != idx for ui in n.units]
    sup = supplies(cluster, useful, existing) + supplies(cluster, useful, cluster.nodes[idx].units, added=True)
    model = PatternModel(sup, gs, max_added=limit)
    model.fewest_added()
    _step(progress, "CP-SAT: the pattern model")
    res = model.solve(time_limit, workers)
    ff = _ff_added(cluster, idx, policy, limit, keep, progress)
    opt = {**_opt(res, time_limit, maximize=False), "nodes": res.added_nodes if res.objective is not None else None}
    if res.status == "INFEASIBLE":   # proven: no count up to the limit serves the demand
        opt.update(proven=True, note=f"the demand does not fit even with {limit} added nodes")
    ans = Answer("add-nodes", {"policy": policy, "nodes": ff}, opt, detail={"template": template})
    if ff is not None and opt["nodes"] is not None:
        ans.gap = ff - opt["nodes"]
    return ans


def layout(cluster: Cluster, policy: str = "first", time_limit: float | None = None, workers: int = 2,
           progress: Progress | None = None) -> Answer:
    """Which partitions on which devices serve the whole demand with the
    fewest devices (units)."""
    gs = groups(cluster)
    useful = _useful(gs)
    sup = supplies(cluster, useful)
    _step(progress, "CP-SAT: the pattern model")
    res = solve_split(sup, gs, PatternModel.fewest_units, time_limit, workers)
    _step(progress, "first-fit: simulating the scheduler")
    sim = simulate(cluster, policy)
    ff = {"policy": policy, "units": sim.units_used, "allPlaced": not sim.unplaced}
    opt = {**_opt(res, time_limit, maximize=False), "units": res.objective}
    ans = Answer("layout", ff, opt)
    if res.objective is not None:
        ans.detail = {"assignment": assign_layouts(cluster, sup, res)}
        if not sim.unplaced:
            ans.gap = sim.units_used - res.objective
    else:
        opt["note"] = "the demand does not fit on these devices"
    return ans


def assign_layouts(cluster: Cluster, sup: list[Supply], res: PatternResult) -> list[dict[str, Any]]:
    """Concrete units (in node-name order) for the chosen layouts, with the
    devices to create on each: a layout's partitions beyond what the demand
    uses are left out."""
    need: dict[int, int] = {}
    for (_, k), n in res.assigned.items():
        need[k] = need.get(k, 0) + n
    out = []
    for s, use in zip(sup, res.usage, strict=True):
        it = iter([u for u in cluster.units if u.type == int(s.name[4:])])
        for li, n in sorted(use.items()):
            lay = s.layouts[li]
            for _ in range(n):
                unit = next(it)
                ut = cluster.types[unit.type]
                picked = []
                for i in lay.witness:
                    k = ut.devices[i][1]
                    if need.get(k, 0) > 0:
                        need[k] -= 1
                        picked.append(i)
                parts: dict[str, int] = {}
                for i in picked:
                    label = cluster.kinds[ut.devices[i][1]][1]
                    parts[label] = parts.get(label, 0) + 1
                out.append({"node": cluster.nodes[unit.node].name, "unit": unit.label,
                            "partitions": parts, "devices": [unit.device_ids[i] for i in picked]})
    return out
