"""The CP-SAT modes.

* ``first-fit``: the Kubernetes answer through the model — a fixed search over
  the choice literals in Kubernetes' order (claims, requests, alternatives,
  devices), true first, one worker, presolve off, stop at the first solution.
  That solution is the lexicographically first one, which is what the
  allocator's depth-first search commits to when no defect interferes.
* ``optimal``: the same encoding with a named objective (see ``objectives``),
  first-fit's answer as a complete hint, never worse than first-fit.
"""

from __future__ import annotations

import time

from ortools.sat.python import cp_model

from dralloc.encoders.choice import NeedsReplay
from dralloc.encoders.model import Encoding, encode
from dralloc.errors import AllocationError
from dralloc.inventory.capacity import consumed_from_request
from dralloc.inventory.problem import Problem
from dralloc.inventory.requests import MAX_RESULTS
from dralloc.inventory.triggers import ORDER_DEPENDENT_ERROR, find_triggers
from dralloc.solver.cancel import CANCELLED, cancel_requested
from dralloc.solver.cancel import solve as solve_cancellable
from dralloc.solver.compare import DEFAULT_COMPARE_SECONDS, compare_with_kubernetes
from dralloc.solver.limits import limit_or_default, stopped
from dralloc.solver.outcome import REPLAY_NOTE, KubernetesAnswer, Outcome, Status
from dralloc.solver.replay import Chosen, ReplaySearch, SearchStopped
from dralloc.solver.replay_run import run_replay
from dralloc.solver.results import build_allocation
from dralloc.solver.search import fixed_search
from dralloc.solver.shareids import ShareIDs, derived


def _params(first_fit: bool, time_limit: float | None) -> cp_model.CpSolver:
    if first_fit:
        return fixed_search(time_limit)
    solver = cp_model.CpSolver()
    p = solver.parameters
    p.num_workers = 2
    p.max_time_in_seconds = limit_or_default(time_limit)
    return solver


def decode(enc: Encoding, solver: cp_model.CpSolver) -> tuple[
        list[list[Chosen]], dict[tuple[int, int], int], list[bool]]:
    """Chosen devices per claim in result order, chosen alternatives, claim satisfied."""
    chosen: list[list[Chosen]] = [[] for _ in enc.problem.plans]
    selected: dict[tuple[int, int], int] = {}
    for key in sorted(enc.options):
        o = enc.options[key]
        if not solver.BooleanValue(o.var):
            continue
        c, r, s = key
        selected[(c, r)] = s
        for pd, v in o.devices:
            if not solver.BooleanValue(v):
                continue
            ch = Chosen(o.spec, pd)
            p = enc.problem
            if (p.features.consumable_capacity and pd.device.allow_multiple_allocations
                    and p.variant.value != "stable"):
                ch.consumed = consumed_from_request(o.spec.capacity, pd.device.capacity)
                ch.multi = True
            chosen[c].append(ch)
    sat = [solver.BooleanValue(v) for v in enc.sat]
    return chosen, selected, sat


def fill(out: Outcome, enc: Encoding, chosen: list[list[Chosen]], selected: dict[tuple[int, int], int],
         sat: list[bool], share_ids: ShareIDs = derived) -> None:
    p = enc.problem
    out.allocations = [
        build_allocation(plan, chosen[plan.index], selected, p.node, p.features, p.variant, share_ids)
        if sat[plan.index]
        else build_allocation(plan, [], {}, p.node, p.features, p.variant).model_copy(update={"devices": None})
        for plan in p.plans
    ]
    out.status = Status.ALLOCATED if all(sat) else Status.PARTIAL


def first_fit_solve(enc: Encoding, time_limit: float) -> tuple[cp_model.CpSolver, int]:
    enc.model.AddDecisionStrategy(enc.decision_order(), cp_model.CHOOSE_FIRST, cp_model.SELECT_MAX_VALUE)
    solver = _params(True, time_limit)
    status = solve_cancellable(solver, enc.model)
    return solver, status


def solve(problem: Problem, out: Outcome, mode: str, objective: str | None = None,
          time_limit: float | None = None, share_ids: ShareIDs = derived,
          compare: str = "auto", compare_time_limit: float | None = None) -> Outcome:
    """``compare`` (first-fit): what to find out about Kubernetes' own answer
    (:func:`dralloc.solver.compare.compare_with_kubernetes`)."""
    t0 = time.perf_counter()
    try:
        enc = encode(problem, optional_claims=(mode == "optimal" and _wants_optional(objective)))
    except NeedsReplay as e:
        return _by_replay(problem, out, share_ids, str(e), time_limit)
    if mode == "optimal":
        return _optimal(problem, enc, out, objective, time_limit, share_ids)
    limit = limit_or_default(time_limit)
    solver, status = first_fit_solve(enc, limit)
    out.solver = {"status": solver.StatusName(status), "wall_time_s": round(time.perf_counter() - t0, 6),
                  "branches": solver.NumBranches(), "conflicts": solver.NumConflicts()}
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        try:
            fill(out, enc, *decode(enc, solver), share_ids)
        except AllocationError as e:
            out.status, out.error, out.allocations = Status.ERROR, str(e), None
    elif status == cp_model.INFEASIBLE:
        if problem.has_invalid_pool():
            out.status, out.error = Status.ERROR, "invalid resource pools were encountered"
        else:
            out.status = Status.UNSATISFIABLE
            from dralloc.solver.explain_counts import candidate_report

            out.reasons = candidate_report(problem)
    elif status == cp_model.UNKNOWN:
        out.status, out.error = Status.ERROR, stopped(limit, "CP-SAT") + " without an answer"
        if cancel_requested():
            out.error = CANCELLED
            return out
    else:
        out.status, out.error = Status.ERROR, f"CP-SAT stopped without an answer ({solver.StatusName(status)})"
    compare_with_kubernetes(problem, out, compare, compare_time_limit, infeasible=status == cp_model.INFEASIBLE,
                            undecided=status not in (cp_model.OPTIMAL, cp_model.FEASIBLE, cp_model.INFEASIBLE))
    return out


def _optimal(problem: Problem, enc: Encoding, out: Outcome, objective: str | None,
             time_limit: float | None, share_ids: ShareIDs) -> Outcome:
    """Optimal mode, with Kubernetes' errors: where the allocator fails (invalid
    pools and no full answer, a fatal error its search meets), so does optimal."""
    from dralloc.solver.optimal import optimize

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


def _by_replay(problem: Problem, out: Outcome, share_ids: ShareIDs, why: str,
               time_limit: float | None) -> Outcome:
    """The encoding cannot answer (``why``): a selector fails on some device
    (which error Kubernetes reports, or whether it reaches that device at all,
    depends on its search order), or values beyond CP-SAT's integers."""
    res = run_replay(problem, out, share_ids, time_limit)
    halted = any(n.startswith("replay stopped") for n in res.notes)
    res.notes.append(f"{REPLAY_NOTE}: {why}")
    res.kubernetes = KubernetesAnswer("stopped" if halted else "replay", not halted, None if halted else True,
                                      statement=(res.error or "") if halted else f"first-fit's answer is the "
                                      f"replay's: {why}",
                                      triggers=[str(t) for t in find_triggers(problem)], steps=res.steps)
    return res


def _wants_optional(objective: str | None) -> bool:
    return objective is None or "claims" in objective.split(",")
