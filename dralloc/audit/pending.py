"""Pending pods: why are their claims not allocated, and what would help?

Pods of a gang are analysed as their gang (:mod:`dralloc.audit.gangs`);
a member whose gang's minimum running pods already meet is a pod like any
other. For each other pod with unallocated claims, in priority order:

* the first nodes (up to five, in the scheduler's order) where its claims
  fit now with the Kubernetes search (``allocate(mode="replay")``): the
  scheduler's answer was a false negative, or the pod was not retried since
  resources were freed;
* whether it is part of the best joint placement of all pending pods: one
  CP-SAT model over the pending pods' claims on their candidate nodes,
  objective ``claims`` (as many pods as possible), existing allocations fixed
  (:mod:`dralloc.audit.joint`); a pod that the Kubernetes search places
  nowhere but the joint model places shows an allocation Kubernetes misses;
* else the fewest existing allocations to move (1, then 2; each moved claim
  must fit elsewhere), with the Kubernetes search;
* else, per node, a minimised conflicting set of requirements
  (:func:`dralloc.solver.explain.explain`) in words.

Allocation calls are bounded by a budget; the joint model and each minimal
core by a time limit (single-worker CP-SAT, so answers are deterministic).
A pod is said not to fit only when every node was asked and answered; when
the budget or the replay's time limit left a node unasked or unanswered the
verdict is ``not-decided`` and says why (:mod:`.answers`)."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any

from dralloc.audit.analysis import (
    CORE_TIME_LIMIT,
    EXPLAINED_NODES,
    JOINT_TIME_LIMIT,
    MAX_JOINT_PAIRS,
    Budget,
    PendingAnalysis,
)
from dralloc.audit.answers import budget_spent
from dralloc.audit.gangs import analyse_gangs
from dralloc.audit.joint import Group, JointResult, place_jointly
from dralloc.audit.state import ClusterState, pod_key
from dralloc.checker.finding import INFO, WARNING, Finding
from dralloc.errors import AllocationError
from dralloc.features import Features, Variant
from dralloc.io.progress import Progress
from dralloc.models import Node, Pod, ResourceClaim

NOW_NODES = 5   # nodes where a pod fits now that the analysis looks for (and lists)


def _order(pods: list[Pod]) -> list[Pod]:
    return sorted(pods, key=lambda p: (-(p.spec.priority or 0), pod_key(p)))


@dataclass
class _Pending:
    pod: Pod
    claims: list[ResourceClaim]
    nodes: list[Node]
    now: list[str]
    unasked: int = 0          # nodes the budget left unasked
    stopped: int = 0          # nodes whose call stopped at the replay's time limit
    gang: str | None = None   # its gang, whose minimum running pods meet


def _fits_now(pa: PendingAnalysis, p: _Pending) -> None:
    """The first NOW_NODES nodes where the pod fits now; which nodes could
    not be asked (budget) or answered (time limit)."""
    for i, n in enumerate(p.nodes):
        before = len(pa.stopped)
        out = pa.try_on(n, p.claims)
        if out is None:
            p.unasked = len(p.nodes) - i
            return
        if len(pa.stopped) > before:
            p.stopped += 1
        elif out.ok:
            p.now.append(n.name)
            if len(p.now) >= NOW_NODES:
                return


def analyse_pending(state: ClusterState, features: Features, variant: Variant | None,
                    budget: int = 400, progress: Progress | None = None) -> tuple[list[Finding], list[dict[str, Any]]]:
    pa = PendingAnalysis(state, features, variant, Budget(budget))
    held = state.allocated()
    pending = _order(state.pending_pods())
    gang_findings, gang_entries, in_gangs, alone = analyse_gangs(pa, pending, held)
    todo = []
    for i, pod in enumerate(pending):
        if progress is not None:
            progress("pending pods: where they fit now", i + 1, len(pending))
        if pod_key(pod) in in_gangs:
            continue
        p = _Pending(pod, state.claims_to_place(pod), pa.nodes(pod), [], gang=alone.get(pod_key(pod)))
        _fits_now(pa, p)
        todo.append(p)
    joint = _joint(pa, todo, held)
    findings: list[Finding] = gang_findings
    entries: list[dict[str, Any]] = gang_entries
    for i, p in enumerate(todo):
        if progress is not None:
            progress("pending pods: what would help", i + 1, len(todo))
        entry = _one(pa, p, held, joint, len(todo))
        entries.append(entry)
        level = INFO if entry["verdict"] == "fits-now" else WARNING
        findings.append(Finding(level, "pending", pod_key(p.pod), entry["message"],
                                (f"Pod {pod_key(p.pod)}", *(f"ResourceClaim {c}" for c in entry["claims"])),
                                ("spec.resourceClaims",), entry["verdict"]))
    if len(todo) > 1:
        findings.append(Finding(INFO, "pending", "", _joint_summary(joint, len(todo))))
    if pa.budget.spent:
        findings.append(Finding(INFO, "pending", "", "the pending-pod analysis spent its budget of "
                                f"{budget} allocation calls; the answers it left open say \"not decided\" "
                                "(raise it with --budget)"))
    if pa.stopped:
        findings.append(Finding(INFO, "pending", "", f"{len(pa.stopped)} allocation call(s) stopped at the "
                                "replay's time limit (nodes " + ", ".join(sorted(set(pa.stopped))) + "); "
                                "a pod no other node takes is \"not decided\""))
    return findings, entries


def _joint(pa: PendingAnalysis, todo: list[_Pending], held: list[ResourceClaim]) -> JointResult:
    """The best placement of the pending pods together (CP-SAT, objective:
    as many pods as possible). Candidate nodes: every node of each pod, or
    only those where it fits now when that makes too many pairs."""
    wide = sum(len(p.nodes) for p in todo) <= MAX_JOINT_PAIRS
    groups = []
    for p in todo:
        nodes = tuple(n for n in p.nodes if (wide or n.name in p.now) and pa.as_given(n, p.claims))
        if p.claims and nodes:
            groups.append(Group(pod_key(p.pod), tuple(p.claims), nodes))
    hint = {pod_key(p.pod): p.now[0] for p in todo if p.now}
    res = place_jointly(pa.state.objects, groups, held, pa.features, pa.variant,
                        time_limit=JOINT_TIME_LIMIT, hint=hint)
    if not wide:
        res.notes.insert(0, f"candidate nodes: only the first nodes where each pod fits now (pods x nodes "
                            f"exceeds {MAX_JOINT_PAIRS})")
    return res


def _joint_summary(joint: JointResult, pods: int) -> str:
    restricted = any(n.startswith("candidate nodes: only") for n in joint.notes)
    proven = ("optimal among those candidate nodes" if restricted else "proven optimal") if joint.proven \
        else f"not proven optimal: at most {joint.bound}"
    notes = "".join(f"; {n}" for n in joint.notes)
    return (f"joint placement of the {pods} pending pods (CP-SAT, existing allocations kept): "
            f"{joint.value} placed together ({proven}){notes}")


def _one(pa: PendingAnalysis, p: _Pending, held: list[ResourceClaim], joint: JointResult,
         pods: int) -> dict[str, Any]:
    key = pod_key(p.pod)
    entry: dict[str, Any] = {"pod": key, "claims": [c.key for c in p.claims]}
    if p.gang is not None:
        entry["inGang"] = p.gang
    entry.update(_verdict(pa, p, held, joint, pods))
    if p.gang is not None:
        entry["message"] = (f"gang {p.gang}: its minimum is met by running pods, so this pod is scheduled on its "
                            f"own: {entry['message']}")
    return entry


def _verdict(pa: PendingAnalysis, p: _Pending, held: list[ResourceClaim], joint: JointResult,
             pods: int) -> dict[str, Any]:
    key = pod_key(p.pod)
    together = joint.placed.get(key)
    if p.now:
        if together is not None:
            note = f"; node {together} in the best joint placement of the pending pods"
        elif any(n.startswith("candidate nodes: only") for n in joint.notes):
            note = ("; not in the joint placement of the pending pods, which looked only at the first nodes "
                    "where each fits now")
        else:
            note = (f"; but not together with the other pending pods (the best joint placement places "
                    f"{joint.value} of {pods} and leaves this one out)")
        first = f"the first {NOW_NODES} nodes tried that take them:" if len(p.now) >= NOW_NODES else "node(s)"
        return dict(verdict="fits-now", nodes=p.now, jointNode=together,
                    message=f"the claims fit now on {first} {', '.join(p.now)}: a false negative of "
                    f"the scheduler, or the pod was not retried since resources were freed{note}")
    if together is not None:
        searched = "the Kubernetes search finds no node" if not (p.unasked or p.stopped) else \
            "the Kubernetes search was not run to the end"
        return dict(verdict="fits-jointly", nodes=[together], jointNode=together,
                    message=f"{searched}, but the claims can be allocated on node {together} (joint CP-SAT "
                    "placement of the pending pods; the answer passes the independent verifier)"
                    + (": an allocation the Kubernetes search misses" if not (p.unasked or p.stopped) else ""))
    moves = _moves(pa, p.claims, held, p.nodes)
    if moves is not None:
        node, moved = moves
        return dict(verdict="fits-after-moves", nodes=[node], moves=moved,
                    message=f"fits on node {node} if {len(moved)} existing allocation(s) move: "
                    + "; ".join(f"{m['claim']} to node {m['to']}" for m in moved))
    if p.unasked or p.stopped:
        return dict(verdict="not-decided", message=_undecided(pa, p))
    return dict(verdict="does-not-fit", message=_explain(pa, p.claims, p.nodes))


def _undecided(pa: PendingAnalysis, p: _Pending) -> str:
    """Why a pod that fits on no node asked is not said not to fit."""
    why = []
    if p.unasked:
        why.append(f"the Kubernetes search was not run on {p.unasked} of the {len(p.nodes)} nodes: "
                   + budget_spent(pa.budget.limit))
    if p.stopped:
        why.append(f"on {p.stopped} node(s) it stopped at the replay's time limit")
    asked = len(p.nodes) - p.unasked - p.stopped
    head = f"no node of the {asked} that answered takes the claims, but " if asked else ""
    return "not decided: " + head + "; ".join(why)


def _holders_on(held: list[ResourceClaim], state: ClusterState, node: Node) -> list[ResourceClaim]:
    """Allocated claims that hold devices usable on ``node`` (moving them may help)."""
    return [c for c in held if state.node_for(c).name in (node.name, "")]


def _moves(pa: PendingAnalysis, claims: list[ResourceClaim], held: list[ResourceClaim],
           nodes: list[Node]) -> tuple[str, list[dict[str, str]]] | None:
    """Move 1, then 2 of the ``held`` claims away (each must fit elsewhere)
    so that ``claims`` fit on a node; every try is undone."""
    for size in (1, 2):
        for n in nodes:
            cands = _holders_on(held, pa.state, n)
            for group in combinations(cands, size):
                if pa.budget.calls <= 0:
                    return None
                with pa.cluster.trial():
                    for c in group:
                        pa.cluster.release(c.key)
                    moved = None
                    if pa.fits(claims, [n]) is not None:
                        moved = _replace(pa, list(group))
                if moved is not None:
                    return n.name, moved
    return None


def _replace(pa: PendingAnalysis, group: list[ResourceClaim]) -> list[dict[str, str]] | None:
    out = []
    for c in group:
        bare = c.model_copy(update={"status": None})
        got = pa.fits([bare], pa.nodes(Pod()))
        if got is None:
            return None
        out.append({"claim": c.key, "from": pa.state.node_for(c).name, "to": got[0].name})
    return out


def _explain(pa: PendingAnalysis, claims: list[ResourceClaim], nodes: list[Node]) -> str:
    if not nodes:
        return "no node is known (the state holds no nodes and no node-local slices)"
    parts = [f"on node {n.name}: {_why_not(pa, n, claims)}" for n in nodes[:EXPLAINED_NODES]]
    more = f" (and {len(nodes) - EXPLAINED_NODES} more node(s))" if len(nodes) > EXPLAINED_NODES else ""
    return "does not fit on any node, even after moving up to 2 allocations: " + " | ".join(parts) + more


def _why_not(pa: PendingAnalysis, node: Node, claims: list[ResourceClaim]) -> str:
    """A minimal conflicting set of requirements on ``node``, in words (the
    per-request candidate counts when no core can be found)."""
    from dralloc.solver.explain import minimal_core, render
    from dralloc.solver.explain_counts import candidate_report

    refused = pa.refusal(node, claims)
    if refused is not None:
        return refused
    try:
        problem = pa.cluster.problem(node, claims)
    except AllocationError as e:
        return str(e)
    core = minimal_core(problem, CORE_TIME_LIMIT)
    counts = "; ".join(candidate_report(problem))
    if not core:
        return counts or "no combination of devices satisfies the constraints"
    words = render(problem, core)
    tail = f" [{counts}]" if counts else ""
    if len(words) == 1:
        return f"{words[0]}, which no choice of devices allows{tail}"
    return f"these requirements cannot all hold together (a minimal conflicting set): {'; '.join(words)}{tail}"
