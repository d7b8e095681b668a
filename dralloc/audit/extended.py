"""Extended resources through DRA, read back (rule ``extended-resources``):
for every pod on a node that asks for an extended resource, is its
extended-resource claim the one kube-scheduler makes there
(:mod:`dralloc.extended`) -- made where DRA serves a resource on that node
and only there, allocated, with the requests (class, count, names) the
scheduler builds, named in the pod's ``status.extendedResourceClaimStatus``
with the request mapping it writes? Also: a node's device plugins handing
out more than they advertise, and a pending pod whose claim is left from an
earlier scheduling cycle (the scheduler deletes it and tries again)."""

from __future__ import annotations

from typing import Any

from dralloc.audit.state import ClusterState, pod_key
from dralloc.checker.finding import ERROR, INFO, WARNING, Finding
from dralloc.extended import Demand, allocatable, build_requests, status_mappings
from dralloc.models import Node, Pod, ResourceClaim

RULE = "extended-resources"


def _requests(claim: ResourceClaim) -> list[dict[str, Any]]:
    out = []
    for r in claim.spec.devices.requests or []:
        ex = r.exactly
        out.append({"name": r.name, "exactly": {"deviceClassName": ex.device_class_name if ex else "",
                                                "allocationMode": (ex.allocation_mode if ex else None)
                                                or "ExactCount", "count": ex.count if ex else None}})
    return out


def _words(reqs: list[dict[str, Any]]) -> str:
    return ", ".join(f"{r['name']}: {r['exactly']['count']} x {r['exactly']['deviceClassName']}" for r in reqs) \
        or "no requests"


def _finding(level: str, pod: Pod, claim: str, message: str, fields: tuple[str, ...], detail: str = "") -> Finding:
    objs = (f"Pod {pod_key(pod)}",) + ((f"ResourceClaim {claim}",) if claim else ())
    return Finding(level, RULE, claim, message, objs, fields, detail)


def _bound(state: ClusterState, pod: Pod, demand: Demand, node: Node) -> list[Finding]:
    reader = state.extended
    assert reader is not None
    release = reader.features.kubernetes_version
    share = demand.share(node, {})
    found = reader.recorded(pod)
    key = found.key if found is not None else ""
    where = f"pod {pod_key(pod)} on node {node.name}"
    out = []
    if share.missing:
        out.append(_finding(WARNING, pod, key, f"{where} asks for {', '.join(share.missing)}, which the node's "
                            "device plugins do not advertise (status.allocatable) and " + (
                                "no DeviceClass serves" if demand.gate else
                                f"DRA cannot serve (DRAExtendedResource is off in Kubernetes {release})"),
                            ("spec.containers", "spec.nodeName")))
    if not demand.gate:
        if found is not None:
            out.append(_finding(WARNING, pod, key, f"{where} has an extended-resource claim, but with "
                                f"DRAExtendedResource off (Kubernetes {release}) the scheduler makes none: its "
                                "extended resources are the device plugins'", ("metadata.annotations",)))
        return out
    if not share.dra:
        alloc = found.status.allocation if found is not None and found.status else None
        if alloc is not None and alloc.devices is not None and alloc.devices.results:
            out.append(_finding(WARNING, pod, key, f"{where}: the node's device plugins serve "
                                f"{', '.join(share.plugin)} (status.allocatable, which takes precedence), yet its "
                                "extended-resource claim holds DRA devices", ("status.allocation",)))
        return out
    return out + _claim(state, pod, demand, node, share.dra, found)


