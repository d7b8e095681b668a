"""The CP-SAT modes.

* ``first-fit``: the Kubernetes answer through the model — a fixed search over
  the choice literals in Kubernetes' order (claims, requests, alternatives,
  devices), true first, one worker, presolve off, stop at the first solution.
  That solution is the lexicographically first one, which is what the
  allocator's depth-first search commits to when no defect interferes. So
  where no defect trigger holds (:mod:`dralloc.inventory.triggers`), the
  replay of that search, finished within :data:`SEARCH_FIRST_STEPS` steps,
  *is* first-fit's answer, at a fraction of the model's cost: it answers
  then (noted as such), and CP-SAT answers everywhere else.
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
from dralloc.inventory.triggers import Trigger, find_triggers
from dralloc.solver.cancel import CANCELLED, cancel_requested
from dralloc.solver.compare import compare_with_kubernetes, no_trigger
from dralloc.solver.limits import limit_or_default, stopped
from dralloc.solver.outcome import REPLAY_NOTE, KubernetesAnswer, Outcome, Status
from dralloc.solver.replay import Chosen, ReplaySearch, SearchStopped
from dralloc.solver.replay_run import fill_from_search, run_replay
from dralloc.solver.results import build_allocation
from dralloc.solver.search import fixed_search, run
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
    status = run(solver, enc.model).status
    return solver, status


SEARCH_FIRST_STEPS = 1000   # the replay's budget when it may give first-fit's answer (a few ms)
SEARCH_NOTE = (f"{REPLAY_NOTE}: no documented Kubernetes defect can fire here, so Kubernetes' search, "
               "which follows exactly the rules, finds first-fit's answer")


def first_fit(problem: Problem, out: Outcome, time_limit: float | None = None, share_ids: ShareIDs = derived,
              compare: str = "auto", compare_time_limit: float | None = None) -> Outcome:
    """First-fit mode: Kubernetes' answer through CP-SAT's fixed search, or
    through the replay where the two are one (see the module). ``compare``:
    what to find out about Kubernetes' own answer
    (:func:`dralloc.solver.compare.compare_with_kubernetes`)."""
    triggers = None
    if compare == "auto":
        t0 = time.perf_counter()
        triggers = find_triggers(problem)
        if not triggers and by_search(problem, out, share_ids, t0, time_limit):
            return out
    return _by_model(problem, out, time_limit, share_ids, compare, compare_time_limit, triggers)


def by_search(problem: Problem, out: Outcome, share_ids: ShareIDs, t0: float, time_limit: float | None) -> bool:
    """First-fit's answer from the replay, when no trigger holds (the
    caller's to check) and the search finishes within its budget (and the
    time limit) without a defect event; False (``out`` untouched) otherwise."""
    search = ReplaySearch(problem, step_limit=SEARCH_FIRST_STEPS, time_limit=time_limit)
    try:
        found = search.run()
        if search.events:
            return False
        fill_from_search(problem, search, found, out, share_ids)
    except (SearchStopped, AllocationError):
        out.steps = 0
        return False   # too long, cancelled, or a fatal error: the model says what first-fit says
    seconds = time.perf_counter() - t0
    out.solver = {"engine": "replay", "steps": search.steps, "wall_time_s": round(seconds, 6)}
    out.notes.append(SEARCH_NOTE)
    out.kubernetes = no_trigger(seconds)
    return True


def _by_model(problem: Problem, out: Outcome, time_limit: float | None, share_ids: ShareIDs, compare: str,
              compare_time_limit: float | None, triggers: list[Trigger] | None) -> Outcome:
    t0 = time.perf_counter()
    try:
        enc = encode(problem)
    except NeedsReplay as e:
        return by_replay(problem, out, share_ids, str(e), time_limit)
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
                            undecided=status not in (cp_model.OPTIMAL, cp_model.FEASIBLE, cp_model.INFEASIBLE),
                            triggers=triggers)
    return out


def by_replay(problem: Problem, out: Outcome, share_ids: ShareIDs, why: str,
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
