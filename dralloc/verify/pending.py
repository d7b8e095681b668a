"""Pending pods: why are their claims not allocated, and what would help?

For each pod with unallocated claims, in priority order: the nodes where its
claims fit now (then the scheduler's answer was a false negative, or the pod
was not retried yet); whether all pending pods fit together when placed
jointly (a bounded search over node choices); else the fewest existing
allocations to move (each moved claim must fit elsewhere); else the reasons,
per request, from the node that came closest. Every allocation here is the
Kubernetes search (``allocate(mode="replay")``); work is bounded by a budget
of allocation calls."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from dralloc.features import Features, Variant
from dralloc.models import Node, Pod, ResourceClaim
from dralloc.solver import Outcome, allocate
from dralloc.verify.finding import INFO, WARNING, Finding
from dralloc.verify.rules import with_allocation
from dralloc.verify.state import ClusterState, pod_key


@dataclass
class Budget:
    calls: int = 400

    def take(self) -> bool:
        self.calls -= 1
        return self.calls >= 0


@dataclass
class PendingAnalysis:
    state: ClusterState
    features: Features
    variant: Variant | None
    budget: Budget = field(default_factory=Budget)

    def nodes(self, pod: Pod) -> list[Node]:
        if pod.spec.node_name:
            return [self.state.node(pod.spec.node_name)]
        names = [n.name for n in self.state.objects.nodes]
        if not names:
            names = sorted({s.spec.node_name for s in self.state.objects.slices if s.spec.node_name})
        return [self.state.node(n) for n in names]

    def try_on(self, node: Node, claims: list[ResourceClaim], held: list[ResourceClaim]) -> Outcome | None:
        if not self.budget.take():
            return None
        return allocate(self.state.objects, node, claims, allocated=held, features=self.features,
                        mode="replay", variant=self.variant)

    def fits(self, claims: list[ResourceClaim], held: list[ResourceClaim],
             nodes: list[Node]) -> tuple[Node, list[ResourceClaim]] | None:
        for n in nodes:
            out = self.try_on(n, claims, held)
            if out is not None and out.ok and out.allocations is not None:
                return n, [with_allocation(c, a) for c, a in zip(claims, out.allocations, strict=True)]
        return None


def _order(pods: list[Pod]) -> list[Pod]:
    return sorted(pods, key=lambda p: (-(p.spec.priority or 0), pod_key(p)))


def analyse_pending(state: ClusterState, features: Features, variant: Variant | None,
                    budget: int = 400) -> tuple[list[Finding], list[dict[str, Any]]]:
    pa = PendingAnalysis(state, features, variant, Budget(budget))
    pods = _order(state.pending_pods())
    held = state.allocated()
    joint = _joint(pa, pods, held)
    findings: list[Finding] = []
    entries: list[dict[str, Any]] = []
    for pod in pods:
        entry = _one(pa, pod, held, joint)
        entries.append(entry)
        level = INFO if entry["verdict"] in ("fits-now", "fits-jointly") else WARNING
        findings.append(Finding(level, "pending", pod_key(pod), entry["message"],
                                (f"Pod {pod_key(pod)}", *(f"ResourceClaim {c}" for c in entry["claims"])),
                                ("spec.resourceClaims",), entry["verdict"]))
    if pa.budget.calls < 0:
        findings.append(Finding(INFO, "pending", "", "the pending-pod analysis ran out of its budget of "
                                f"{budget} allocation calls; some answers are incomplete"))
    return findings, entries


def _joint(pa: PendingAnalysis, pods: list[Pod], held: list[ResourceClaim]) -> dict[str, str]:
    """A placement of as many pending pods as possible (depth-first over node
    choices, bounded by the budget): pod key -> node name."""
    best: dict[str, str] = {}

    def go(i: int, held: list[ResourceClaim], chosen: dict[str, str]) -> bool:
        nonlocal best
        if len(chosen) > len(best):
            best = dict(chosen)
        if i == len(pods) or len(chosen) + len(pods) - i <= len(best) or pa.budget.calls <= 0:
            return len(chosen) == len(pods)
        pod = pods[i]
        claims = pa.state.claims_to_place(pod)
        for n in pa.nodes(pod):
            out = pa.try_on(n, claims, held)
            if out is None or not out.ok or out.allocations is None:
                continue
            placed = [with_allocation(c, a) for c, a in zip(claims, out.allocations, strict=True)]
            if go(i + 1, held + placed, {**chosen, pod_key(pod): n.name}):
                return True
        return go(i + 1, held, chosen)

    go(0, held, {})
    return best


def _one(pa: PendingAnalysis, pod: Pod, held: list[ResourceClaim], joint: dict[str, str]) -> dict[str, Any]:
    claims = pa.state.claims_to_place(pod)
    keys = [c.key for c in claims]
    entry: dict[str, Any] = {"pod": pod_key(pod), "claims": keys}
    nodes = pa.nodes(pod)
    now = [n.name for n in nodes if (o := pa.try_on(n, claims, held)) is not None and o.ok]
    if now:
        joint_note = "" if pod_key(pod) in joint else "; but not together with the other pending pods"
        entry.update(verdict="fits-now", nodes=now, message=f"the claims fit now on node(s) "
                     f"{', '.join(now[:5])}: a false negative of the scheduler, or the pod was not retried "
                     f"since resources were freed{joint_note}")
        return entry
    if pod_key(pod) in joint:
        entry.update(verdict="fits-jointly", nodes=[joint[pod_key(pod)]],
                     message=f"fits on node {joint[pod_key(pod)]} when the pending pods are placed together")
        return entry
    moves = _moves(pa, claims, held, nodes)
    if moves is not None:
        node, moved = moves
        entry.update(verdict="fits-after-moves", nodes=[node], moves=moved,
                     message=f"fits on node {node} if {len(moved)} existing allocation(s) move: "
                     + "; ".join(f"{m['claim']} to node {m['to']}" for m in moved))
        return entry
    entry.update(verdict="does-not-fit", message=_explain(pa, claims, held, nodes))
    return entry


def _holders_on(held: list[ResourceClaim], state: ClusterState, node: Node) -> list[ResourceClaim]:
    """Allocated claims that hold devices usable on ``node`` (moving them may help)."""
    return [c for c in held if state.node_for(c).name in (node.name, "")]


def _moves(pa: PendingAnalysis, claims: list[ResourceClaim], held: list[ResourceClaim],
           nodes: list[Node]) -> tuple[str, list[dict[str, str]]] | None:
    for size in (1, 2):
        for n in nodes:
            cands = _holders_on(held, pa.state, n)
            for group in combinations(cands, size):
                if pa.budget.calls <= 0:
                    return None
                gone = {c.key for c in group}
                rest = [c for c in held if c.key not in gone]
                placed = pa.fits(claims, rest, [n])
                if placed is None:
                    continue
                moved = _replace(pa, list(group), rest + placed[1])
                if moved is not None:
                    return n.name, moved
    return None


def _replace(pa: PendingAnalysis, group: list[ResourceClaim], held: list[ResourceClaim]) -> list[dict[str, str]] | None:
    out = []
    for c in group:
        bare = c.model_copy(update={"status": None})
        got = pa.fits([bare], held, pa.nodes(Pod()))
        if got is None:
            return None
        held = held + got[1]
        out.append({"claim": c.key, "from": pa.state.node_for(c).name, "to": got[0].name})
    return out


def _explain(pa: PendingAnalysis, claims: list[ResourceClaim], held: list[ResourceClaim], nodes: list[Node]) -> str:
    if not nodes:
        return "no node is known (the state holds no nodes and no node-local slices)"
    parts = []
    for n in nodes[:3]:
        out = allocate(pa.state.objects, n, claims, allocated=held, features=pa.features,
                       mode="replay", variant=pa.variant)
        why = out.error or "; ".join(out.reasons) or "no combination of devices satisfies the constraints"
        parts.append(f"on node {n.name}: {why}")
    more = f" (and {len(nodes) - 3} more node(s))" if len(nodes) > 3 else ""
    return "does not fit on any node, even after moving up to 2 allocations: " + " | ".join(parts) + more
