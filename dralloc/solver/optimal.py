"""Optimal mode: the encoding with a named objective, solved lexicographically
when several are given (``claims,best-fit``). First-fit's answer is the
complete hint and the floor: optimal is never worse than first-fit.

Objectives
* ``claims``        — maximise satisfied claims, weighted by priority
                      (annotation ``dralloc.io/priority``, default 1);
* ``devices``       — minimise the number of devices taken;
* ``best-fit``      — minimise what the chosen devices consume: counters and
                      capacities, each as a share of its pool's total, so the
                      smallest adequate device wins (KEP-4970's "best fit");
* ``fragmentation`` — minimise the counter sets (e.g. physical GPUs) touched,
                      keeping whole devices and their largest partitions free.
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any

from ortools.sat.python import cp_model

from dralloc.encoders.choice import NeedsReplay
from dralloc.encoders.model import Encoding, encode
from dralloc.errors import AllocationError, InputError
from dralloc.inventory.problem import Problem
from dralloc.inventory.requests import MAX_RESULTS
from dralloc.inventory.triggers import ORDER_DEPENDENT_ERROR, find_triggers
from dralloc.solver.cancel import CANCELLED, cancel_requested
from dralloc.solver.compare import DEFAULT_COMPARE_SECONDS
from dralloc.solver.cpsat import _params, by_replay, decode, fill, first_fit_solve
from dralloc.solver.limits import Deadline, stopped
from dralloc.solver.modes import OBJECTIVES, objective_names
from dralloc.solver.outcome import Outcome, Status
from dralloc.solver.replay import ReplaySearch, SearchStopped
from dralloc.solver.search import run
from dralloc.solver.shareids import ShareIDs

SCALE = 1000


MAX_PRIORITY = 10**9


def _priority(enc: Encoding, c: int) -> int:
    ann = enc.problem.plans[c].claim.metadata.annotations or {}
    raw = ann.get("dralloc.io/priority", "1")
    try:
        value = int(raw)
    except ValueError:
        value = MAX_PRIORITY + 1
    if value > MAX_PRIORITY:
        raise InputError(f"claim {enc.problem.plans[c].key}: metadata.annotations[dralloc.io/priority]: "
                         f"{raw[:40]!r} is not an integer of at most {MAX_PRIORITY}")
    return max(1, value)


def _terms(enc: Encoding, name: str) -> tuple[list[tuple[int, cp_model.IntVar]], bool]:
    """(weight, literal) terms and whether to maximise."""
    if name == "claims":
        return [(_priority(enc, c), v) for c, v in enumerate(enc.sat)], True
    uses = enc.uses_of_device()
    out: list[tuple[int, cp_model.IntVar]] = []
    if name == "devices":
        for pd, us in uses.values():
            y = enc.model.NewBoolVar(f"used[{pd.label}]")
            enc.model.AddMaxEquality(y, [v for _, v in us])
            out.append((1, y))
        return out, False
    if name == "best-fit":
        return _best_fit(enc), False
    if name == "fragmentation":
        touched: dict[tuple[str, str, str], list[cp_model.IntVar]] = {}
        for pd, us in uses.values():
            for cc in pd.device.consumes_counters or []:
                touched.setdefault((pd.pool.driver, pd.pool.name, cc.counter_set), []).extend(v for _, v in us)
            if not pd.device.consumes_counters:
                touched.setdefault(pd.id, []).extend(v for _, v in us)
        out = []
        for key, vs in touched.items():
            t = enc.model.NewBoolVar(f"touched[{'/'.join(key)}]")
            enc.model.AddMaxEquality(t, vs)
            out.append((1, t))
        return out, False
    raise InputError(f"unknown objective {name!r}; choose from {', '.join(OBJECTIVES)} (comma-separated for a lexicographic order)")


def _best_fit(enc: Encoding) -> list[tuple[int, cp_model.IntVar]]:
    out: list[tuple[int, cp_model.IntVar]] = []
    uses = enc.uses_of_device()
    totals: dict[tuple[str, str], Fraction] = {}
    for pd, _ in uses.values():
        for cs, cn in pd.pool.counter_sets.items():
            for n, v in cn.items():
                totals[(cs, n)] = max(totals.get((cs, n), Fraction(0)), v)
        for n, cap in (pd.device.capacity or {}).items():
            totals[("capacity", n)] = max(totals.get(("capacity", n), Fraction(0)), cap.value.value)
    out = []
    for pd, us in uses.values():
        w = Fraction(0)
        for cs, cn in pd.consumption().items():
            for n, v in cn.items():
                if totals.get((cs, n)):
                    w += _share(v, totals[(cs, n)])
        for n, cap in (pd.device.capacity or {}).items():
            if totals.get(("capacity", n)):
                w += _share(cap.value.value, totals[("capacity", n)])
        out.extend((int(w * SCALE) + 1, v) for _, v in us)
    return out


def _share(amount: Fraction, total: Fraction) -> Fraction:
    """``amount`` as a share of ``total``, within [0, 1]: a device that could be
    chosen never consumes more than a counter holds, and the clamp keeps the
    weights small whatever the quantities (1e19, negative values)."""
    return min(Fraction(1), max(Fraction(0), amount / total))


Objective = tuple[str, list[tuple[int, cp_model.IntVar]], bool]  # name, (weight, literal) terms, maximise


def optimize(enc: Encoding, out: Outcome, objective: str | None, time_limit: float | None,
             share_ids: ShareIDs) -> Outcome:
    """Solve lexicographically; ``out.solver["objectives"]`` gives, per
    objective, the returned answer's value, first-fit's value (``firstFit``),
    the proven bound and the CP-SAT status (what ``dralloc check --mode
    optimal`` holds the promise against). Among equally good answers, the
    first in Kubernetes' search order is returned (:func:`_canonical`). First-fit's
    answer is the hint and the floor; everything runs within one time budget
    (``time_limit``, or the default)."""
    t0 = time.perf_counter()
    deadline = Deadline(time_limit)
    # first-fit floor and hint (claims optional: first-fit takes what it can in order)
    ff_solver, ff_status = first_fit_solve(enc, deadline.left())
    ff_ok = ff_status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    hint = {v.Index(): ff_solver.Value(v) for v in _all_vars(enc)} if ff_ok else None
    enc.model.ClearHints()
    enc.model.proto.search_strategy.clear()
    objectives: list[Objective] = [(name, *_terms(enc, name)) for name in objective_names(objective)]
    ff_values = _values_at(enc, hint, objectives, deadline) if hint else None
    found, status, report = _stages(enc, objectives, hint, deadline)
    if cancel_requested():
        out.notes.append("the caller cancelled the search: the answer is the best found by then")
    out.solver = {"objectives": report}
    final: list[int] = []
    if found is not None:
        reached = [str(r["objective"]) for r in report if "value" in r]
        if len(reached) < len(report):
            out.notes.append(f"objective {report[len(reached)]['objective']} gave no answer in time: the answer "
                             f"is the best for {', '.join(reached)}")
        solver = _canonical(enc, found, deadline, report, out)
        fill(out, enc, *decode(enc, solver), share_ids)
        final = [sum(w * solver.Value(v) for w, v in terms) for _, terms, _ in objectives]
    elif ff_ok:
        fill(out, enc, *decode(enc, ff_solver), share_ids)
        out.notes.append(f"{stopped(deadline.limit, 'optimal search')} without an answer: first-fit's "
                         "answer returned")
        final = list(ff_values or [])
    elif cp_model.UNKNOWN in (ff_status, status):
        out.status, out.error = Status.ERROR, stopped(deadline.limit, "CP-SAT") + " without an answer"
        if cancel_requested():
            out.error = CANCELLED
    else:
        out.status = Status.UNSATISFIABLE
    for i, rec in enumerate(report):
        if i < len(final):
            rec["value"] = int(final[i])  # the returned answer's (a time-limited stage may move)
        if ff_values is not None:
            rec["firstFit"] = ff_values[i]
        if "bound" in rec:
            rec["gap"] = abs(int(rec["bound"]) - int(rec["value"]))  # type: ignore[call-overload]
    out.solver["wall_time_s"] = round(time.perf_counter() - t0, 6)
    return out


def _stages(enc: Encoding, objectives: list[Objective], hint: dict[int, int] | None,
            deadline: Deadline) -> tuple[cp_model.CpSolver | None, Any, list[dict[str, object]]]:
    """One solve per objective, each later one keeping the earlier values
    (proven: equal; after a time limit: at least as good); stops at the first
    objective that gets no answer in time. The last solver with an answer
    (None: none), the last status, and a record per objective."""
    report: list[dict[str, object]] = [{"objective": name, "maximize": maximize, "status": "not reached"}
                                       for name, _, maximize in objectives]
    found: cp_model.CpSolver | None = None
    status: Any = cp_model.UNKNOWN
    for rec, (_, terms, maximize) in zip(report, objectives, strict=True):
        expr = sum(w * v for w, v in terms)
        (enc.model.Maximize if maximize else enc.model.Minimize)(expr)
        for v in _all_vars(enc) if hint else []:
            if v.Index() in hint:  # type: ignore[operator]
                enc.model.AddHint(v, hint[v.Index()])  # type: ignore[index]
        solver = _params(False, deadline.left())
        ran = run(solver, enc.model)
        status = ran.status
        enc.model.ClearHints()
        rec["status"] = solver.StatusName(status)
        if ran.notes:
            rec["notes"] = ran.notes
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            break
        found = solver
        val = round(solver.ObjectiveValue())
        rec.update(value=val, bound=round(solver.BestObjectiveBound()))
        enc.model.Add(expr == val if status == cp_model.OPTIMAL else expr >= val if maximize else expr <= val)
        hint = {v.Index(): solver.Value(v) for v in _all_vars(enc)}
    return found, status, report


def _values_at(enc: Encoding, solution: dict[int, int], objectives: list[Objective],
               deadline: Deadline) -> list[int] | None:
    """Each objective's value at ``solution`` (first-fit's): a copy of the
    model with those variables fixed determines the objectives' helper
    literals (devices used, counter sets touched); no search."""
    m = enc.model.Clone()
    m.ClearObjective()
    m.ClearHints()
    for i, val in solution.items():
        m.Add(m.GetIntVarFromProtoIndex(i) == val)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = min(10.0, deadline.left())
    if not run(solver, m).found:
        return None
    values = solver.ResponseProto().solution
    return [sum(w * values[v.Index()] for w, v in terms) for _, terms, _ in objectives]


def _canonical(enc: Encoding, found: cp_model.CpSolver, deadline: Deadline,
               report: list[dict[str, object]], out: Outcome) -> cp_model.CpSolver:
    """The tie-break among equally good answers: of all the answers whose
    objective values equal (or, after a time limit, are at least as good as)
    the ones found, the first in Kubernetes' search order -- the same fixed,
    single-worker search as first-fit, under the objectives' constraints. The
    answer then depends on the inputs only, not on which optimum the parallel
    search met first."""
    enc.model.ClearObjective()
    enc.model.ClearHints()
    solver, status = first_fit_solve(enc, deadline.left())
    out.solver["tie_break"] = {"status": solver.StatusName(status), "wall_time_s": round(solver.WallTime(), 6),
                               "branches": solver.NumBranches(), "conflicts": solver.NumConflicts()}
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        proven = all(r["status"] == "OPTIMAL" for r in report)
        if not proven:
            out.notes.append(f"{stopped(deadline.limit, 'optimal search')} before it proved its answer: "
                             "another run may find a different one")
        return solver
    out.notes.append(f"{stopped(deadline.limit, 'tie-break among equal answers')}: this is one of them, "
                     "another run may return another")
    return found


def _all_vars(enc: Encoding) -> list[cp_model.IntVar]:
    return [enc.model.GetBoolVarFromProtoIndex(i) for i in range(len(enc.model.proto.variables))]


def solve_optimal(problem: Problem, out: Outcome, objective: str | None, time_limit: float | None,
                  share_ids: ShareIDs) -> Outcome:
    """Optimal mode, with Kubernetes' errors: where the allocator fails (invalid
    pools and no full answer, a fatal error its search meets), so does optimal.
    Where the encoding cannot answer, the replay does (as in first-fit)."""
    try:
        enc = encode(problem, optional_claims=_wants_optional(objective))
    except NeedsReplay as e:
        return by_replay(problem, out, share_ids, str(e), time_limit)
    try:
        optimize(enc, out, objective, time_limit, share_ids)
    except AllocationError as e:
        out.status, out.error, out.allocations = Status.ERROR, str(e), None
        return out
    if out.status is not Status.ALLOCATED and problem.has_invalid_pool():
        out.notes.append(f"CP-SAT alone: {out.status.value}")
        out.status, out.error, out.allocations = Status.ERROR, "invalid resource pools were encountered", None
        return out
    if not _search_may_fail(problem):
        return out
    search = ReplaySearch(problem, time_limit=DEFAULT_COMPARE_SECONDS)
    try:
        search.run()
    except SearchStopped as e:
        out.notes.append(f"Kubernetes' search stopped after {e.steps} steps ({DEFAULT_COMPARE_SECONDS:g} s): "
                         "a fatal error it could meet later is not known")
    except AllocationError as e:
        out.notes.append(f"CP-SAT alone: {out.status.value}; the Kubernetes search fails first")
        out.status, out.error, out.allocations = Status.ERROR, str(e), None
    return out


def _search_may_fail(problem: Problem) -> bool:
    """Whether Kubernetes' search can end in a fatal error that depends on its
    order (selector errors are caught when the model is built): a constraint
    that can refuse a device of an All request (the defect triggers name it),
    or a claim whose alternatives can together ask for more than 32 results
    ("allocation max size exceeded")."""
    for plan in problem.plans:
        if sum(max((o.num_devices for o in slot.options), default=0) for slot in plan.slots) > MAX_RESULTS:
            return True
    return any(t.defect == ORDER_DEPENDENT_ERROR for t in find_triggers(problem))


def _wants_optional(objective: str | None) -> bool:
    return objective is None or "claims" in objective.split(",")
