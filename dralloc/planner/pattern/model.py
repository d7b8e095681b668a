"""The pattern (cutting-stock) model, solved by CP-SAT.

Identical units are one type with a count; ``x[u, L]`` is how many units of
type ``u`` use layout ``L``; ``y[g, k]`` how many pods of demand group ``g``
get a device of kind ``k``. Supply per kind is the sum of layout counts, so
the model size depends on the number of distinct unit types, layouts and
demand groups -- not on nodes, GPUs or pods. Every number is an integer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from dralloc.encoders.linear import require_int64
from dralloc.planner.pattern.layouts import Layout
from dralloc.solver.limits import limit_or_default
from dralloc.solver.search import run, tie_break


@dataclass(frozen=True)
class Group:
    """Pods asking for one device of any of ``kinds``."""

    name: str
    kinds: frozenset[int]
    demand: int
    weight: int = 1


@dataclass(frozen=True)
class Supply:
    """Units of one type: at most ``count`` of them (or ``per_node`` for each
    added node, when ``added`` is set), each using one of ``layouts``."""

    name: str
    layouts: tuple[Layout, ...]
    count: int = 0
    added: bool = False


@dataclass
class PatternResult:
    status: str                     # OPTIMAL, FEASIBLE, INFEASIBLE, UNKNOWN
    objective: int | None = None
    bound: int | None = None
    served: list[int] = field(default_factory=list)                   # per group
    usage: list[dict[int, int]] = field(default_factory=list)         # per supply: layout index -> units
    assigned: dict[tuple[int, int], int] = field(default_factory=dict)  # (group, kind) -> pods
    added_nodes: int = 0
    wall_time: float = 0.0
    why: str | None = None          # why the search ended unfinished (search.Ran.why)
    notes: list[str] = field(default_factory=list)

    @property
    def proven(self) -> bool:
        return self.status == "OPTIMAL"


def _check_range(supplies: Sequence[Supply], groups: Sequence[Group], max_added: int) -> None:
    """Every bound and the weighted objective within CP-SAT's integers, or a
    clear error naming the number (replica counts come from annotations)."""
    require_int64(max(1, max_added) * sum(s.count for s in supplies), "the units of the pattern model")
    require_int64(sum(g.demand for g in groups), "the pods of the demand")
    require_int64(sum(g.weight * g.demand for g in groups),
                  "the priority-weighted pods of the demand (each priority level outweighs all lower ones)")


class PatternModel:
    """fit (max weighted pods), add-nodes (fewest added nodes), layout (fewest
    units) over the same variables."""

    def __init__(self, supplies: Sequence[Supply], groups: Sequence[Group], max_added: int = 0) -> None:
        self.supplies = list(supplies)
        self.groups = list(groups)
        _check_range(self.supplies, self.groups, max_added)
        self.objective: cp_model.LinearExprT | None = None
        self.maximize = True
        m = self.model = cp_model.CpModel()
        self.n_added = m.new_int_var(0, max_added, "added_nodes")
        self.x: list[list[cp_model.IntVar]] = []
        for si, s in enumerate(self.supplies):
            hi = s.count * (max_added if s.added else 1)
            row = [m.new_int_var(0, hi, f"x{si}_{li}") for li in range(len(s.layouts))]
            cap = s.count * self.n_added if s.added else s.count
            m.add(sum(row) <= cap)
            self.x.append(row)
        self.y: dict[tuple[int, int], cp_model.IntVar] = {}
        self.s: list[cp_model.IntVar] = []
        for gi, g in enumerate(self.groups):
            for k in sorted(g.kinds):
                self.y[gi, k] = m.new_int_var(0, g.demand, f"y{gi}_{k}")
            served = m.new_int_var(0, g.demand, f"s{gi}")
            m.add(served == sum(self.y[gi, k] for k in sorted(g.kinds)))
            self.s.append(served)
        for k in sorted({k for g in self.groups for k in g.kinds}):
            supply = [layout.count(k) * self.x[si][li] for si, s in enumerate(self.supplies)
                      for li, layout in enumerate(s.layouts) if layout.count(k)]
            m.add(sum(self.y[gi, k] for gi, g in enumerate(self.groups) if k in g.kinds) <= sum(supply))

    def units_used(self) -> cp_model.LinearExprT:
        return sum(v for row in self.x for v in row)

    def _objective(self, expr: cp_model.LinearExprT, maximize: bool) -> None:
        self.objective, self.maximize = expr, maximize
        (self.model.maximize if maximize else self.model.minimize)(expr)

    def fit(self) -> None:
        self._objective(sum(g.weight * s for g, s in zip(self.groups, self.s, strict=True)), True)

    def serve_all(self) -> None:
        for g, s in zip(self.groups, self.s, strict=True):
            self.model.add(s == g.demand)

    def fewest_added(self) -> None:
        self.serve_all()
        self._objective(self.n_added, False)

    def fewest_units(self) -> None:
        self.serve_all()
        self._objective(self.units_used(), False)

    def order(self) -> list[cp_model.IntVar]:
        """The tie-break order: added nodes, then each supply's layouts in
        order, then each group's device kinds in order."""
        return [self.n_added, *(v for row in self.x for v in row), *(self.y[k] for k in sorted(self.y))]

    def hint_usage(self, usage: Sequence[dict[int, int]]) -> None:
        for row, use in zip(self.x, usage, strict=True):
            for li, v in enumerate(row):
                self.model.add_hint(v, use.get(li, 0))

    def solve(self, time_limit: float | None = None, workers: int = 2) -> PatternResult:
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = workers
        solver.parameters.max_time_in_seconds = limit_or_default(time_limit, "plan")
        ran = run(solver, self.model)
        code = ran.status
        res = PatternResult(ran.name, wall_time=solver.wall_time, why=ran.why, notes=ran.notes)
        if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return res
        res.objective = round(solver.objective_value)
        res.bound = round(solver.best_objective_bound)
        if self.objective is not None:  # the canonical one among equally good answers
            canon, ok = tie_break(self.model, self.objective, self.maximize, res.objective,
                                  code == cp_model.OPTIMAL, self.order(), limit_or_default(time_limit, "plan"))
            res.wall_time += canon.wall_time
            solver = canon if ok else solver
        res.served = [int(solver.value(s)) for s in self.s]
        res.usage = [{li: int(solver.value(v)) for li, v in enumerate(row) if solver.value(v)} for row in self.x]
        res.assigned = {key: int(solver.value(v)) for key, v in self.y.items() if solver.value(v)}
        res.added_nodes = int(solver.value(self.n_added))
        return res
