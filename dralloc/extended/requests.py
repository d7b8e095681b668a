"""A pod's extended-resource requests (the scheduler's ``PodRequests``) and
the requests, name and marks of the claim it makes for them
(``createRequestsAndMappings``) -- :mod:`dralloc.extended`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from dralloc.errors import InputError
from dralloc.extended.names import (
    CLAIM_ANNOTATION,
    CLAIM_SUFFIX,
    MAX_NAME,
    ClassResolver,
    is_extended_claim,
    is_extended_name,
    namespace_of,
    pod_key,
)
from dralloc.models import Container, ObjectMeta, OwnerReference, Pod, ResourceClaim
from dralloc.quantity import Quantity, QuantityError


def _amount(value: Any, where: str, path: str) -> int:
    try:
        q = Quantity.parse(value)
    except QuantityError as e:
        raise InputError(str(e), obj=where, field=path) from None
    if not q.value.denominator == 1 or q.value < 0:
        raise InputError(f"{q} is not a whole number of devices (an extended resource is counted in units)",
                         obj=where, field=path)
    return int(q.value)


def container_requests(c: Container, where: str, path: str) -> dict[str, int]:
    """The container's extended-resource requests, defaulted from its limits
    where not given (the API server's defaulting)."""
    res = c.resources
    if res is None:
        return {}
    out: dict[str, int] = {}
    for kind, values in (("requests", res.requests or {}), ("limits", res.limits or {})):
        for name, value in values.items():
            if name not in out and is_extended_name(name):
                out[name] = _amount(value, where, f"{path}.resources.{kind}[{name}]")
    return out


def request_keys(c: Container) -> list[str]:
    """Every resource name of the container's (defaulted) requests, sorted:
    what a request's index counts in."""
    res = c.resources
    return sorted(set(res.requests or {}) | set(res.limits or {})) if res is not None else []


def _sidecar(c: Container) -> bool:
    return c.restart_policy == "Always"


def pod_requests(pod: Pod) -> dict[str, int]:
    """The pod's effective extended-resource requests (``PodRequests``):
    containers summed with the sidecars, plain init containers as a peak
    (with the sidecars started before them), overhead added; zeros left out."""
    where = f"Pod {pod_key(pod)}"
    total: dict[str, int] = {}
    for i, c in enumerate(pod.spec.containers):
        for n, v in container_requests(c, where, f"spec.containers[{i}]").items():
            total[n] = total.get(n, 0) + v
    sidecars: dict[str, int] = {}
    peak: dict[str, int] = {}
    for i, c in enumerate(pod.spec.init_containers or []):
        reqs = container_requests(c, where, f"spec.initContainers[{i}]")
        if _sidecar(c):
            for n, v in reqs.items():
                total[n] = total.get(n, 0) + v
                sidecars[n] = sidecars.get(n, 0) + v
            now = dict(sidecars)
        else:
            now = {n: reqs.get(n, 0) + sidecars.get(n, 0) for n in set(reqs) | set(sidecars)}
        for n, v in now.items():
            peak[n] = max(peak.get(n, 0), v)
    for n, v in peak.items():
        total[n] = max(total.get(n, 0), v)
    for n, v in (pod.spec.overhead or {}).items():
        if is_extended_name(n):
            total[n] = total.get(n, 0) + _amount(v, where, f"spec.overhead[{n}]")
    return {n: v for n, v in sorted(total.items()) if v}


# ---------------------------------------------------------------- the claim


@dataclass(frozen=True)
class Mapping:
    """One ``requestMappings`` entry: a container's resource -> a request."""

    container: str
    resource: str
    request: str

    def dump(self) -> dict[str, str]:
        return {"containerName": self.container, "resourceName": self.resource, "requestName": self.request}


@dataclass
class _Request:
    name: str
    cls: str
    count: int


def _one(index: int, c: Container, name: str, cls: str, reusable: list[_Request | None], where: str,
         path: str) -> tuple[_Request | None, list[Mapping]]:
    """The request (if one is needed) and mappings of one container for one
    resource; ``reusable``: requests of long-lived containers it may use first."""
    want = container_requests(c, where, path).get(name, 0)
    if not want:
        return None, []
    got, maps = 0, []
    for r in reusable:
        if r is not None:
            got += r.count
            maps.append(Mapping(c.name, name, r.name))
            if got >= want:
                return None, maps
    req = _Request(f"container-{index}-request-{request_keys(c).index(name)}", cls, want - got)
    maps.append(Mapping(c.name, name, req.name))
    return req, maps


def build_requests(pod: Pod, names: Iterable[str], resolver: ClassResolver) -> tuple[list[dict[str, Any]],
                                                                                    list[Mapping]]:
    """The extended-resource claim's requests for ``names`` (the resources
    DRA serves on a node) and the request mapping, as the scheduler builds
    them (``createRequestsAndMappings``)."""
    where = f"Pod {pod_key(pod)}"
    inits = list(pod.spec.init_containers or [])
    containers = inits + list(pod.spec.containers)
    paths = [f"spec.initContainers[{i}]" for i in range(len(inits))] + \
        [f"spec.containers[{i}]" for i in range(len(pod.spec.containers))]
    short = [i for i in range(len(inits)) if not _sidecar(inits[i])]
    long_ = [i for i in range(len(containers)) if i not in short]
    requests: list[_Request] = []
    mappings: list[Mapping] = []
    for name in sorted(names):
        cls = resolver.class_for(name)
        if cls is None:
            continue
        lived: list[_Request | None] = [None] * len(containers)
        long_maps: list[Mapping] = []
        for i in long_:
            lived[i], got = _one(i, containers[i], name, cls.name, [], where, paths[i])
            long_maps += got
        top: _Request | None = None
        short_names: set[str] = set()
        short_maps: list[Mapping] = []
        for i in short:
            req, got = _one(i, containers[i], name, cls.name, lived[i:], where, paths[i])
            if req is not None:
                short_names.add(req.name)
                top = req if top is None or top.count < req.count else top
            short_maps += got
        if top is not None and len(short_names) > 1:
            short_maps = [Mapping(m.container, m.resource, top.name) if m.request in short_names else m
                          for m in short_maps]
        requests += ([top] if top is not None else []) + [r for r in lived if r is not None]
        mappings += long_maps + short_maps
    requests.sort(key=lambda r: r.name)
    return ([{"name": r.name, "exactly": {"deviceClassName": r.cls, "allocationMode": "ExactCount",
                                          "count": r.count}} for r in requests], mappings)


def claim_name(pod: Pod, taken: Iterable[str] = ()) -> str:
    """The name dralloc gives the claim: ``<pod>-extended-resources`` (the
    scheduler's generateName, without the random suffix Kubernetes adds)."""
    base = f"{pod.name}-{CLAIM_SUFFIX}"[:MAX_NAME].rstrip("-.")
    busy = set(taken)
    name, n = base, 0
    while f"{namespace_of(pod)}/{name}" in busy:
        name = f"{base[:MAX_NAME - 4]}-{n}"
        n += 1
    return name


def new_claim(pod: Pod, requests: list[dict[str, Any]], name: str) -> ResourceClaim:
    """The extended-resource claim as the scheduler creates it: owned by the
    pod (controller), with the scheduler's annotation."""
    meta = ObjectMeta(name=name, namespace=namespace_of(pod), annotations={CLAIM_ANNOTATION: "true"},
                      owner_references=[OwnerReference(api_version="v1", kind="Pod", name=pod.name,
                                                       uid=pod.metadata.uid, controller=True)])
    return ResourceClaim.model_validate({"metadata": meta.dump(), "spec": {"devices": {"requests": requests}}})


def owner_of(claim: ResourceClaim) -> str | None:
    """``ns/pod`` of the pod an extended-resource claim belongs to."""
    if not is_extended_claim(claim):
        return None
    for o in claim.metadata.owner_references or []:
        if o.kind == "Pod" and o.controller:
            return f"{namespace_of(claim)}/{o.name}"
    return None


def same_pod(claim: ResourceClaim, pod: Pod) -> bool:
    """Whether the claim's controlling owner is this pod, not an earlier pod
    of the same name: the UIDs agree where both are known (the scheduler
    matches name and UID)."""
    for o in claim.metadata.owner_references or []:
        if o.kind == "Pod" and o.controller and o.name == pod.name:
            return not (o.uid and pod.metadata.uid and o.uid != pod.metadata.uid)
    return False


def status_mappings(pod: Pod) -> tuple[str | None, list[Mapping]]:
    """The claim name and request mapping ``status.extendedResourceClaimStatus`` records."""
    st = pod.status.extended_resource_claim_status if pod.status else None
    if st is None:
        return None, []
    return st.resource_claim_name or None, [Mapping(m.container_name, m.resource_name, m.request_name)
                                            for m in st.request_mappings or []]
