"""Per node: what its device plugins advertise and hand out, which of a
pod's extended resources DRA serves there, and the reader every command
asks (:class:`ExtendedReader`) -- :mod:`dralloc.extended`."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from dralloc.errors import InputError
from dralloc.extended.names import ClassResolver, is_extended_name, namespace_of, pod_key
from dralloc.extended.requests import (
    Mapping,
    build_requests,
    claim_name,
    new_claim,
    owner_of,
    pod_requests,
    same_pod,
    status_mappings,
)
from dralloc.features import Features
from dralloc.models import DeviceClass, Node, Pod, ResourceClaim
from dralloc.quantity import Quantity, QuantityError

ClaimLookup = Callable[[str], ResourceClaim | None]          # "ns/name" -> claim
PodLookup = Callable[[str], Pod | None]                      # "ns/name" -> pod

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


def plugin_nodes(nodes: Iterable[Node], names: Iterable[str]) -> dict[str, list[str]]:
    """Per node, which of ``names`` its device plugin advertises
    (``status.allocatable`` above zero): there the device plugin serves
    them, not DRA. Nodes that advertise none are left out."""
    wanted = set(names)
    out: dict[str, list[str]] = {}
    if not wanted:
        return out
    for node in nodes:
        have = sorted(n for n, v in allocatable(node).items() if n in wanted and v > 0)
        if have:
            out[node.name] = have
    return out


def plugin_summary(hits: dict[str, list[str]], shown: int = 5) -> str:
    """``plugin_nodes``' answer in words: "2 node(s) (a, b) advertise nvidia.com/gpu"."""
    names = sorted({n for v in hits.values() for n in v})
    nodes = sorted(hits, key=str.encode)
    listed = ", ".join(nodes[:shown]) + (f" and {len(nodes) - shown} more" if len(nodes) > shown else "")
    return f"{len(nodes)} node(s) ({listed}) advertise {', '.join(names)} through a device plugin"


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
        self._owned: dict[str, list[ResourceClaim]] | None = None
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
            if n and (c := self.claim(f"{namespace_of(pod)}/{n}")) is not None:
                return c
        if self._owned is None:
            self._owned = {}
            for c in self._claims():
                owner = owner_of(c)
                if owner is not None:
                    self._owned.setdefault(owner, []).append(c)
        return next((c for c in self._owned.get(pod_key(pod), []) if same_pod(c, pod)), None)

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
