"""``fit`` for mixed demand at cluster scale: the configuration model.

Nodes of one type are one count, pods of one shape one count
(:mod:`.items`, :mod:`.nodetypes`); which pods one node holds together is
decided by the allocator's encoding (:mod:`.pricing`). A few nodes: one
CP-SAT model over every node (:mod:`.compact`), proven directly. Many:
column generation (:mod:`.colgen`) for the LP bound and an integer master
over the configurations found (:mod:`.master`); the gap is the integer
answer against the bound, proven when they meet. The answer is decoded
through the allocator and re-checked by the checker (:mod:`.decode`), and
is never below first-fit's."""

from __future__ import annotations

import math
import time

from dralloc.features import Features
from dralloc.io import ObjectSet
from dralloc.io.progress import Progress
from dralloc.models import ResourceSlice
from dralloc.planner.general.parts import GeneralResult
from dralloc.planner.mixed.colgen import MAX_ITERATIONS, generate
from dralloc.planner.mixed.compact import COMPACT_NODES, DIRECT_NODES, solve_compact
from dralloc.planner.mixed.decode import materialise, plan_nodes
from dralloc.planner.mixed.items import Items, read_items
from dralloc.planner.mixed.master import Master, Solution
from dralloc.planner.mixed.nodetypes import NodeType, node_types
from dralloc.planner.mixed.pricing import Pricer
from dralloc.planner.mixed.seed import first_fit_solution
from dralloc.planner.simulate.podsim import PodSimulator, PodsSim
from dralloc.planner.view.pods import PodsDemand


def applies(objs: ObjectSet, demand: PodsDemand) -> Items | str:
    """The demand counted, or why the configuration model does not apply."""
    shared = [s for s in objs.slices if not s.spec.node_name or s.spec.per_device_node_selection]
    if shared:
        return (f"ResourceSlice {shared[0].name} publishes devices for several nodes (no nodeName): the "
                "configuration model needs node-local devices")
    return read_items(demand)


class MixedFit:
    def __init__(self, objs: ObjectSet, demand: PodsDemand, features: Features, sim: PodSimulator,
                 items: Items, workers: int, progress: Progress | None) -> None:
        self.objs, self.demand, self.features, self.sim, self.items = objs, demand, features, sim, items
        self.workers, self.progress = workers, progress
        self.types = node_types(sim.nodes, sim.per_node, items, demand.shared)

    def slices(self, name: str) -> list[ResourceSlice]:
        return self.sim.per_node.get(next(n for t in self.types for n in t.nodes if n.name == name)).slices

    def pricers(self) -> dict[int, Pricer]:
        return {t.id: Pricer(t, self.items, self.sim.per_node.get(t.rep).slices, self.objs.classes,
                             self.sim.allocated, self.features) for t in self.types}

    def solve(self, time_limit: float, seed: Solution, out: GeneralResult,
              compact_nodes: int = COMPACT_NODES) -> tuple[list[NodeType], Solution]:
        """A few nodes: the compact model. Else column generation and the
        integer master; when that is not proven and the nodes are at most
        ``compact_nodes``, the compact model started from its answer."""
        t0 = time.perf_counter()
        nodes = sum(t.count for t in self.types)
        if nodes <= min(DIRECT_NODES, compact_nodes):
            return self._compact(time_limit, seed, out)
        types, sol = self._colgen(time_limit, seed, out)
        left = t0 + time_limit - time.perf_counter()
        if sol.status == "OPTIMAL" or nodes > compact_nodes or left < 1.0:
            return types, sol
        bound = out.bound
        ctypes, csol = self._compact(left, sol if sol.status == "FEASIBLE" else seed, out)
        out.bound = min(bound, out.bound)
        out.detail["method"] = "column generation, then compact"
        if csol.status in ("OPTIMAL", "FEASIBLE") and csol.value >= sol.value:
            csol.status = "OPTIMAL" if csol.value >= out.bound else "FEASIBLE"
            return ctypes, csol
        return types, sol

    def _compact(self, time_limit: float, start: Solution, out: GeneralResult) -> tuple[list[NodeType], Solution]:
        if self.progress is not None:
            self.progress("CP-SAT: the compact model", note=f"up to {time_limit:.0f} s")
        types, sol = solve_compact(self.items, self.types, self.slices, self.objs.classes, self.sim.allocated,
                                   self.features, time_limit, self.workers, start)
        out.detail.update(method="compact", nodeModels=len(types))
        out.bound = sol.bound if sol.status in ("OPTIMAL", "FEASIBLE") else self.items.total_weight()
        out.stopped_by(sol.why)
        out.notes.extend(sol.notes)
        return types, sol

    def _colgen(self, time_limit: float, seed: Solution, out: GeneralResult) -> tuple[list[NodeType], Solution]:
        t0 = time.perf_counter()
        pricers = self.pricers()
        master = Master(self.items, self.types)
        for c in seed.x:
            master.add(c)
        cg = generate(master, pricers, self.items, self.types, t0 + 0.5 * time_limit, self.progress)
        bound = math.floor(cg.bound)
        if self.progress is not None:
            self.progress("CP-SAT: the integer master", note=f"{len(master.columns)} configurations")
        sol = master.solve_ip(max(0.5, t0 + 0.8 * time_limit - time.perf_counter()), self.workers, seed, bound)
        out.bound = bound
        if sol.status in ("OPTIMAL", "FEASIBLE"):
            sol.status = "OPTIMAL" if sol.value >= bound else "FEASIBLE"
        if cg.ended in ("time limit", "pricing unproven", "iterations"):
            what = {"time limit": "stopped at its time share", "iterations": f"ended at {MAX_ITERATIONS} iterations",
                    "pricing unproven": "ended when a pricing search stopped at its time share"}[cg.ended]
            if cg.ended != "iterations":
                out.stopped_by("time limit")
            out.notes.append(f"column generation {what} after {cg.iterations} iterations, before pricing proved that "
                             "no configuration improves; the bound is the best Lagrangian bound found")
        out.stopped_by(sol.why)
        out.notes.extend(sol.notes)
        out.detail.update(method="column generation", nodeTypes=len(self.types), configurations=len(master.columns),
                          iterations=cg.iterations, lpValue=round(cg.lp, 3), lpConverged=cg.converged,
                          bound=str(cg.bound), pricingSeconds=round(cg.pricing_seconds, 3),
                          integerMasterSeconds=round(sol.seconds, 3))
        return self.types, sol


