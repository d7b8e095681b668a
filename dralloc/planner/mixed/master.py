"""The master over node configurations.

Variables: ``x[c]`` nodes using configuration c (at most the type's node
count in all), ``y[g]`` pods of group g placed, ``z[G]`` gangs of type G
placed with ``q[G,i]`` pods of its slot i (at most the slot's size per gang,
at least the gang's minimum per gang in all). Rows:

* supply, per shape: pods of the shape placed (groups and gangs) <= the
  pods the chosen configurations hold (dual: the shape's price);
* per node type: configurations <= nodes;
* per bundle type: bundles placed <= bundles asked for.

Objective: pods placed, weighted by priority (bundles' pods through their
configurations). The LP (GLOP) gives prices for pricing; the integer master
(CP-SAT, exact integers) gives the answer over the configurations found."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ortools.linear_solver import pywraplp
from ortools.sat.python import cp_model

from dralloc.errors import DrallocError
from dralloc.planner.mixed.items import Items
from dralloc.planner.mixed.nodetypes import NodeType
from dralloc.planner.mixed.pricing import Config
from dralloc.solver.search import deterministic, run


@dataclass
class LpResult:
    value: float
    shape: dict[int, float]
    bundle: dict[int, float]
    node: dict[int, float]


@dataclass
class Solution:
    """An integer answer of the master (or of the compact model)."""

    value: int = 0
    x: dict[Config, int] = field(default_factory=dict)
    y: list[int] = field(default_factory=list)
    z: list[int] = field(default_factory=list)
    q: list[list[int]] = field(default_factory=list)
    status: str = "OPTIMAL"
    bound: int = 0
    seconds: float = 0.0
    why: str | None = None                  # why the search ended unfinished (search.Ran.why)
    notes: list[str] = field(default_factory=list)


class Master:
    def __init__(self, items: Items, types: list[NodeType]) -> None:
        self.items, self.types = items, types
        self.columns: list[Config] = []
        self._seen: set[Config] = set()
        self.shapes = sorted({g.shape for g in items.groups}
                             | {s for t in items.gangs for (s, _), _n in t.slots if s != items.free_shape})

    def add(self, c: Config) -> bool:
        if c in self._seen or (not c.shapes and not c.bundles):
            return False
        self._seen.add(c)
        self.columns.append(c)
        return True

    # ----- LP
    def solve_lp(self) -> LpResult:
        s = pywraplp.Solver.CreateSolver("GLOP")
        if s is None:
            raise DrallocError("OR-Tools has no GLOP linear solver")
        it = self.items
        x = {c: s.NumVar(0, self.types[c.type].count, f"x{i}") for i, c in enumerate(self.columns)}
        side = DemandSide(s.NumVar, s.Add, it, self._supply(x))
        node = {t.id: s.Add(sum(v for c, v in x.items() if c.type == t.id) <= t.count) for t in self.types}
        bundle = {b: s.Add(e <= len(it.bundles[b].groups)) for b, e in self._bundles(x).items()}
        s.Maximize(side.objective + sum(c.value(it) * v for c, v in x.items() if c.bundles))
        if s.Solve() != pywraplp.Solver.OPTIMAL:
            raise DrallocError("the master LP has no optimal solution (a dralloc bug)")
        return LpResult(s.Objective().Value(), {k: max(0.0, c.dual_value()) for k, c in side.rows.items()},
                        {k: max(0.0, c.dual_value()) for k, c in bundle.items()},
                        {k: max(0.0, c.dual_value()) for k, c in node.items()})

    def _supply(self, x: dict[Config, Any]) -> dict[int, Any]:
        return {sh: sum(c.pods(sh) * v for c, v in x.items() if c.pods(sh)) for sh in self.shapes}

    def _bundles(self, x: dict[Config, Any]) -> dict[int, Any]:
        out = {}
        for b in range(len(self.items.bundles)):
            cols = [c.bundle_count(b) * v for c, v in x.items() if c.bundle_count(b)]
            if cols:
                out[b] = sum(cols)
        return out

    # ----- integer master
    def solve_ip(self, time_limit: float, workers: int, hint: Solution | None = None,
                 target: int | None = None) -> Solution:
        """The best integer answer over the configurations found; the search
        stops early once it reaches ``target`` (a proven bound: nothing
        better exists). A hint that reaches the target already is the
        answer: no search."""
        t0 = time.perf_counter()
        if hint is not None and target is not None and hint.value >= target:
            return replace(hint, status="OPTIMAL", bound=target, seconds=time.perf_counter() - t0)
        m = cp_model.CpModel()
        x = {c: m.new_int_var(0, self.types[c.type].count, f"x{i}") for i, c in enumerate(self.columns)}
        for t in self.types:
            cols = [v for c, v in x.items() if c.type == t.id]
            if cols:
                m.add(sum(cols) <= t.count)
        for b, e in self._bundles(x).items():
            m.add(e <= len(self.items.bundles[b].groups))
        side = DemandSide(m.new_int_var, m.add, self.items, self._supply(x))
        m.maximize(side.objective + sum(c.value(self.items) * v for c, v in x.items() if c.bundles))
        if hint is not None:
            for c, v in x.items():
                m.add_hint(v, hint.x.get(c, 0))
            side.hint(m, hint)
        solver = deterministic(m, workers, max(0.1, time_limit))
        # an answer meeting the bound is optimal over all configurations: stop there
        ran = run(solver, m, _StopAt(target) if target is not None else None)
        if not ran.found:
            return Solution(status=ran.name, seconds=time.perf_counter() - t0, why=ran.why, notes=ran.notes)
        out = side.read(solver)
        out.x = {c: int(solver.value(v)) for c, v in x.items() if solver.value(v)}
        out.value = round(solver.objective_value)
        out.bound = round(solver.best_objective_bound)
        out.status, out.why, out.notes = ran.name, ran.why, ran.notes
        out.seconds = time.perf_counter() - t0
        return out


class _StopAt(cp_model.CpSolverSolutionCallback):
    def __init__(self, target: int) -> None:
        super().__init__()
        self.target = target

        self.stopped = False

    def on_solution_callback(self) -> None:
        if self.objective_value >= self.target:
            self.stopped = True
            self.stop_search()


class DemandSide:
    """The demand's variables, given each shape's supply: groups, gangs
    (all-or-nothing at their minimum) and their objective. ``var(lb, ub,
    name)`` and ``add(constraint)`` are the model's (GLOP's continuous
    variables for the LP, CP-SAT's integers otherwise); ``rows`` holds the
    supply rows (their duals are the shapes' prices)."""

    def __init__(self, var: Callable[..., Any], add: Callable[[Any], Any], items: Items,
                 supply: dict[int, Any]) -> None:
        self.items, self.add = items, add
        self.y = [var(0, g.count, f"y{i}") for i, g in enumerate(items.groups)]
        self.z = [var(0, len(t.gangs), f"z{i}") for i, t in enumerate(items.gangs)]
        self.q = [[var(0, n * len(t.gangs), f"q{i}_{j}") for j, (_, n) in enumerate(t.slots)]
                  for i, t in enumerate(items.gangs)]
        for t, zt, qt in zip(items.gangs, self.z, self.q, strict=True):
            for (_, n), v in zip(t.slots, qt, strict=True):
                add(v <= n * zt)
            add(sum(qt) >= t.needed * zt)
        self.rows = {}
        for sh, held in supply.items():
            used = [v for g, v in zip(items.groups, self.y, strict=True) if g.shape == sh]
            used += [v for t, qt in zip(items.gangs, self.q, strict=True)
                     for ((s2, _), _n), v in zip(t.slots, qt, strict=True) if s2 == sh]
            self.rows[sh] = add(sum(used) - held <= 0)
        self.objective: Any = (
            sum(g.weight * v for g, v in zip(items.groups, self.y, strict=True))
            + sum(w * v for t, qt in zip(items.gangs, self.q, strict=True)
                  for ((_, w), _n), v in zip(t.slots, qt, strict=True)))

    def hint(self, m: cp_model.CpModel, sol: Solution) -> None:
        for v, val in zip(self.y, sol.y, strict=False):
            m.add_hint(v, val)
        for v, val in zip(self.z, sol.z, strict=False):
            m.add_hint(v, val)
        for qt, vals in zip(self.q, sol.q, strict=False):
            for v, val in zip(qt, vals, strict=False):
                m.add_hint(v, val)

    def read(self, solver: cp_model.CpSolver) -> Solution:
        return Solution(y=[int(solver.value(v)) for v in self.y], z=[int(solver.value(v)) for v in self.z],
                        q=[[int(solver.value(v)) for v in qt] for qt in self.q])
