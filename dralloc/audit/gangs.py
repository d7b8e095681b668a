"""Pending gangs: does a gang whose pods wait fit, Kubernetes' way and at all?

A gang (PodGroup, Workload pod group or the planner's annotation;
:mod:`dralloc.gangs`, read as every command reads it) is placed with at least
its minimum of pods (running pods count) or not at all. Per gang, never
across gangs:

* **a broken link** (a PodGroup or Workload that is not in the input, two
  links, a composite group or topology constraint that changes placement):
  a finding about that pod; the other gangs are analysed as usual;
* **fewer pods than minCount**: the gang waits for pods, not for devices --
  Kubernetes lets none of its pods into a scheduling cycle until minCount
  exist (the gang plugin's PreEnqueue);
* **the minimum met by running pods**: each pending member is scheduled on
  its own, so it is analysed like any pending pod (:mod:`.pending`), its
  group's allocated claims restricting its nodes;
* otherwise **Kubernetes' way** -- its gang cycle under every tie-break
  kube-scheduler can make among equally-scored nodes (:mod:`.tiebreak`):
  placed, refused, depending on the tie-break, or not decided (budget, time
  limit) -- and when it is refused or not decided, **exactly**: the joint
  CP-SAT placement of the gang's pods (:mod:`dralloc.audit.joint`,
  existing allocations kept, answers re-checked by the independent
  checker); pending PodGroup-level claims are placed once, and each pod only
  where the devices chosen for them reach (a multi-node device reaches many
  nodes). Never fewer pods than Kubernetes' own cycle placed.

"does not fit" is said only when the exact placement proves it; a search
ended by the budget or a time limit says "not decided" and why."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dralloc.audit.analysis import JOINT_TIME_LIMIT, PendingAnalysis
from dralloc.audit.answers import WORDS, Kube, time_limit
from dralloc.audit.joint import Group, place_jointly
from dralloc.audit.state import pod_key
from dralloc.audit.tiebreak import CyclePod, CycleResult, gang_cycle
from dralloc.checker.finding import INFO, WARNING, Finding
from dralloc.errors import InputError
from dralloc.gangs import Gang, GangReader
from dralloc.models import Pod, ResourceClaim

GROUP = "#group-claims"     # the joint model's group for a gang's pending PodGroup claims


@dataclass
class _Gang:
    gang: Gang
    pods: list[Pod] = field(default_factory=list)                      # pending, in cycle order
    claims: dict[str, list[ResourceClaim]] = field(default_factory=dict)   # pod -> its claims, in order
    group: dict[str, ResourceClaim] = field(default_factory=dict)          # the group's claims (key -> claim)


@dataclass
class GangsRead:
    gangs: list[_Gang] = field(default_factory=list)      # to analyse as gangs
    waiting: list[_Gang] = field(default_factory=list)    # fewer pods than minCount
    alone: dict[str, str] = field(default_factory=dict)   # pod -> its gang, minimum met by running pods
    broken: dict[str, str] = field(default_factory=dict)  # pod -> why its gang link is bad


def _claims(pa: PendingAnalysis, pod: Pod) -> list[ResourceClaim]:
    known = pa.state.claims_of(pod)
    keys = {c.key for c in known}
    return known + [c for c in pa.state.claims_to_place(pod) if c.key not in keys]


def read_gangs(pa: PendingAnalysis, pending: list[Pod]) -> GangsRead:
    """The pending pods' gangs, each on its own; a bad link is about its pod."""
    objs = pa.state.objects
    reader = GangReader(objs)
    out = GangsRead()
    links = {}
    for p in objs.pods:
        try:
            links[pod_key(p)] = reader.link(p, pod_key(p), 1)
        except InputError as e:
            out.broken[pod_key(p)] = str(e)
    gangs = reader.finish()
    found: dict[str, _Gang] = {}
    for pod in pending:
        pk = pod_key(pod)
        link = links.get(pk)
        if pk in out.broken or link is None or link.gang not in gangs:
            continue
        gang = gangs[link.gang]
        if gang.needed == 0 and not gang.waits_for_pods:
            out.alone[pk] = gang.key
            continue
        g = found.setdefault(gang.key, _Gang(gang))
        g.pods.append(pod)
        g.claims[pk] = _claims(pa, pod)
        g.group.update({c.key: c for c in g.claims[pk] if c.key in pa.state.group_keys})
    for g in found.values():
        g.pods.sort(key=lambda p: (-(p.spec.priority or 0), pod_key(p)))
        (out.waiting if g.gang.waits_for_pods else out.gangs).append(g)
    out.broken = {k: v for k, v in out.broken.items() if k in {pod_key(p) for p in pending}}
    return out


