"""Independent parts solved apart: demand groups and unit types form a
bipartite graph (a group touches a unit type when one of its layouts holds a
kind the group can use); each connected component is its own CP-SAT model,
and components run in a worker pool when there are several."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import networkx as nx

from dralloc.planner.pattern.model import Group, PatternModel, PatternResult, Supply


def components(supplies: Sequence[Supply], groups: Sequence[Group]) -> list[tuple[list[int], list[int]]]:
    """(supply indices, group indices) per component, deterministic order."""
    g: nx.Graph = nx.Graph()
    g.add_nodes_from(("s", i) for i in range(len(supplies)))
    g.add_nodes_from(("g", i) for i in range(len(groups)))
    for si, s in enumerate(supplies):
        kinds = {k for lay in s.layouts for k, _ in lay.kinds}
        for gi, grp in enumerate(groups):
            if kinds & grp.kinds:
                g.add_edge(("s", si), ("g", gi))
    out = []
    for comp in nx.connected_components(g):
        out.append((sorted(i for t, i in comp if t == "s"), sorted(i for t, i in comp if t == "g")))
    return sorted(out, key=lambda c: (c[1][:1], c[0][:1]))


def solve_split(supplies: Sequence[Supply], groups: Sequence[Group], goal: Callable[[PatternModel], None],
                time_limit: float | None = None, workers: int = 2) -> PatternResult:
    """Solve each component with ``goal`` (e.g. ``PatternModel.fit``) and
    merge: objectives and bounds add up, the status is the weakest."""
    merged = PatternResult("OPTIMAL", 0, 0, [0] * len(groups), [{} for _ in supplies])
    rank = {"OPTIMAL": 0, "FEASIBLE": 1, "UNKNOWN": 2, "MODEL_INVALID": 3, "INFEASIBLE": 4}
    for sidx, gidx in components(supplies, groups):
        model = PatternModel([supplies[i] for i in sidx], [groups[i] for i in gidx])
        goal(model)
        res = model.solve(time_limit, workers)
        merged.wall_time += res.wall_time
        merged.notes.extend(res.notes)
        if res.why is not None and merged.why != "time limit":
            merged.why = res.why
        if rank.get(res.status, 3) > rank.get(merged.status, 3):
            merged.status = res.status
        if res.objective is None or merged.objective is None or merged.bound is None:
            merged.objective = merged.bound = None
            continue
        merged.objective += res.objective
        merged.bound += res.bound or 0
        for j, gi in enumerate(gidx):
            merged.served[gi] = res.served[j]
        for j, si in enumerate(sidx):
            merged.usage[si] = res.usage[j]
        for (gj, k), v in res.assigned.items():
            merged.assigned[gidx[gj], k] = v
    return merged
