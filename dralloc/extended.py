"""Extended resources through DRA (KEP-5004), as kube-scheduler handles them
-- read by every command that asks about a pod: ``allocate --pod``,
:class:`dralloc.Cluster`, verify and the planner (through
:mod:`dralloc.cluster.pods`).

A container asking for an extended resource (``resources.limits:
{nvidia.com/gpu: 2}``, or ``deviceclass.resource.kubernetes.io/<class>``)
that a DeviceClass serves -- its ``spec.extendedResourceName``, or the
implicit name every class has -- is met by DRA devices: the scheduler makes
one ResourceClaim for the pod (the *extended-resource claim*) whose requests
it builds per node, and records it in ``status.extendedResourceClaimStatus``.
What is read here follows kube-scheduler's DynamicResources plugin
(``extendeddynamicresources.go``) and its device-class cache:

* **which class**: for an explicit name, among the classes naming it the one
  created last (``creationTimestamp``), ties by the lower name; the implicit
  name ``deviceclass.resource.kubernetes.io/<class>`` is that class;
* **the pod's demand**: its effective requests (``PodRequests``): container
  requests (defaulted from limits, as the API server does) summed, init
  containers as a peak (sidecars -- ``restartPolicy: Always`` -- run on
  and add up), RuntimeClass overhead added; pod-level resources hold only
  cpu, memory and hugepages, never an extended resource;
* **per node**: a resource the node's device plugin advertises
  (``status.allocatable`` above zero) is the device plugin's (its free count
  is checked, as the NodeResourcesFit plugin does); one the node does not
  advertise (or at zero) and a class serves goes to DRA; one neither serves
  does not fit the node;
* **the claim's requests**: per resource (by name), one request per
  long-lived container (regular and sidecar) asking for it, named
  ``container-<i>-request-<j>`` (``i`` the container's index among init and
  regular containers, ``j`` the resource's index among the container's
  requests sorted by name), ExactCount of the container's request; a plain
  init container first reuses the devices of long-lived containers that
  start after it, and the plain init containers share one request, the
  largest; requests sorted by name. The mapping container -> request is what
  ``status.extendedResourceClaimStatus.requestMappings`` records.

With ``DRAExtendedResource`` off (Kubernetes 1.34, 1.35 by default) a pod's
extended resources are not DRA's: the device plugins' alone."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from dralloc.errors import DrallocError, InputError
from dralloc.features import Features
from dralloc.models import (
    Container,
    DeviceClass,
    Node,
    ObjectMeta,
    OwnerReference,
    Pod,
    ResourceClaim,
)
from dralloc.quantity import Quantity, QuantityError
from dralloc.validation.podresources import DEVICE_CLASS_PREFIX, is_extended

GATE = "DRAExtendedResource"
IMPLICIT_PREFIX = DEVICE_CLASS_PREFIX
CLAIM_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"
CLAIM_SUFFIX = "extended-resources"
MAX_NAME = 253

ClaimLookup = Callable[[str], ResourceClaim | None]          # "ns/name" -> claim
PodLookup = Callable[[str], Pod | None]                      # "ns/name" -> pod


class NodeRefuses(DrallocError):
    """A node does not take a pod for its extended resources (no device
    plugin and no class serves one, or its device plugin has too few free)."""


def is_extended_name(name: str) -> bool:
    """A resource name the scheduler may hand to DRA: an extended resource
    name, or a class's implicit ``deviceclass.resource.kubernetes.io/<class>``."""
    return is_extended(name)


def is_extended_claim(claim: ResourceClaim) -> bool:
    """The scheduler's extended-resource claim (its annotation)."""
    return (claim.metadata.annotations or {}).get(CLAIM_ANNOTATION) == "true"


def _ns(obj: Pod | ResourceClaim) -> str:
    return obj.metadata.namespace or "default"


def pod_key(pod: Pod) -> str:
    return f"{_ns(pod)}/{pod.name}"


# ---------------------------------------------------------------- classes