def kubernetes_way(pa: PendingAnalysis, g: _Gang) -> CycleResult:
    """The gang cycle under every tie-break, on the cluster as it is now."""
    pods = [CyclePod(pod_key(p), tuple(g.claims[pod_key(p)]), tuple(pa.nodes(p))) for p in g.pods]
    return gang_cycle(pa.cluster, pods, g.gang.needed, pa.nodes(Pod()), pa.budget)


def exactly(pa: PendingAnalysis, g: _Gang, held: list[ResourceClaim],
            hint: dict[str, str] | None) -> tuple[dict[str, str], bool]:
    """The most pods of the gang placeable together (pod -> node), and
    whether that is proven."""
    pending = tuple(c for c in g.group.values() if not (c.status and c.status.allocation))
    groups = [Group(GROUP, pending, tuple(pa.nodes(Pod())), weight=0)] if pending else []
    for p in g.pods:
        own = tuple(c for c in g.claims[pod_key(p)] if c.key not in g.group and not (c.status and c.status.allocation))
        groups.append(Group(pod_key(p), own, tuple(pa.nodes(p))))
    requires = {pod_key(p): GROUP for p in g.pods} if pending else None
    res = place_jointly(pa.state.objects, groups, held, pa.features, pa.variant, time_limit=JOINT_TIME_LIMIT,
                        hint=hint, requires=requires)
    return {k: n for k, n in res.placed.items() if k != GROUP}, res.proven


def analyse_gangs(pa: PendingAnalysis, pending: list[Pod], held: list[ResourceClaim]) -> \
        tuple[list[Finding], list[dict[str, Any]], set[str], dict[str, str]]:
    """Findings and entries per pending gang (and per pod with a bad link),
    the pods they cover, and the pods to analyse alone (pod -> gang)."""
    read = read_gangs(pa, pending)
    findings: list[Finding] = []
    entries: list[dict[str, Any]] = []
    covered = set(read.broken)
    for pk, why in sorted(read.broken.items()):
        entries.append({"pod": pk, "verdict": "gang-link-broken", "claims": [],
                        "message": f"{why}; the pod is not scheduled until its gang link resolves"})
        findings.append(Finding(WARNING, "pending", pk, entries[-1]["message"], (f"Pod {pk}",),
                                ("spec.schedulingGroup",), "gang-link-broken"))
    for g in read.waiting:
        entries.append(_waiting(g))
    for g in read.gangs:
        cyc = kubernetes_way(pa, g)
        best, proven = (cyc.placed or {}), True
        if cyc.kube in (Kube.REFUSED, Kube.NOT_DECIDED):
            got, proven = exactly(pa, g, held, cyc.placed or cyc.refused)
            if len(got) > len(best):
                best = got
        entries.append(_entry(g, cyc, best, proven))
    for g, e in zip([*read.waiting, *read.gangs], entries[len(read.broken):], strict=True):
        covered.update(pod_key(p) for p in g.pods)
        level = INFO if e["verdict"] == "gang-fits-now" else WARNING
        findings.append(Finding(level, "pending", g.gang.key, e["message"], tuple(f"Pod {pod_key(p)}" for p in g.pods),
                                ("spec.schedulingGroup",), e["verdict"]))
    return findings, entries, covered, read.alone