def mixed_fit(objs: ObjectSet, demand: PodsDemand, features: Features, sim: PodSimulator, greedy: PodsSim,
              time_limit: float, workers: int = 2, progress: Progress | None = None,
              compact_nodes: int = COMPACT_NODES) -> GeneralResult | str:
    """The configuration model's answer, or why it does not apply."""
    items = applies(objs, demand)
    if isinstance(items, str):
        return items
    t0 = time.perf_counter()
    fit = MixedFit(objs, demand, features, sim, items, workers, progress)
    seed = first_fit_solution(items, fit.types, greedy, demand)
    out = GeneralResult(model="mixed")
    types, sol = fit.solve(time_limit, seed, out, compact_nodes)
    out.parts = len(fit.types)
    if sol.status not in ("OPTIMAL", "FEASIBLE") or sol.value < seed.value:
        out.notes.append(f"the configuration model has no better answer ({sol.status}); first-fit's kept")
        return _first_fit(out, greedy, demand, seed, time.perf_counter() - t0)
    dec = materialise(plan_nodes(items, types, sol, demand), sim, features, items)
    if dec.error:
        out.notes.append(f"the allocator or the checker rejects the configuration model's answer ({dec.error}); "
                         "first-fit's kept")
        return _first_fit(out, greedy, demand, seed, time.perf_counter() - t0)
    out.status, out.value = sol.status, sol.value
    out.bound = max(out.bound, out.value)
    out.placed, out.claims = dec.placed, dec.claims
    out.served = _served(demand, dec.placed)
    out.detail["allocatorCalls"] = dec.allocator_calls
    out.seconds = time.perf_counter() - t0
    return out


def _served(demand: PodsDemand, placed: dict[str, str]) -> dict[str, int]:
    out = {p.name: 0 for p in demand.pods}
    for key in placed:
        name = key.rpartition("#")[0]
        out[name] = out.get(name, 0) + 1
    return out


def _first_fit(out: GeneralResult, greedy: PodsSim, demand: PodsDemand, seed: Solution,
               seconds: float) -> GeneralResult:
    out.status = "FEASIBLE"
    out.value = seed.value
    out.bound = max(out.bound, seed.value)
    if out.bound == out.value:
        out.status = "OPTIMAL"
    out.placed = {f"{p.pod}#{p.replica}": p.node for p in greedy.placed}
    out.claims = {}
    for p in greedy.placed:
        out.claims.setdefault(p.node, []).extend(p.claims)
    out.served = dict(greedy.served)
    out.seconds = seconds
    return out