def _created(cls: DeviceClass) -> datetime:
    raw = cls.metadata.creation_timestamp
    if not raw:
        return datetime.min.replace(tzinfo=UTC)
    try:
        t = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise InputError(f"{raw!r} is not an RFC 3339 time", obj=f"DeviceClass {cls.name}",
                         field="metadata.creationTimestamp") from None
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


class ClassResolver:
    """Which DeviceClass serves an extended resource name, as the
    scheduler's device-class cache decides: for an explicit name the class
    created last, ties by the lower name; the implicit name is its class."""

    def __init__(self, classes: Iterable[DeviceClass]) -> None:
        self.implicit: dict[str, DeviceClass] = {}
        named: dict[str, list[DeviceClass]] = {}
        for c in classes:
            self.implicit[IMPLICIT_PREFIX + c.name] = c
            if c.spec.extended_resource_name is not None:
                named.setdefault(c.spec.extended_resource_name, []).append(c)
        self.explicit = {n: sorted(cs, key=lambda c: (-_created(c).timestamp(), c.name)) for n, cs in named.items()}

    def class_for(self, name: str) -> DeviceClass | None:
        found = self.explicit.get(name)
        return found[0] if found else self.implicit.get(name)

    def why(self, name: str) -> str:
        """Which class serves ``name`` and why that one, in words."""
        found = self.explicit.get(name)
        if found:
            if len(found) == 1:
                return f"DeviceClass {found[0].name} (extendedResourceName)"
            others = ", ".join(c.name for c in found[1:])
            return (f"DeviceClass {found[0].name} (of the classes naming it -- also {others} -- the one "
                    "created last, ties by name)")
        if name in self.implicit:
            return f"DeviceClass {self.implicit[name].name} (its implicit name)"
        return "no DeviceClass"


# ---------------------------------------------------------------- requests


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
    while f"{_ns(pod)}/{name}" in busy:
        name = f"{base[:MAX_NAME - 4]}-{n}"
        n += 1
    return name


def new_claim(pod: Pod, requests: list[dict[str, Any]], name: str) -> ResourceClaim:
    """The extended-resource claim as the scheduler creates it: owned by the
    pod (controller), with the scheduler's annotation."""
    meta = ObjectMeta(name=name, namespace=_ns(pod), annotations={CLAIM_ANNOTATION: "true"},
                      owner_references=[OwnerReference(api_version="v1", kind="Pod", name=pod.name,
                                                       uid=pod.metadata.uid, controller=True)])
    return ResourceClaim.model_validate({"metadata": meta.dump(), "spec": {"devices": {"requests": requests}}})


def owner_of(claim: ResourceClaim) -> str | None:
    """``ns/pod`` of the pod an extended-resource claim belongs to."""
    if not is_extended_claim(claim):
        return None
    for o in claim.metadata.owner_references or []:
        if o.kind == "Pod" and o.controller:
            return f"{_ns(claim)}/{o.name}"
    return None


def status_mappings(pod: Pod) -> tuple[str | None, list[Mapping]]:
    """The claim name and request mapping ``status.extendedResourceClaimStatus`` records."""
    st = pod.status.extended_resource_claim_status if pod.status else None
    if st is None:
        return None, []
    return st.resource_claim_name or None, [Mapping(m.container_name, m.resource_name, m.request_name)
                                            for m in st.request_mappings or []]


# ---------------------------------------------------------------- nodes


