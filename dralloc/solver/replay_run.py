"""The replay as an engine: run Kubernetes' search under a time limit and turn
what it found into an :class:`Outcome` (no OR-Tools here)."""

from __future__ import annotations

from dralloc.errors import AllocationError
from dralloc.inventory.problem import Problem
from dralloc.solver.cancel import CANCELLED
from dralloc.solver.explain_counts import candidate_report
from dralloc.solver.limits import REPLAY
from dralloc.solver.outcome import Outcome, Status
from dralloc.solver.replay import ReplaySearch, SearchStopped
from dralloc.solver.results import build_allocation
from dralloc.solver.shareids import ShareIDs, derived

# Kubernetes' default DRA filter timeout (kube-scheduler's DynamicResources
# plugin, filterTimeout): the longest the scheduler lets one allocation run.
DEFAULT_REPLAY_SECONDS = REPLAY


def fill_from_search(problem: Problem, search: ReplaySearch, found: bool, out: Outcome,
                     share_ids: ShareIDs = derived) -> Outcome:
    """Kubernetes' answer from a finished search: its allocation (results and
    node selectors are built only now, as Kubernetes builds them), or no
    allocation (an error when an invalid pool was met). Raises
    :class:`AllocationError` when building the results fails."""
    out.steps = search.steps
    if found:
        out.allocations = [
            build_allocation(plan, search.results[plan.index], search.selected, problem.node,
                             problem.features, problem.variant, share_ids)
            for plan in problem.plans
        ]
        out.status = Status.ALLOCATED
    elif problem.has_invalid_pool():
        out.status, out.error = Status.ERROR, "invalid resource pools were encountered"
    else:
        out.status = Status.UNSATISFIABLE
        out.reasons = candidate_report(problem)
    return out


def run_replay(problem: Problem, out: Outcome, share_ids: ShareIDs = derived,
               time_limit: float | None = None, replay_limit: float | None = None) -> Outcome:
    """The Kubernetes search. An explicit ``time_limit`` acts like the
    scheduler's filter timeout (error ``filter operation aborted: context
    deadline exceeded``); without one the replay stops after its own
    ``replay_limit`` (default :data:`DEFAULT_REPLAY_SECONDS`,
    :data:`~dralloc.solver.limits.NO_LIMIT`: never) and says that
    Kubernetes' answer is not known (Go runs the same search faster)."""
    own = DEFAULT_REPLAY_SECONDS if replay_limit is None else replay_limit
    limit = own if time_limit is None else time_limit
    search = ReplaySearch(problem, time_limit=limit)
    try:
        fill_from_search(problem, search, search.run(), out, share_ids)
    except SearchStopped as e:
        out.steps, out.status = search.steps, Status.ERROR
        if e.reason == "cancel":
            out.error = CANCELLED
            out.notes.append(f"the caller cancelled the replay after {search.steps} search steps")
            out.notes = sorted(set(out.notes) | search.defect_flags())
            return out
        if time_limit is not None:
            out.error = "filter operation aborted: context deadline exceeded"
        else:
            which = ", Kubernetes' default filter timeout" if replay_limit is None else ""
            out.error = (f"replay stopped at its time limit ({limit:g} s{which}) "
                         f"after {search.steps} search steps without an answer: Kubernetes' answer is not known "
                         "(its own search runs faster; give the replay more time, or pass a time limit to model "
                         "the scheduler's deadline)")
        out.notes.append(f"replay stopped at its time limit of {limit:g} s after {search.steps} search steps")
    except AllocationError as e:
        out.steps, out.status, out.error = search.steps, Status.ERROR, str(e)
    out.notes = sorted(set(out.notes) | search.defect_flags())
    return out