def _claim(state: ClusterState, pod: Pod, demand: Demand, node: Node, dra: list[str],
           found: ResourceClaim | None) -> list[Finding]:
    reader = state.extended
    assert reader is not None
    where = f"pod {pod_key(pod)} on node {node.name}"
    served = ", ".join(f"{n} by {reader.resolver.why(n)}" for n in dra)
    if found is None:
        return [_finding(ERROR, pod, "", f"{where} asks for {', '.join(dra)}, which DRA serves there ({served}; "
                         "no device plugin on the node advertises it), but it has no extended-resource claim "
                         "(status.extendedResourceClaimStatus names none): its containers get no devices for it",
                         ("status.extendedResourceClaimStatus",))]
    out = []
    if found.status is None or found.status.allocation is None:
        out.append(_finding(ERROR, pod, found.key, f"{where}: its extended-resource claim is not allocated",
                            ("status.allocation",)))
    want, maps = build_requests(pod, dra, reader.resolver)
    have = _requests(found)
    if have != want:
        out.append(_finding(WARNING, pod, found.key, f"{where}: the extended-resource claim asks for "
                            f"[{_words(have)}]; kube-scheduler ({reader.features.kubernetes_version}) builds "
                            f"[{_words(want)}] there ({served})", ("spec.devices.requests",),
                            "a claim built by another release or by hand"))
    name, recorded = status_mappings(pod)
    if name != found.name:
        out.append(_finding(WARNING, pod, found.key, f"{where}: status.extendedResourceClaimStatus names "
                            f"{name or 'no claim'}, not its extended-resource claim {found.name}",
                            ("status.extendedResourceClaimStatus.resourceClaimName",)))
    if sorted(recorded, key=str) != sorted(maps, key=str):
        show = "; ".join(f"{m.container}/{m.resource} -> {m.request}" for m in maps)
        got = "; ".join(f"{m.container}/{m.resource} -> {m.request}" for m in recorded) or "none"
        out.append(_finding(WARNING, pod, found.key, f"{where}: status.extendedResourceClaimStatus.requestMappings "
                            f"is [{got}]; the scheduler writes [{show}] (the kubelet hands each container the "
                            "devices of its requests)", ("status.extendedResourceClaimStatus.requestMappings",)))
    return out


def _overcommitted(state: ClusterState) -> list[Finding]:
    """Nodes whose bound pods request more of a device plugin's resource than it advertises."""
    reader = state.extended
    assert reader is not None
    out = []
    for node in state.objects.nodes:
        have = allocatable(node)
        used = reader.used(node.name)
        for n, cap in sorted(have.items()):
            if used.get(n, 0) > cap and cap > 0:
                out.append(Finding(WARNING, RULE, "", f"node {node.name}: its pods request {used[n]} {n}, its "
                                   f"device plugins advertise {cap} (status.allocatable)", (f"Node {node.name}",),
                                   (f"status.allocatable[{n}]",)))
    return out


def _not_dra(state: ClusterState, pod: Pod, demand: Demand) -> Finding:
    """A pending pod whose extended resources DRA does not serve: the device plugins' alone."""
    assert state.extended is not None
    nodes = [n.name for n in state.objects.nodes if any(allocatable(n).get(r, 0) > 0 for r in demand.requests)]
    where = f"nodes whose device plugins advertise them: {', '.join(nodes[:5])}" + (
        f" and {len(nodes) - 5} more" if len(nodes) > 5 else "") if nodes else "no node's device plugins advertise them"
    return _finding(INFO, pod, "", f"pod {pod_key(pod)} is pending; "
                    f"{demand.not_dra(state.extended.features.kubernetes_version)} ({where}); dralloc does not "
                    "model device plugins beyond that", ("spec.containers",))


def check_extended(state: ClusterState) -> list[Finding]:
    """Every pod's extended resources, read back against what the scheduler does."""
    if state.extended is None or not state.demands:
        return []
    out = _overcommitted(state)
    pods = {pod_key(p): p for p in state.objects.pods}
    for pk, demand in state.demands.items():
        pod = pods[pk]
        if pod.status is not None and pod.status.phase in ("Succeeded", "Failed"):
            continue
        if pod.spec.node_name:
            node = state.objects.node(pod.spec.node_name)
            if node is not None:
                out += _bound(state, pod, demand, node)
            continue
        if not demand.dra:
            out.append(_not_dra(state, pod, demand))
            continue
        found = state.extended.recorded(pod)
        if found is not None:
            out.append(_finding(INFO, pod, found.key, f"pod {pk} is pending with an extended-resource claim from an "
                                "earlier scheduling cycle: the scheduler deletes it (PostFilter) and tries again "
                                "with a new one", ("metadata.annotations",)))
    return out