def allocatable(node: Node) -> dict[str, int]:
    """The node's extended resources in ``status.allocatable`` (a device
    plugin's): name -> count."""
    status = node.status or {}
    raw = status.get("allocatable") if isinstance(status, dict) else None
    out: dict[str, int] = {}
    for name, value in (raw.items() if isinstance(raw, dict) else []):
        if is_extended_name(str(name)):
            try:
                q = Quantity.parse(value)
            except QuantityError as e:
                raise InputError(str(e), obj=f"Node {node.name}", field=f"status.allocatable[{name}]") from None
            out[str(name)] = int(q.value // 1) if q.value >= 0 else 0
    return out


def used_on(pods: Iterable[Pod]) -> dict[str, dict[str, int]]:
    """Per node, the extended resources its pods request (pods bound by
    ``spec.nodeName`` and not finished, as the scheduler's cache counts them)."""
    out: dict[str, dict[str, int]] = {}
    for p in pods:
        if not p.spec.node_name or (p.status is not None and p.status.phase in ("Succeeded", "Failed")):
            continue
        on = out.setdefault(p.spec.node_name, {})
        for n, v in pod_requests(p).items():
            on[n] = on.get(n, 0) + v
    return out


@dataclass
class Share:
    """The pod's extended resources on one node."""

    dra: list[str] = field(default_factory=list)                      # the extended-resource claim asks for these
    plugin: dict[str, tuple[int, int, int]] = field(default_factory=dict)   # name -> (asked, allocatable, in use)
    missing: list[str] = field(default_factory=list)                  # neither DRA nor a device plugin

    def refusal(self, node: str) -> str | None:
        """Why the pod does not fit ``node`` for its extended resources, or None."""
        if self.missing:
            return (f"node {node} has no device plugin for {', '.join(self.missing)} (not in its "
                    "status.allocatable) and no DeviceClass serves it through DRA")
        short = [f"{n}: {a} asked, {have - used} of {have} free" for n, (a, have, used) in self.plugin.items()
                 if a > have - used]
        if short:
            return f"node {node}: insufficient {', '.join(short)} (its device plugin's, status.allocatable)"
        return None

    def note(self) -> str | None:
        if not self.plugin:
            return None
        return ("from the node's device plugin (status.allocatable, which takes precedence over DRA): "
                + ", ".join(f"{n} {a} of {have - used} free" for n, (a, have, used) in self.plugin.items()))


@dataclass
class Demand:
    """A pod's extended resources: what it asks, which class serves each
    name (gate on), and the claim the scheduler keeps for it."""

    pod: Pod
    requests: dict[str, int]                 # effective requests per name (non-zero), sorted
    classes: dict[str, DeviceClass]          # names a class serves (DRAExtendedResource on)
    gate: bool

    @property
    def dra(self) -> bool:
        """Whether DRA may serve any of them (the scheduler makes the claim)."""
        return bool(self.classes)

    def share(self, node: Node, used: dict[str, int]) -> Share:
        """Which resources DRA serves on ``node``, which its device plugin
        (``used``: what pods there hold of each), which nothing."""
        have = allocatable(node)
        out = Share()
        for name, n in self.requests.items():
            cap = have.get(name)
            if name in self.classes and not cap:
                out.dra.append(name)
            elif cap is None:
                out.missing.append(name)
            else:
                out.plugin[name] = (n, cap, used.get(name, 0))
        return out

    def not_dra(self, release: str) -> str:
        """Why none of the pod's extended resources is DRA's, in words."""
        names = ", ".join(self.requests)
        if not self.gate:
            return (f"its extended resources ({names}) are not DRA's: DRAExtendedResource is off "
                    f"(Kubernetes {release}), so only device plugins serve them")
        return f"no DeviceClass serves its extended resources ({names}): only device plugins can"


class ExtendedReader:
    """Extended resources in one cluster, as the scheduler sees them: the
    class of each name, each pod's demand and claim, what device plugins
    hand out per node. ``claim``/``claims`` look claims up (the claim the
    pod's status names, else one annotated and owned by the pod), ``pod``
    finds a claim's pod; ``used``: per node, what pods there hold of each
    extended resource (default: the pods bound to it, from ``pods``)."""

    def __init__(self, classes: Iterable[DeviceClass], features: Features, claim: ClaimLookup,
                 claims: Callable[[], Iterable[ResourceClaim]], pod: PodLookup,
                 pods: Callable[[], Iterable[Pod]] | None = None,
                 used: Callable[[str], dict[str, int]] | None = None) -> None:
        self.resolver = ClassResolver(classes)
        self.features = features
        self.claim = claim
        self.pod = pod
        self._claims = claims
        self._pods = pods or (lambda: ())
        self.used = used or self._bound
        self._owned: dict[str, ResourceClaim] | None = None
        self._use: dict[str, dict[str, int]] | None = None
        self._demands: dict[int, tuple[Pod, Demand | None]] = {}

    @classmethod
    def of(cls, objs: Any, features: Features) -> ExtendedReader:
        """Over an object set (:class:`dralloc.io.ObjectSet`: classes, claims, pods)."""
        pods = {pod_key(p): p for p in objs.pods}
        return cls(objs.classes, features, objs.claim, lambda: objs.claims, pods.get, lambda: pods.values())

    def _bound(self, node: str) -> dict[str, int]:
        if self._use is None:
            self._use = used_on(self._pods())
        return self._use.get(node, {})

    @property
    def gate(self) -> bool:
        return self.features.extended_resource

    def demand(self, pod: Pod) -> Demand | None:
        """The pod's extended resources (None when it asks for none)."""
        known = self._demands.get(id(pod))
        if known is not None and known[0] is pod:
            return known[1]
        reqs = pod_requests(pod)
        out = None
        if reqs:
            classes = {}
            if self.gate:
                classes = {n: c for n in reqs if (c := self.resolver.class_for(n)) is not None}
            out = Demand(pod, reqs, classes, self.gate)
        self._demands[id(pod)] = (pod, out)
        return out

    def demand_of(self, claim: ResourceClaim) -> Demand | None:
        """The demand behind an extended-resource claim (None for another
        claim, or when its pod is not known)."""
        owner = owner_of(claim)
        pod = self.pod(owner) if owner is not None else None
        return self.demand(pod) if pod is not None else None

    def recorded(self, pod: Pod) -> ResourceClaim | None:
        """The pod's extended-resource claim in the cluster: the one its
        status names, one dralloc made for it (``<pod>-extended-resources``),
        else the claim with the scheduler's annotation the pod controls."""
        name, _ = status_mappings(pod)
        for n in (name, claim_name(pod)):
            if n and (c := self.claim(f"{_ns(pod)}/{n}")) is not None:
                return c
        if self._owned is None:
            self._owned = {}
            for c in self._claims():
                owner = owner_of(c)
                if owner is not None:
                    self._owned.setdefault(owner, c)
        return self._owned.get(pod_key(pod))

    def claim_for(self, pod: Pod, demand: Demand, taken: Iterable[str] = ()) -> ResourceClaim:
        """The pod's extended-resource claim: the one recorded, else a new
        one with every resource a class serves (its requests on a node
        without device plugins for them; :meth:`on_node` builds a node's)."""
        found = self.recorded(pod)
        if found is not None:
            return found
        reqs, _ = build_requests(pod, demand.classes, self.resolver)
        return new_claim(pod, reqs, claim_name(pod, taken))

    def on_node(self, claim: ResourceClaim, demand: Demand, node: Node) -> tuple[ResourceClaim | None, Share,
                                                                                  list[Mapping]]:
        """The claim as the scheduler builds it for ``node`` (None when no
        resource is DRA's there), the share, and the request mapping it
        would record. An allocated claim is kept as it is."""
        share = demand.share(node, self.used(node.name))
        if claim.status is not None and claim.status.allocation is not None:
            return claim, share, build_requests(demand.pod, share.dra, self.resolver)[1]
        if not share.dra:
            return None, share, []
        reqs, maps = build_requests(demand.pod, share.dra, self.resolver)
        spec = claim.spec.model_copy(update={"devices": claim.spec.devices.model_copy(
            update={"requests": ResourceClaim.model_validate({"spec": {"devices": {"requests": reqs}}})
                    .spec.devices.requests})})
        return claim.model_copy(update={"spec": spec}), share, maps


def plugin_use(share: Share) -> dict[str, int]:
    """What the node's device plugins hand the pod (name -> count)."""
    return {n: a for n, (a, _, _) in share.plugin.items()}

