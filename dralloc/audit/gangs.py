"""Pending gangs: does a gang whose pods wait fit, Kubernetes' way and at all?

A gang (PodGroup, Workload pod group or the planner's annotation;
:mod:`dralloc.gangs`) is placed with at least its minimum of pods (running
pods count) or not at all. For each gang with pending pods:

* **Kubernetes' way** -- the gang cycle of kube-scheduler: the group's
  pending pods one by one (priority, then name), each on the first node
  where Kubernetes' allocator (replay) allocates its claims, the devices
  held for the next pod, none revisited; a PodGroup-level claim is
  allocated with the first pod and then only admits nodes its allocation's
  nodeSelector matches. Placed if at least the minimum is reached.
* **exactly** -- the joint CP-SAT placement of the gang's pods
  (:mod:`dralloc.audit.joint`, existing allocations kept; answers re-checked
  by the independent checker): the most pods placeable together. With
  PodGroup-level claims, the claims and the minimum of pods on one node.

A gang Kubernetes' way refuses but the exact placement places is reported
like a pending pod that fits: a placement the scheduler misses
(kubernetes/kubernetes#138765)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dralloc.audit.analysis import JOINT_TIME_LIMIT, PendingAnalysis
from dralloc.audit.joint import Group, place_jointly
from dralloc.audit.state import pod_key
from dralloc.checker.finding import INFO, WARNING, Finding
from dralloc.errors import InputError
from dralloc.gangs import Gang, GangReader
from dralloc.inventory.nodesel import NodeSelectorError, allocation_admits
from dralloc.models import Node, Pod, ResourceClaim


@dataclass
class _Gang:
    gang: Gang
    pods: list[Pod] = field(default_factory=list)                      # pending, in cycle order
    claims: dict[str, list[ResourceClaim]] = field(default_factory=dict)   # pod -> its claims to allocate
    group: dict[str, ResourceClaim] = field(default_factory=dict)          # group claims (key -> claim)


def _visible(claim: ResourceClaim, node: Node) -> bool:
    try:
        return allocation_admits(claim, node)
    except NodeSelectorError:
        return False   # admission reports a malformed one (validation/objects.py)


def read_gangs(pa: PendingAnalysis, pending: list[Pod]) -> tuple[list[_Gang], list[Finding]]:
    """The gangs with pending pods, each pod's claims (group claims shared)."""
    objs = pa.state.objects
    try:
        reader = GangReader(objs)
        shared: dict[str, ResourceClaim] = {}
        links = {pod_key(p): reader.link(p, pod_key(p), 1) for p in objs.pods}
        gangs = reader.finish()
    except InputError as e:
        return [], [Finding(WARNING, "pending", "", f"gangs not analysed: {e}")]
    out: dict[str, _Gang] = {}
    for pod in pending:
        link = links.get(pod_key(pod))
        if link is None or link.gang not in gangs:
            continue
        g = out.setdefault(link.gang, _Gang(gangs[link.gang]))
        g.pods.append(pod)
        own = pa.state.claims_to_place(pod)
        for prc in pod.spec.resource_claims or []:
            key = reader.group_claim(pod, prc, link, shared)
            if key is None:
                continue
            own = [c for c in own if c.name != f"{pod.name}-{prc.name}" and c.key != key]
            g.group[key] = shared[key]
        g.claims[pod_key(pod)] = own
    for g in out.values():
        g.pods.sort(key=lambda p: (-(p.spec.priority or 0), pod_key(p)))
    return list(out.values()), []


def kubernetes_way(pa: PendingAnalysis, g: _Gang) -> dict[str, str]:
    """Pod -> node as the gang cycle places them (before its all-or-nothing
    check); the cluster object holds the cycle's claims only while it runs."""
    done: dict[str, ResourceClaim] = {k: c for k, c in g.group.items() if c.status and c.status.allocation}
    out: dict[str, str] = {}
    with pa.cluster.trial():
        for pod in g.pods:
            todo = [c for k, c in g.group.items() if k not in done] + g.claims[pod_key(pod)]
            nodes = [n for n in pa.nodes(pod) if all(_visible(c, n) for c in done.values())]
            got = pa.fits(todo, nodes)
            if got is None:
                continue
            node, claims = got
            done.update({c.key: c for c in claims if c.key in g.group})
            out[pod_key(pod)] = node.name
    return out


