"""A running cluster to ask make-room about: the pods of a demand placed
by the scheduler simulation (:func:`simulate_pods`, Kubernetes' own
search, node ``policy``) and written as running pods -- each bound to its
node, its claims allocated and reserved for it -- with the workload's name
as its ``app`` label and its gang annotations kept (a running gang)."""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction

from dralloc.extended import CLAIM_SUFFIX, ExtendedReader, build_requests, new_claim
from dralloc.features import Features
from dralloc.io import ObjectSet
from dralloc.models import (
    ContainerExtendedResourceRequest,
    ObjectMeta,
    Pod,
    PodExtendedResourceClaimStatus,
    PodResourceClaim,
    ResourceClaim,
    ResourceClaimStatus,
)
from dralloc.models.core import PodStatus
from dralloc.models.resource import ResourceClaimConsumerReference
from dralloc.planner.simulate.podsim import simulate_pods
from dralloc.planner.view.demand import EXTENDED_ENTRY
from dralloc.planner.view.pods import REPLICAS, pods_demand


def _extended(template: Pod, name: str, made: ResourceClaim, reader: ExtendedReader) -> tuple[ResourceClaim, PodStatus]:
    """The scheduler's extended-resource claim of a running pod (named,
    annotated and owned as kube-scheduler makes it) and the pod status that
    names it (:mod:`dralloc.extended`)."""
    running = template.model_copy(update={"metadata": template.metadata.model_copy(
        update={"name": name, "uid": f"uid-{name}"})})
    demand = reader.demand(running)
    maps = build_requests(running, demand.classes, reader.resolver)[1] if demand is not None else []
    claim = new_claim(running, [], f"{name}-{CLAIM_SUFFIX}")
    claim = claim.model_copy(update={"spec": made.spec})
    status = PodStatus(phase="Running", extended_resource_claim_status=PodExtendedResourceClaimStatus(
        resource_claim_name=claim.name, request_mappings=[ContainerExtendedResourceRequest(
            container_name=m.container, resource_name=m.resource, request_name=m.request) for m in maps]))
    return claim, status


def _pod(template: Pod, name: str, node: str, claims: list[tuple[str, str]], status: PodStatus | None = None) -> Pod:
    ann = {k: v for k, v in (template.metadata.annotations or {}).items() if k != REPLICAS}
    labels = {**(template.metadata.labels or {}), "app": template.name}
    spec = template.spec.model_copy(update={
        "node_name": node, "resource_claims": [PodResourceClaim(name=e, resource_claim_name=c) for e, c in claims]})
    meta = ObjectMeta(name=name, namespace=template.metadata.namespace or "default", labels=labels,
                      annotations=ann or None, uid=f"uid-{name}")
    return Pod(metadata=meta, spec=spec, status=status)


def fill(objs: ObjectSet, features: Features, policy: str = "least",
         progress: Callable[[int, int], None] | None = None) -> ObjectSet:
    """``objs`` with its pending pods placed and running (those that fit);
    the pods that do not fit are left out."""
    demand = pods_demand(objs, features)
    sim = simulate_pods(objs, demand, features, policy=policy, progress=progress)
    templates = {f"{p.metadata.namespace or 'default'}/{p.name}": p for p in objs.pods if not p.spec.node_name}
    out = ObjectSet()
    for o in objs.all():
        if not (isinstance(o, Pod) and not o.spec.node_name):
            out.add(o)
    multi = {p.name for p in demand.pods if p.replicas > 1}
    reader = ExtendedReader.of(objs, features)
    for pl in sim.placed:
        t = templates[pl.pod]
        name = f"{t.name}-{pl.replica}" if pl.pod in multi else t.name
        entries: list[tuple[str, str]] = []
        status: PodStatus | None = None
        for i, c in enumerate(pl.claims):
            reserved = [ResourceClaimConsumerReference(resource="pods", name=name, uid=f"uid-{name}")]
            state = ResourceClaimStatus(allocation=c.status.allocation if c.status else None, reserved_for=reserved)
            if c.name.endswith(f"-{EXTENDED_ENTRY}"):
                made, status = _extended(t, name, c, reader)
                out.add(made.model_copy(update={"status": state}))
                continue
            cname = f"{name}-{i}"
            out.add(c.model_copy(update={"metadata": ObjectMeta(name=cname, namespace=t.metadata.namespace or "default"),
                                         "status": state}))
            entries.append((f"c{i}", cname))
        out.add(_pod(t, name, pl.node, entries, status))
    return out


def thin(objs: ObjectSet, load: Fraction, seed: int = 0, largest: int | None = None) -> ObjectSet:
    """``objs`` with running pods removed at random (``seed``; only pods
    holding at most ``largest`` devices), with their claims, until at most
    ``load`` of the devices published are allocated."""
    total = sum(len(s.spec.devices or []) for s in objs.slices)
    holders: dict[str, list[ResourceClaim]] = {}
    claims = {c.key: c for c in objs.claims}
    for p in objs.pods:
        if p.spec.node_name:
            ns = p.metadata.namespace or "default"
            holders[f"{ns}/{p.name}"] = [claims[f"{ns}/{e.resource_claim_name}"] for e in p.spec.resource_claims or []
                                         if e.resource_claim_name and f"{ns}/{e.resource_claim_name}" in claims]
    used = sum(len(c.status.allocation.devices.results or []) for c in objs.claims
               if c.status and c.status.allocation and c.status.allocation.devices)
    def size(key: str) -> int:
        return sum(len(c.status.allocation.devices.results or []) for c in holders[key]
                   if c.status and c.status.allocation and c.status.allocation.devices)

    order = sorted(k for k in holders if largest is None or size(k) <= largest)
    random.Random(seed).shuffle(order)
    gone_pods: set[str] = set()
    gone_claims: set[str] = set()
    for key in order:
        if used <= load * total:
            break
        gone_pods.add(key)
        gone_claims.update(c.key for c in holders[key])
        used -= size(key)
    out = ObjectSet()
    for o in objs.all():
        if isinstance(o, Pod) and f"{o.metadata.namespace or 'default'}/{o.name}" in gone_pods:
            continue
        if isinstance(o, ResourceClaim) and o.key in gone_claims:
            continue
        out.add(o)
    return out
