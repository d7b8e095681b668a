"""The compact model, for a few nodes: every node's own configuration model
(:class:`.pricing.Pricer` on the node, the allocator's encoding) in one
CP-SAT model with the demand's side (:class:`.master.DemandSide`). CP-SAT
proves its optimum directly -- no LP bound, no configurations to generate.
Nodes of one type are interchangeable: their configurations are ordered
(symmetry)."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence

from ortools.sat.python import cp_model

from dralloc.features import Features
from dralloc.models import ResourceClaim, ResourceSlice
from dralloc.planner.mixed.items import Items
from dralloc.planner.mixed.master import DemandSide, Solution
from dralloc.planner.mixed.nodetypes import NodeType
from dralloc.planner.mixed.pricing import Pricer
from dralloc.solver.search import deterministic, run

DIRECT_NODES = 4          # this few nodes: the compact model straight away
COMPACT_NODES = 12        # this few: the compact model when column generation proves nothing


def single_types(types: Sequence[NodeType]) -> list[NodeType]:
    """One type per node (same ids as the nodes' positions)."""
    out: list[NodeType] = []
    for t in types:
        for n in t.nodes:
            out.append(NodeType(len(out), [n], {n.name: t.pools[n.name]}, t.visible))
    return out


def solve_compact(items: Items, types: list[NodeType], slices_of: Callable[[str], list[ResourceSlice]],
                  classes: Sequence[object], allocated: Sequence[ResourceClaim], features: Features,
                  time_limit: float, workers: int, hint: Solution | None = None) -> tuple[list[NodeType], Solution]:
    """The proven optimum over ``types`` (which must hold few nodes)."""
    t0 = time.perf_counter()
    m = cp_model.CpModel()
    singles = single_types(types)
    by_type = {t.id: [s for s in singles if s.rep.name in {n.name for n in t.nodes}] for t in types}
    pricers = [Pricer(s, items, slices_of(s.rep.name), classes, allocated, features, model=m) for s in singles]
    supply = {sh: sum(e for pr in pricers for e in pr.pods.get(sh, [])) for sh in
              sorted({g.shape for g in items.groups} | {s for t in items.gangs for (s, _), _n in t.slots
                                                       if s != items.free_shape})}
    side = DemandSide(m.new_int_var, m.add, items, supply)
    for b, bt in enumerate(items.bundles):
        acts = [bd.active for pr in pricers for bd in pr.bundles if bd.b == b]
        if acts:
            m.add(sum(acts) <= len(bt.groups))
    bundle_value = sum(pr.items.bundles[bd.b].slots[i][0][1] * e for pr in pricers for bd in pr.bundles
                       for i, e in enumerate(bd.members))
    _order_identical(m, pricers, by_type)
    m.maximize(side.objective + bundle_value)
    if hint is not None:
        side.hint(m, hint)
        _hint_nodes(types, by_type, {pr.t.id: pr for pr in pricers}, hint)
    solver = deterministic(m, workers, max(0.1, time_limit))
    ran = run(solver, m)
    if not ran.found:
        return singles, Solution(status=ran.name, seconds=time.perf_counter() - t0, why=ran.why, notes=ran.notes)
    out = side.read(solver)
    for pr in pricers:
        c = pr.config(solver)
        if c.shapes or c.bundles:
            out.x[c] = 1
    out.value, out.bound = round(solver.objective_value), round(solver.best_objective_bound)
    out.status, out.why, out.notes, out.seconds = ran.name, ran.why, ran.notes, time.perf_counter() - t0
    return singles, out


def _order_identical(m: cp_model.CpModel, pricers: list[Pricer], by_type: dict[int, list[NodeType]]) -> None:
    """Identical nodes hold configurations in decreasing order of a key."""
    index = {pr.t.id: pr for pr in pricers}
    for members in by_type.values():
        prs = [index[s.id] for s in members]
        for a, b in itertools.pairwise(prs):
            m.add(_key(a) >= _key(b))


def _key(pr: Pricer) -> cp_model.LinearExprT:
    weight = 1
    terms: list[cp_model.LinearExprT] = []
    for s in sorted(pr.pods):
        if weight > 2**40:   # any key orders identical nodes validly; keep it far from int64
            break
        terms.extend(weight * e for e in pr.pods[s])
        weight *= max(2, pr.caps.get(s, 1) + 1)
    if weight <= 2**40:
        terms.extend(weight * bd.active for bd in pr.bundles)
    return sum(terms)


def _hint_nodes(types: Sequence[NodeType], by_type: dict[int, list[NodeType]], pricers: dict[int, Pricer],
                hint: Solution) -> None:
    """Configurations of ``hint`` (per type) on the type's nodes in name order."""
    for t in types:
        nodes = iter(by_type[t.id])
        for c, n in sorted(((c, n) for c, n in hint.x.items() if c.type == t.id),
                           key=lambda cn: (cn[0].shapes, cn[0].bundles)):
            for _ in range(n):
                single = next(nodes, None)
                if single is not None:
                    pricers[single.id].hint(c)