def exactly(pa: PendingAnalysis, g: _Gang, held: list[ResourceClaim]) -> tuple[dict[str, str], bool]:
    """The most pods of the gang placeable together (pod -> node), and
    whether that is proven."""
    nodes = tuple(pa.nodes(g.pods[0]))
    pending = [c for c in g.group.values() if not (c.status and c.status.allocation)]
    if pending:   # the group's claims and its minimum of pods on one node
        first = g.pods[:max(1, g.gang.needed)]
        claims = tuple(pending) + tuple(c for p in first for c in g.claims[pod_key(p)])
        res = place_jointly(pa.state.objects, [Group(g.gang.key, claims, nodes)], held, pa.features, pa.variant,
                            time_limit=JOINT_TIME_LIMIT)
        where = res.placed.get(g.gang.key)
        return ({pod_key(p): where for p in first} if where else {}), res.proven
    groups = [Group(pod_key(p), tuple(g.claims[pod_key(p)]), nodes) for p in g.pods]
    hint = kubernetes_way(pa, g)
    res = place_jointly(pa.state.objects, groups, held, pa.features, pa.variant, time_limit=JOINT_TIME_LIMIT,
                        hint=hint)
    return dict(res.placed), res.proven


def analyse_gangs(pa: PendingAnalysis, pending: list[Pod], held: list[ResourceClaim]) -> \
        tuple[list[Finding], list[dict[str, Any]], set[str]]:
    """Findings and entries per pending gang, and the pods they cover."""
    gangs, findings = read_gangs(pa, pending)
    entries: list[dict[str, Any]] = []
    covered: set[str] = set()
    for g in gangs:
        covered.update(pod_key(p) for p in g.pods)
        k8s = kubernetes_way(pa, g)
        entry = _entry(g, k8s, *(exactly(pa, g, held) if len(k8s) < g.gang.needed else (k8s, True)))
        entries.append(entry)
        level = INFO if entry["verdict"] == "gang-fits-now" else WARNING
        findings.append(Finding(level, "pending", g.gang.key, entry["message"],
                                tuple(f"Pod {pod_key(p)}" for p in g.pods), ("spec.schedulingGroup",),
                                entry["verdict"]))
    return findings, entries, covered


def _entry(g: _Gang, k8s: dict[str, str], best: dict[str, str], proven: bool) -> dict[str, Any]:
    need, key = g.gang.needed, g.gang.key
    entry: dict[str, Any] = {"gang": key, "pods": [pod_key(p) for p in g.pods], "minCount": g.gang.min_count,
                             "running": g.gang.bound, "kubernetes": k8s}
    where = ", ".join(f"{p} on {n}" for p, n in sorted(best.items()))
    if len(k8s) >= need:
        entry.update(verdict="gang-fits-now", nodes=k8s,
                     message=f"gang {key}: Kubernetes' gang cycle places {len(k8s)} of its {len(g.pods)} pending "
                     f"pods (minimum {need} more) now: the scheduler did not retry it since resources were freed")
    elif len(best) >= need:
        entry.update(verdict="gang-fits-jointly", nodes=best,
                     message=f"gang {key}: Kubernetes' gang cycle (pod by pod, first-fit devices, no revisit) "
                     f"places only {len(k8s)} of the {need} pods it needs and refuses the gang, but the gang fits: "
                     f"{where} (joint CP-SAT placement; the answer passes the independent checker)")
    else:
        bound = "" if proven else " (not proven within the time limit)"
        entry.update(verdict="gang-does-not-fit", nodes=best,
                     message=f"gang {key}: does not fit: at most {len(best)} of the {need} pods it needs can be "
                     f"placed together{bound}")
    return entry