def _head(g: _Gang) -> dict[str, Any]:
    return {"gang": g.gang.key, "pods": [pod_key(p) for p in g.pods], "minCount": g.gang.min_count,
            "running": g.gang.bound}


def _waiting(g: _Gang) -> dict[str, Any]:
    have, need = g.gang.size + g.gang.bound, g.gang.min_count
    return {**_head(g), "verdict": "gang-waits-for-pods", "nodes": {},
            "kubernetes": {"answer": Kube.REFUSED.value, "why": "fewer pods than minCount"},
            "message": f"gang {g.gang.key}: waits for pods, not for devices: minCount {need}, but only {have} of its "
                       f"pods exist ({g.gang.bound} running, {g.gang.size} pending); Kubernetes lets none of them into "
                       f"a scheduling cycle until {need} exist"}


def _kube_field(cyc: CycleResult) -> dict[str, Any]:
    out: dict[str, Any] = {"answer": cyc.kube.value, "allocatorCalls": cyc.calls}
    if cyc.placed is not None:
        out["placedBy"] = dict(sorted(cyc.placed.items()))
    if cyc.refused is not None:
        out["refusedBy"] = dict(sorted(cyc.refused.items()))
    if cyc.why:
        out["why"] = cyc.why
    return out


def _entry(g: _Gang, cyc: CycleResult, best: dict[str, str], proven: bool) -> dict[str, Any]:
    need, key = g.gang.needed, g.gang.key
    entry: dict[str, Any] = {**_head(g), "kubernetes": _kube_field(cyc)}
    where = ", ".join(f"{p} on {n}" for p, n in sorted(best.items()))
    cycle = f"gang {key}: Kubernetes' gang cycle (pod by pod, highest DRA score, ties at random)"
    if cyc.kube is Kube.PLACED:
        entry.update(verdict="gang-fits-now", nodes=dict(sorted(best.items())),
                     message=f"{cycle} places {len(best)} of its {len(g.pods)} pending pods (minimum {need} more) "
                     f"now, {WORDS[Kube.PLACED]}: the scheduler did not retry it since resources were freed")
    elif cyc.kube is Kube.TIE_BREAK:
        entry.update(verdict="gang-fits-by-tie-break", nodes=dict(sorted(best.items())),
                     message=f"gang {key}: {WORDS[Kube.TIE_BREAK]} among equally-scored nodes: one draw places it now "
                     f"({where}), another refuses it (it places only {_pairs(cyc.refused)}, fewer than the {need} "
                     "pods it needs)")
    elif len(best) >= need and cyc.kube is Kube.REFUSED:
        entry.update(verdict="gang-fits-jointly", nodes=dict(sorted(best.items())),
                     message=f"{cycle} refuses the gang under every tie-break (e.g. it places only "
                     f"{len(cyc.refused or {})} of the {need} pods it needs: {_pairs(cyc.refused)}), but the gang "
                     f"fits: {where} (joint CP-SAT placement; the answer passes the independent checker)")
    elif len(best) >= need:
        entry.update(verdict="gang-fits", nodes=dict(sorted(best.items())),
                     message=f"gang {key}: fits: {where} (joint CP-SAT placement; the answer passes the independent "
                     f"checker); whether Kubernetes' gang cycle places it now was not decided: {cyc.why}")
    elif proven:
        entry.update(verdict="gang-does-not-fit", nodes=dict(sorted(best.items())),
                     message=f"gang {key}: does not fit: at most {len(best)} of the {need} pods it needs can be "
                     "placed together (proven by the joint CP-SAT placement)")
    else:
        why = [cyc.why] if cyc.why else []
        why.append(time_limit("the joint CP-SAT placement", JOINT_TIME_LIMIT) + f" with {len(best)} of the {need} "
                   "pods it needs placed together")
        entry.update(verdict="gang-not-decided", nodes=dict(sorted(best.items())),
                     message=f"gang {key}: not decided: " + "; ".join(why))
    return entry


def _pairs(placed: dict[str, str] | None) -> str:
    return ", ".join(f"{p} on {n}" for p, n in sorted((placed or {}).items())) or "no pod placed"
