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
import uuid
from collections.abc import Callable

from ortools.sat.python import cp_model

from dralloc.defects import EVENT_DEFECT, describe
from dralloc.encoders.choice import NeedsReplay
from dralloc.encoders.model import Encoding, encode
from dralloc.errors import AllocationError
from dralloc.inventory.capacity import consumed_from_request
from dralloc.inventory.problem import Problem
from dralloc.quantity import Quantity
from dralloc.solver.limits import limit_or_default, stopped
from dralloc.solver.outcome import REPLAY_NOTE, Outcome, Status
from dralloc.solver.replay import Chosen, ReplaySearch, StepLimitReached
from dralloc.solver.results import build_allocation

REPLAY_COMPARE_STEPS = 200_000


def _params(first_fit: bool, time_limit: float) -> cp_model.CpSolver:
    solver = cp_model.CpSolver()
    p = solver.parameters
    if first_fit:
        p.search_branching = cp_model.FIXED_SEARCH
        p.num_workers = 1
        p.cp_model_presolve = False
        p.stop_after_first_solution = True
    else:
        p.num_workers = 2
    p.max_time_in_seconds = float(time_limit)
    return solver


def decode(enc: Encoding, solver: cp_model.CpSolver, share_ids: Callable[[], str]) -> tuple[
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
                ch.share_id = share_ids()
            chosen[c].append(ch)
    sat = [solver.BooleanValue(v) for v in enc.sat]
    return chosen, selected, sat


def fill(out: Outcome, enc: Encoding, chosen: list[list[Chosen]], selected: dict[tuple[int, int], int],
         sat: list[bool]) -> None:
    p = enc.problem
    out.allocations = [
        build_allocation(plan, chosen[plan.index], selected, p.node, p.features, p.variant) if sat[plan.index]
        else build_allocation(plan, [], {}, p.node, p.features, p.variant).model_copy(update={"devices": None})
        for plan in p.plans
    ]
    out.status = Status.ALLOCATED if all(sat) else Status.PARTIAL


def first_fit_solve(enc: Encoding, time_limit: float) -> tuple[cp_model.CpSolver, int]:
    enc.model.AddDecisionStrategy(enc.decision_order(), cp_model.CHOOSE_FIRST, cp_model.SELECT_MAX_VALUE)
    solver = _params(True, time_limit)
    status = solver.Solve(enc.model)
    return solver, status


def solve(problem: Problem, out: Outcome, mode: str, objective: str | None = None,
          time_limit: float | None = None, share_ids: Callable[[], str] | None = None) -> Outcome:
    ids = share_ids or (lambda: str(uuid.uuid4()))
    t0 = time.perf_counter()
    try:
        enc = encode(problem, optional_claims=(mode == "optimal" and _wants_optional(objective)))
    except NeedsReplay as e:
        from dralloc.solver.api import run_replay

        res = run_replay(problem, out, share_ids, time_limit)
        res.notes.append(f"{REPLAY_NOTE}: {e}")
        return res
    if mode == "optimal":
        from dralloc.solver.optimal import optimize

        return optimize(enc, out, objective, time_limit, ids)
    limit = limit_or_default(time_limit)
    solver, status = first_fit_solve(enc, limit)
    out.solver = {"status": solver.StatusName(status), "wall_time_s": round(time.perf_counter() - t0, 6),
                  "branches": solver.NumBranches(), "conflicts": solver.NumConflicts()}
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        try:
            fill(out, enc, *decode(enc, solver, ids))
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
        return out  # nothing to compare with the Kubernetes search
    else:
        out.status, out.error = Status.ERROR, f"CP-SAT stopped without an answer ({solver.StatusName(status)})"
    compare_with_replay(problem, out, time_limit)
    return out


def _wants_optional(objective: str | None) -> bool:
    return objective is None or "claims" in objective.split(",")


def _caps(caps: dict[str, Quantity] | None) -> str:
    return ",".join(f"{k}:{q.value}" for k, q in sorted((caps or {}).items()))


def _summary(o: Outcome) -> list[tuple[str, ...]]:
    """Per claim: each result's request, device and consumed capacity."""
    return [tuple(f"{r.request}={r.driver}/{r.pool}/{r.device}[{_caps(r.consumed_capacity)}]"
                  for r in (a.devices.results or []))
            if a.devices else () for a in o.allocations or []]


def compare_with_replay(problem: Problem, out: Outcome, time_limit: float | None = None) -> None:
    """Run the Kubernetes search too (within its step budget and
    ``time_limit``); where it answers differently, name the defect that made
    it do so (or say the difference is unexplained)."""
    limit = limit_or_default(time_limit)
    search = ReplaySearch(problem, step_limit=REPLAY_COMPARE_STEPS, time_limit=limit)
    try:
        found = search.run()
    except StepLimitReached:
        out.notes.append(f"replay not compared: over {REPLAY_COMPARE_STEPS} search steps")
        return
    except AllocationError as e:
        if search.deadline is not None and time.monotonic() > search.deadline:
            out.notes.append("replay not compared: " + stopped(limit, "the Kubernetes search"))
            return
        # A fatal error met on the way (a selector failing on a device the
        # search reaches, an All request breaking a constraint): that error is
        # Kubernetes' answer, and it depends on the order of the search.
        if out.status is not Status.ERROR:
            out.notes.append(f"CP-SAT alone: {out.status.value}; the Kubernetes search fails first")
            out.status, out.error, out.allocations = Status.ERROR, str(e), None
        return
    out.steps = search.steps
    if found:
        try:  # Kubernetes builds its results (node selectors) only after the search
            for plan in problem.plans:
                build_allocation(plan, search.results[plan.index], search.selected, problem.node,
                                 problem.features, problem.variant)
        except AllocationError as e:
            if out.status is not Status.ERROR:
                out.notes.append(f"CP-SAT alone: {out.status.value}; Kubernetes fails building its result")
                out.status, out.error, out.allocations = Status.ERROR, str(e), None
            return
    replay_alloc = found and out.status is Status.ALLOCATED and _same(search, out)
    if replay_alloc or (not found and out.status is not Status.ALLOCATED):
        return
    defects = sorted({EVENT_DEFECT[e] for e in search.defect_flags() if e in EVENT_DEFECT}
                     | static_defects(problem))
    k8s = "no allocation" if not found else "; ".join(
        ", ".join(f"{ch.req.name}={ch.pd.label}" for ch in res) for res in search.results)
    out.notes.append(f"Kubernetes' answer differs: {k8s}")
    out.defects = [describe(d) for d in defects] or ["unexplained difference from the Kubernetes search"]


def _same(search: ReplaySearch, out: Outcome) -> bool:
    mine = _summary(out)
    theirs = [tuple(f"{ch.req.name}={ch.pd.label}[{_caps(ch.consumed)}]" for ch in res) for res in search.results]
    return mine == theirs


def static_defects(problem: Problem) -> set[str]:
    out = set()
    names: dict[str, set[str]] = {}
    for pool in problem.pools:
        if pool.counter_sets:
            names.setdefault(pool.name, set()).add(pool.driver)
    if any(len(d) > 1 for d in names.values()):
        out.add("counters-keyed-by-pool-name")
    for pool in problem.pools:
        avail = problem.state.available_counters(pool) if pool.counter_sets else {}
        if any(v < 0 for cs in avail.values() for v in cs.values()):
            out.add("overdrawn-counter-blocks-pool")
    return out
