"""The demand: workloads (a pod template with a replica count and a
priority) whose pods each need one claim for one device, taken from Pods
(``planner.dralloc.dev/replicas`` annotation, ``spec.priority``) with a
ResourceClaimTemplate, and from unallocated ResourceClaims.

The queue order is the scheduler's default: higher priority first, then input
order."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from dralloc.errors import InputError
from dralloc.extended import ExtendedReader, build_requests
from dralloc.features import Features
from dralloc.io import ObjectSet
from dralloc.models import ObjectMeta, Pod, ResourceClaim
from dralloc.planner.objective import DEFAULT, Weights, make_weights

REPLICAS = "planner.dralloc.dev/replicas"
EXTENDED_ENTRY = "extended-resources"    # a pod's extended-resource claim, as a template entry


def extended_template(pod: Pod, reader: ExtendedReader) -> ResourceClaim | None:
    """The claim the scheduler makes for the pod's extended resources that a
    DeviceClass serves (:mod:`dralloc.extended`), asking for all of them --
    as on a node whose device plugins serve none -- made once per replica
    like a template's (entry :data:`EXTENDED_ENTRY`); None when DRA serves
    none of them."""
    demand = reader.demand(pod)
    if demand is None or not demand.dra:
        return None
    reqs, _ = build_requests(pod, demand.classes, reader.resolver)
    return ResourceClaim.model_validate({"metadata": {"name": EXTENDED_ENTRY, "namespace": pod.namespace or "default"},
                                         "spec": {"devices": {"requests": reqs}}})




@dataclass(frozen=True)
class ClaimType:
    key: str               # "namespace/name" of the template or claim
    claim: ResourceClaim   # the claim a pod would get


@dataclass(frozen=True)
class Workload:
    name: str
    type: int              # index into Demand.types
    replicas: int
    priority: int
    order: int             # input position


@dataclass
class Demand:
    types: list[ClaimType] = field(default_factory=list)
    workloads: list[Workload] = field(default_factory=list)
    objective: str = DEFAULT
    values: dict[str, Fraction] | None = None
    _weights: Weights | None = field(default=None, repr=False, compare=False)

    def queue(self) -> list[Workload]:
        return sorted(self.workloads, key=lambda w: (-w.priority, w.order))

    def total(self) -> int:
        return sum(w.replicas for w in self.workloads)

    def weighing(self) -> Weights:
        """The objective's integer weight per workload's pod
        (:mod:`dralloc.planner.objective`; ``priority``: one more pod of a
        priority is worth more than every pod of all lower priorities, so the
        weighted optimum is the lexicographic one)."""
        if self._weights is None or len(self._weights.per_pod) != len(self.workloads):
            self._weights = make_weights(self.objective, [(w.name, w.priority, w.replicas) for w in self.workloads],
                                         self.values)
        return self._weights

    def weight(self, w: Workload) -> int:
        return self.weighing().of(w.name)

    def weigh(self, objective: str, values: dict[str, Fraction] | None = None) -> None:
        """Use ``objective`` (``values``: units of one pod per workload, for gpus/devices)."""
        self.objective, self.values, self._weights = objective, values, None


def _check_claim(claim: ResourceClaim, where: str) -> None:
    reqs = claim.spec.devices.requests if claim.spec.devices else None
    if not reqs or len(reqs) != 1:
        raise InputError(f"{where}: the planner needs exactly one request per claim "
                         f"(found {len(reqs or [])})")
    ex = reqs[0].exactly
    if ex is None:
        raise InputError(f"{where}: request {reqs[0].name}: firstAvailable is not supported by the planner")
    if (ex.allocation_mode or "ExactCount") != "ExactCount" or (ex.count or 1) != 1:
        raise InputError(f"{where}: request {reqs[0].name}: the planner supports requests for exactly one device "
                         f"(allocationMode {ex.allocation_mode}, count {ex.count})")


def one_device_claim(claim: ResourceClaim) -> bool:
    """One request for exactly one device, no constraints: the shape the
    pattern model answers."""
    try:
        _check_claim(claim, "")
    except InputError:
        return False
    return not (claim.spec.devices and claim.spec.devices.constraints)


def _replicas(pod: Pod) -> int:
    raw = (pod.metadata.annotations or {}).get(REPLICAS, "1")
    try:
        n = int(raw)
    except ValueError:
        n = -1
    if n < 0:
        raise InputError(f"Pod {pod.metadata.namespace or 'default'}/{pod.name}: metadata.annotations[{REPLICAS}]: "
                         f"{raw!r} is not a non-negative integer")
    return n


class _Builder:
    def __init__(self, objs: ObjectSet, features: Features | None = None) -> None:
        self.objs = objs
        self.reader = ExtendedReader.of(objs, features or Features.default())
        self.demand = Demand()
        self.index: dict[str, int] = {}

    def type_for(self, key: str, claim: ResourceClaim, where: str) -> int:
        if key not in self.index:
            _check_claim(claim, where)
            self.index[key] = len(self.demand.types)
            self.demand.types.append(ClaimType(key, claim))
        return self.index[key]

    def pod(self, pod: Pod, order: int) -> None:
        ns = pod.metadata.namespace or "default"
        where = f"Pod {ns}/{pod.name}"
        if pod.spec.node_name:
            return  # already scheduled: part of the cluster state
        refs = pod.spec.resource_claims or []
        made = extended_template(pod, self.reader)
        if made is not None and not refs:
            reqs = made.spec.devices.requests or []
            shape = ",".join(f"{r.name}={r.exactly.device_class_name}x{r.exactly.count}" for r in reqs if r.exactly)
            t = self.type_for(f"{ns}/{EXTENDED_ENTRY}:{shape}", made, f"{where}: its extended resources")
            self.demand.workloads.append(Workload(f"{ns}/{pod.name}", t, _replicas(pod),
                                                  pod.spec.priority or 0, order))
            return
        if len(refs) != 1 or not refs[0].resource_claim_template_name or made is not None:
            raise InputError(f"{where}: spec.resourceClaims: the planner needs exactly one claim from a "
                             f"ResourceClaimTemplate per pod (shared claims are not supported)")
        tname = refs[0].resource_claim_template_name
        tmpl = next((t for t in self.objs.templates
                     if t.name == tname and (t.metadata.namespace or "default") == ns), None)
        if tmpl is None:
            raise InputError(f"{where}: spec.resourceClaims[0].resourceClaimTemplateName: "
                             f"ResourceClaimTemplate {ns}/{tname} not found")
        claim = ResourceClaim(metadata=ObjectMeta(name=tname, namespace=ns), spec=tmpl.spec.spec)
        t = self.type_for(f"{ns}/{tname}", claim, f"ResourceClaimTemplate {ns}/{tname}")
        self.demand.workloads.append(Workload(f"{ns}/{pod.name}", t, _replicas(pod),
                                              pod.spec.priority or 0, order))

    def claim(self, claim: ResourceClaim, order: int) -> None:
        key = claim.key
        t = self.type_for(key, claim, f"ResourceClaim {key}")
        self.demand.workloads.append(Workload(key, t, 1, 0, order))


def demand_from(objs: ObjectSet, features: Features | None = None) -> Demand:
    """Pods not yet bound, then unallocated claims no pod refers to (a pod's
    extended resources a DeviceClass serves are its claim, :mod:`dralloc.extended`)."""
    b = _Builder(objs, features)
    for i, pod in enumerate(objs.pods):
        b.pod(pod, i)
    referenced = {(p.metadata.namespace or "default", r.resource_claim_name)
                  for p in objs.pods for r in p.spec.resource_claims or [] if r.resource_claim_name}
    for j, c in enumerate(objs.claims):
        if c.status and c.status.allocation:
            continue
        if (c.metadata.namespace or "default", c.name) in referenced:
            continue
        b.claim(c, len(objs.pods) + j)
    return b.demand
