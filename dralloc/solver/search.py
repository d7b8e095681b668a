"""Reproducible answers from CP-SAT models: the tie-break among optima.

A model with many optimal solutions may return any of them, and which one a
multi-worker search meets first depends on thread timing. Every optimising
model in dralloc (optimal mode, the planner's pattern, block and joint
models) therefore ends with the same tie-break: keep the objective at the
value found (equal to it when proven optimal, at least as good otherwise),
then take the **lexicographically first** solution over a documented order
of the model's decision variables, each at its largest value first -- a
fixed search with one worker, presolve off (presolve may rewrite variables
and change which solution comes first), stopping at the first solution. For
the allocation models the order is Kubernetes' candidate order (the same
search first-fit uses), so among equally good answers the one Kubernetes'
search would meet first wins.

When the optimum is proven, the answer depends on the inputs only. When a
time limit stopped the optimisation, the value it reached depends on timing,
and the answer may differ between runs: callers say so."""

from __future__ import annotations

from collections.abc import Sequence

from ortools.sat.python import cp_model

from dralloc.solver.limits import limit_or_default


def fixed_search(time_limit: float | None) -> cp_model.CpSolver:
    """A solver for the first solution of a fixed search: one worker, no
    presolve, stop at the first solution (deterministic), within
    ``time_limit`` (None: the default, :mod:`dralloc.solver.limits`)."""
    solver = cp_model.CpSolver()
    p = solver.parameters
    p.search_branching = cp_model.FIXED_SEARCH
    p.num_workers = 1
    p.cp_model_presolve = False
    p.stop_after_first_solution = True
    p.max_time_in_seconds = limit_or_default(time_limit)
    return solver


def tie_break(model: cp_model.CpModel, objective: cp_model.LinearExprT, maximize: bool, value: int,
              proven: bool, order: Sequence[cp_model.IntVar],
              time_limit: float | None) -> tuple[cp_model.CpSolver, bool]:
    """Re-solve ``model`` for its canonical answer among those as good as
    ``value``: the lexicographically greatest assignment of ``order``.
    Returns the solver and whether it found that answer (False: the time
    limit stopped it; keep the answer found before)."""
    if proven:
        model.add(objective == value)
    else:
        model.add(objective >= value if maximize else objective <= value)
    model.clear_objective()
    model.clear_hints()
    model.proto.search_strategy.clear()
    model.add_decision_strategy(list(order), cp_model.CHOOSE_FIRST, cp_model.SELECT_MAX_VALUE)
    solver = fixed_search(time_limit)
    status = solver.solve(model)
    return solver, status in (cp_model.OPTIMAL, cp_model.FEASIBLE)


def interleaved(solver: cp_model.CpSolver, workers: int) -> cp_model.CpSolver:
    """``workers`` CP-SAT strategies interleaved in fixed batches
    (``interleave_search``) instead of racing in threads: the same
    solutions come in the same order in every run and process, whatever the
    machine's load, so a search that collects the solutions it meets (the
    mixed planner's column generation) or stops at a target gives the same
    answer each time. Only a wall-clock time limit that cuts the search short
    makes it depend on timing (the answer then says it stopped)."""
    solver.parameters.num_workers = workers
    solver.parameters.interleave_search = True
    return solver
