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
and the answer may differ between runs: callers say so.

Every CP-SAT search in dralloc runs through :func:`run`: interruptible
(:mod:`dralloc.solver.cancel`), never in a configuration known to abort the
process, retried in one that cannot when it fails, and saying why it ended
(:class:`Ran`).

**The configuration that aborts.** OR-Tools 9.15 kills the process
(``Check failed: solution->size() == postsolve_mapping.size()``, SIGABRT,
nothing Python can catch) when a search with interleaved workers
(``interleave_search``, two workers or more) is given a solution hint that
is complete and feasible and is stopped -- by a solution callback's
``stop_search``, ``stop_after_first_solution`` or ``StopSearch`` from another
thread (cancel, Ctrl-C) -- right after CP-SAT loaded the hint as its first
solution: the interleaved workers only publish solutions at their batch
boundaries, and the response then says FEASIBLE with an empty solution that
postsolve refuses. (Racing workers, one worker, or no complete hint: no
abort; minimal reproducer in tests/solver/test_search_safety.py.) The mixed
planner's integer master met it whenever first-fit's answer, its hint,
already reached the target bound. :func:`deterministic` therefore gives a
hinted model one worker (deterministic without interleaving), and
:func:`run` enforces the same on any solver it is handed."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ortools.sat.python import cp_model

from dralloc.solver import cancel
from dralloc.solver.limits import limit_or_default, stopped


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
    status = run(solver, model).status
    return solver, status in (cp_model.OPTIMAL, cp_model.FEASIBLE)


def deterministic(model: cp_model.CpModel, workers: int, time_limit: float | None) -> cp_model.CpSolver:
    """A solver whose answers do not depend on thread timing: ``workers``
    CP-SAT strategies interleaved in fixed batches (``interleave_search``)
    instead of racing in threads, so the same solutions come in the same
    order in every run and process, whatever the machine's load (a search
    that collects the solutions it meets, or stops at a target, gives the
    same answer each time). A model with a solution hint gets one worker
    instead: equally deterministic, and never the configuration that aborts
    (module doc). Only a wall-clock time limit that cuts the search short
    makes the answer depend on timing (the answer then says it stopped)."""
    solver = cp_model.CpSolver()
    p = solver.parameters
    p.num_workers = 1 if _hinted(model) else max(1, workers)
    p.interleave_search = True
    p.max_time_in_seconds = limit_or_default(time_limit)
    return solver


def _hinted(model: cp_model.CpModel) -> bool:
    """Whether the model carries a hint. Asked without touching the field:
    reading ``solution_hint`` of a model without one adds an empty hint, and
    OR-Tools 9.15 aborts an interleaved search with two workers or more on
    some models carrying an empty hint ("Check failed:
    heuristics.fixed_search != nullptr"; met by plan make-room)."""
    proto = model.proto
    return bool(proto.has_solution_hint()) and len(proto.solution_hint.vars) > 0


def _aborts(p: Any, model: cp_model.CpModel) -> bool:
    """The configuration of the module doc: interleaved workers on a hinted model."""
    return bool(p.interleave_search) and p.num_workers != 1 and _hinted(model)


def _plain(p: Any) -> bool:
    return p.num_workers == 1 and not p.interleave_search


@dataclass
class Ran:
    """How a search ended. ``why`` is None when CP-SAT finished (optimal,
    infeasible, or a solution of a model without objective); else why it
    stopped first: "time limit", "cancelled", "interrupted" (Ctrl-C) or
    "stopped" (the caller's callback, or a first-solution search)."""

    status: Any
    name: str
    why: str | None
    limit: float
    wall: float
    notes: list[str] = field(default_factory=list)

    @property
    def found(self) -> bool:
        return self.status in (cp_model.OPTIMAL, cp_model.FEASIBLE)

    @property
    def at_time_limit(self) -> bool:
        return self.why == "time limit"

    def stopped_words(self, what: str = "CP-SAT") -> str | None:
        """"<what> stopped at its time limit (T s)" when it did; None otherwise."""
        return stopped(self.limit, what) if self.at_time_limit else None


def run(solver: cp_model.CpSolver, model: cp_model.CpModel, callback: Any = None) -> Ran:
    """The one way dralloc runs a CP-SAT search: ``solver.solve(model,
    callback)`` with CP-SAT's SIGINT handler off (Ctrl-C and cancel events
    stop it through :mod:`.cancel`), never in the configuration that aborts
    (one worker instead), and a failure -- an exception from OR-Tools or
    MODEL_INVALID with several workers -- retried once with one worker, the
    retry said in ``notes``. A callback that stops the search should set
    ``stopped = True`` on itself, so that the stop is not taken for the time
    limit."""
    p = solver.parameters
    p.catch_sigint_signal = False
    if _aborts(p, model):
        p.num_workers = 1
        p.interleave_search = False
    t0 = time.perf_counter()
    notes: list[str] = []
    try:
        status = cancel.solve(solver, model, callback)
    except (RuntimeError, ValueError) as e:
        if _plain(p):
            raise
        status, notes = _retry(solver, model, callback, f"{type(e).__name__}: {e}")
    else:
        if status == cp_model.MODEL_INVALID and not _plain(p):
            status, notes = _retry(solver, model, callback, "MODEL_INVALID")
    return Ran(status, solver.status_name(status), _why(solver, status, callback), float(p.max_time_in_seconds),
               time.perf_counter() - t0, notes)


def _retry(solver: cp_model.CpSolver, model: cp_model.CpModel, callback: Any, failure: str) -> tuple[Any, list[str]]:
    p = solver.parameters
    note = f"CP-SAT failed with {p.num_workers or 'all'} workers ({failure}); retried with one worker"
    p.num_workers = 1
    p.interleave_search = False
    return cancel.solve(solver, model, callback), [note]


def _why(solver: cp_model.CpSolver, status: Any, callback: Any) -> str | None:
    if status not in (cp_model.FEASIBLE, cp_model.UNKNOWN):
        return None
    if cancel.cancel_requested():
        return "cancelled"
    if cancel.interrupted():
        return "interrupted"
    if getattr(callback, "stopped", False) or (status == cp_model.FEASIBLE
                                                and solver.parameters.stop_after_first_solution):
        return "stopped"
    return "time limit"
