"""General demand: pods with any claims the allocator accepts -- several
claims per pod, claims from ResourceClaimTemplates (one per replica) and
shared claims (``resourceClaimName``, allocated once for every pod that
names it), any requests (counts, ``All``, ``firstAvailable``, constraints).

A pod with the annotation ``planner.dralloc.dev/replicas: "N"`` stands for N
identical pods; ``spec.priority`` is its priority. An unallocated claim no pod
refers to is a pod of its own. Queue order: higher priority first, then input
order (the scheduler's default priority sort). Pods of a gang (PodGroup,
Workload or annotation, :mod:`.gangs`) are placed together or not at all;
their PodGroup-level claims are shared claims of the group."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction

from dralloc.errors import InputError
from dralloc.extended import ExtendedReader, plugin_nodes, plugin_summary
from dralloc.features import Features
from dralloc.gangs import Gang, GangReader
from dralloc.io import ObjectSet
from dralloc.models import ObjectMeta, Pod, ResourceClaim
from dralloc.planner.objective import DEFAULT, Weights, make_weights
from dralloc.planner.view.demand import (
    EXTENDED_ENTRY,
    REPLICAS,
    extended_template,
    one_device_claim,
)


@dataclass(frozen=True)
class PodDemand:
    name: str                                   # "namespace/pod" (or the claim's key for a lone claim)
    namespace: str
    replicas: int
    priority: int
    order: int
    templates: tuple[tuple[str, ResourceClaim], ...] = ()   # (pod claim name, claim) made per replica
    shared: tuple[str, ...] = ()                # keys of ResourceClaims every replica uses
    lone: bool = False                          # an unallocated claim no pod refers to
    gang: str | None = None                     # key of its gang in PodsDemand.gangs

    def instances(self, replica: int) -> list[ResourceClaim]:
        """The claims made from the templates for one replica (named like
        the kubelet would: pod-replica-claim)."""
        pod = self.name.rpartition("/")[2]
        return [c.model_copy(update={"metadata": ObjectMeta(name=f"{pod}-{replica}-{ref}", namespace=self.namespace),
                                     "status": None})
                for ref, c in self.templates]


@dataclass
class PodsDemand:
    pods: list[PodDemand] = field(default_factory=list)
    shared: dict[str, ResourceClaim] = field(default_factory=dict)   # key -> claim as loaded
    gangs: dict[str, Gang] = field(default_factory=dict)             # key -> gang (all-or-nothing)
    objective: str = DEFAULT                                          # what the optimum maximises
    values: dict[str, Fraction] | None = None                         # gpus/devices: units of one pod
    forced: frozenset[str] = frozenset()                              # pods above all others (a re-pack)
    _weights: Weights | None = field(default=None, repr=False, compare=False)

    def queue(self) -> list[PodDemand]:
        return sorted(self.pods, key=lambda p: (-p.priority, p.order))

    def total(self) -> int:
        return sum(p.replicas for p in self.pods)

    def weighing(self) -> Weights:
        """The objective's integer weight per pod (:mod:`dralloc.planner.objective`),
        computed again when pods were added."""
        if self._weights is None or len(self._weights.per_pod) != len(self.pods):
            self._weights = make_weights(self.objective, [(p.name, p.priority, p.replicas) for p in self.pods],
                                         self.values, self.forced)
        return self._weights

    def weight(self, pod: PodDemand) -> int:
        """The weight of one replica of ``pod`` in the objective."""
        return self.weighing().of(pod.name)

    def total_weight(self) -> int:
        return sum(self.weight(p) * p.replicas for p in self.pods)

    def weigh(self, objective: str, values: dict[str, Fraction] | None = None) -> None:
        """Use ``objective`` (``values``: units of one pod, for gpus/devices)."""
        self.objective, self.values, self._weights = objective, values, None

    def simple(self) -> bool:
        """One claim from a template per pod asking for one device: the case
        the fast pattern model answers exactly (no gangs)."""
        if self.gangs:
            return False
        for p in self.pods:
            if p.lone:
                if not one_device_claim(self.shared[p.shared[0]]):
                    return False
            elif p.shared or len(p.templates) != 1 or not one_device_claim(p.templates[0][1]):
                return False
        return True


def _replicas(pod: Pod, where: str) -> int:
    raw = (pod.metadata.annotations or {}).get(REPLICAS, "1")
    try:
        n = int(raw)
    except ValueError:
        n = -1
    if n < 0:
        raise InputError(f"{where}: metadata.annotations[{REPLICAS}]: {raw!r} is not a non-negative integer")
    return n


def _pod(objs: ObjectSet, pod: Pod, order: int, shared: dict[str, ResourceClaim], gangs: GangReader,
         reader: ExtendedReader) -> PodDemand:
    ns = pod.metadata.namespace or "default"
    where = f"Pod {ns}/{pod.name}"
    replicas = _replicas(pod, where)
    link = gangs.link(pod, f"{ns}/{pod.name}", replicas)
    templates: list[tuple[str, ResourceClaim]] = []
    keys: list[str] = []
    for i, ref in enumerate(pod.spec.resource_claims or []):
        field_ = f"{where}: spec.resourceClaims[{i}]"
        group = gangs.group_claim(pod, ref, link, shared)
        if group is not None:
            keys.append(group)
        elif ref.resource_claim_name:
            claim = objs.claim(f"{ns}/{ref.resource_claim_name}")
            if claim is None:
                raise InputError(f"{field_}.resourceClaimName: ResourceClaim {ns}/{ref.resource_claim_name} not found")
            shared[claim.key] = claim
            keys.append(claim.key)
        elif ref.resource_claim_template_name:
            tname = ref.resource_claim_template_name
            tmpl = next((t for t in objs.templates
                         if t.name == tname and (t.metadata.namespace or "default") == ns), None)
            if tmpl is None:
                raise InputError(f"{field_}.resourceClaimTemplateName: ResourceClaimTemplate {ns}/{tname} not found")
            templates.append((ref.name, ResourceClaim(metadata=ObjectMeta(name=tname, namespace=ns),
                                                      spec=tmpl.spec.spec)))
        else:
            raise InputError(f"{field_}: neither resourceClaimName nor resourceClaimTemplateName is set")
    made = extended_template(pod, reader)
    if made is not None:
        templates.append((EXTENDED_ENTRY, made))
    return PodDemand(f"{ns}/{pod.name}", ns, replicas, pod.spec.priority or 0, order,
                     tuple(templates), tuple(keys), gang=link.gang if link else None)


def pods_demand(objs: ObjectSet, features: Features | None = None) -> PodsDemand:
    """Pods not bound to a node (in input order), then unallocated claims no
    pod refers to. A pod without any claim is left out (DRA does not
    constrain it) unless it is in a gang (it counts towards the minimum)."""
    out = PodsDemand()
    gangs = GangReader(objs)
    reader = ExtendedReader.of(objs, features or Features.default())
    for i, pod in enumerate(objs.pods):
        if pod.spec.node_name:
            ns = pod.metadata.namespace or "default"
            gangs.link(pod, f"{ns}/{pod.name}", _replicas(pod, f"Pod {ns}/{pod.name}"))
            continue
        p = _pod(objs, pod, i, out.shared, gangs, reader)
        if p.templates or p.shared or p.gang is not None:   # a gang counts its pods without claims too
            out.pods.append(p)
    out.gangs = gangs.finish()
    out.pods = [replace(p, gang=None) if p.gang is not None and p.gang not in out.gangs else p
                for p in out.pods if p.templates or p.shared or p.gang in out.gangs]   # basic: no all-or-nothing
    referenced = {(p.metadata.namespace or "default", r.resource_claim_name)
                  for p in objs.pods for r in p.spec.resource_claims or [] if r.resource_claim_name}
    for j, c in enumerate(objs.claims):
        if (c.status and c.status.allocation) or (c.metadata.namespace or "default", c.name) in referenced:
            continue
        out.shared[c.key] = c
        out.pods.append(PodDemand(c.key, c.metadata.namespace or "default", 1, 0, len(objs.pods) + j,
                                  shared=(c.key,), lone=True))
    return out


def device_plugin_note(objs: ObjectSet, features: Features | None = None) -> str | None:
    """Nodes whose device plugins advertise an extended resource that a
    pending pod asks for and a DeviceClass serves: Kubernetes gives the pod
    the device plugin's there (it takes precedence), which the planner does
    not model -- it places such pods on DRA devices only."""
    reader = ExtendedReader.of(objs, features or Features.default())
    asked: set[str] = set()
    for pod in objs.pods:
        demand = reader.demand(pod) if not pod.spec.node_name else None
        asked |= set(demand.classes) if demand is not None else set()
    if not asked:
        return None
    hits = plugin_nodes(objs.nodes, asked)
    if not hits:
        return None
    return (f"{plugin_summary(hits)} "
            "(status.allocatable); Kubernetes serves pods asking for it there from the device plugin, which "
            "the planner does not model: it places those pods on DRA devices only")
