"""First-fit's answer in the master's terms: each node's configuration (a
column the master starts from) and the counts placed, so that the integer
master can always take first-fit's answer (the optimum is never below it)."""

from __future__ import annotations

from dralloc.planner.mixed.items import Items
from dralloc.planner.mixed.master import Solution
from dralloc.planner.mixed.nodetypes import NodeType
from dralloc.planner.mixed.pricing import Config
from dralloc.planner.simulate.podsim import PodsSim
from dralloc.planner.view.pods import PodsDemand


def _units(items: Items) -> tuple[dict[str, str], dict[str, int]]:
    """pod -> its gang or bundle unit; bundle unit -> bundle type."""
    unit = {p.name: u for u, pods in items.members.items() for p in pods}
    bundle = {u: b for b, bt in enumerate(items.bundles) for u, _ in bt.groups}
    return unit, bundle


def first_fit_solution(items: Items, types: list[NodeType], sim: PodsSim, demand: PodsDemand) -> Solution:
    """The configurations and counts of the simulation's placements."""
    unit, bundle = _units(items)
    weights = {p.name: demand.weight(p) for p in demand.pods}
    type_of = {n.name: t.id for t in types for n in t.nodes}
    shapes: dict[str, dict[int, int]] = {}
    bundles: dict[str, dict[str, dict[tuple[int, int], int]]] = {}
    for pl in sim.placed:
        s = items.pod_shape[pl.pod]
        u = unit.get(pl.pod)
        if u is not None and u in bundle:
            slots = bundles.setdefault(pl.node, {}).setdefault(u, {})
            slots[(s, weights[pl.pod])] = slots.get((s, weights[pl.pod]), 0) + 1
        elif s != items.free_shape:
            shapes.setdefault(pl.node, {})[s] = shapes.setdefault(pl.node, {}).get(s, 0) + 1
    out = Solution(status="FEASIBLE")
    for node in sorted(set(shapes) | set(bundles)):
        if node not in type_of:
            continue
        bs = tuple(sorted((bundle[u], tuple(got.get(slot, 0) for slot, _n in items.bundles[bundle[u]].slots))
                          for u, got in bundles.get(node, {}).items()))
        c = Config(type_of[node], tuple(sorted(shapes.get(node, {}).items())), bs)
        out.x[c] = out.x.get(c, 0) + 1
    out.y = [sum(sim.served.get(p.name, 0) for p in g.pods) for g in items.groups]
    for t in items.gangs:
        placed = [g for g in t.gangs if sim.gangs.get(g)]
        out.z.append(len(placed))
        q = []
        for (s, w), _n in t.slots:
            q.append(sum(sim.served.get(p.name, 0) for g in placed for p in items.members[g]
                         if items.pod_shape[p.name] == s and weights[p.name] == w))
        out.q.append(q)
    out.value = sim.weighted(demand)
    return out
