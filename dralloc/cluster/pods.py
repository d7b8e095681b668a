"""A pod's claims, as the scheduler sees them, and a pod's question on one
node.

Every command that asks about a pod (``allocate --pod``, the ``Cluster``,
verify) reads its claims here: a named claim; for a template entry, the claim
the pod's status names, else one instantiated as the resource-claim
controller would (``<pod>-<entry>``); an entry that is its PodGroup's claim
(KEP-5729, :mod:`dralloc.gangs`) is the group's one claim; extended
resources a DeviceClass serves (KEP-5004, :mod:`dralloc.extended`) add the
scheduler's extended-resource claim, last, built per node (:func:`for_node`:
a device plugin on the node takes precedence). A claim that is allocated
already is not allocated again: the pod may only go where its allocation's
nodeSelector admits (:func:`on_node`)."""

from __future__ import annotations

from collections.abc import Callable

from dralloc.errors import InputError
from dralloc.extended import ExtendedReader, Mapping, Share, plugin_use
from dralloc.gangs import GangReader
from dralloc.inventory.nodesel import NodeSelectorError, allocation_admits
from dralloc.models import AllocationResult, Node, Pod, ResourceClaim, ResourceClaimTemplate
from dralloc.solver.outcome import Outcome, Status

ClaimLookup = Callable[[str], ResourceClaim | None]                        # "ns/name" -> claim
TemplateLookup = Callable[[str], ResourceClaimTemplate | None]             # "ns/name" -> template


def generated_name(pod: Pod, entry: str) -> str | None:
    """The claim the resource-claim controller made for a template entry, as
    the pod's status records it (None when not recorded)."""
    for st in (pod.status.resource_claim_statuses or []) if pod.status else []:
        if st.name == entry:
            return st.resource_claim_name
    return None


def instantiate(template: ResourceClaimTemplate, pod: Pod, entry: str) -> ResourceClaim:
    """A claim made from ``template`` as the controller does (its spec,
    labels and annotations), named ``<pod>-<entry>`` where Kubernetes adds a
    random suffix."""
    meta = template.spec.metadata.dump() if template.spec.metadata is not None else {}
    meta.update({"name": f"{pod.name}-{entry}", "namespace": pod.namespace or "default"})
    return ResourceClaim.model_validate({"metadata": meta, "spec": template.spec.spec.dump()})


def pod_claims(pod: Pod, claim: ClaimLookup, template: TemplateLookup,
               gangs: GangReader | None = None, extended: ExtendedReader | None = None) -> list[ResourceClaim]:
    """The pod's claims, in ``spec.resourceClaims`` order: its PodGroup's
    claim where the entry is one (``gangs``), a named claim, the claim
    generated for a template entry when the pod's status names one that
    exists, else a new claim instantiated from the template; then, when a
    DeviceClass serves one of its extended resources (``extended``), the
    scheduler's extended-resource claim (the one recorded, else a new one
    asking for every such resource: what it asks on a node is
    :func:`for_node`'s)."""
    ns = pod.namespace or "default"
    where = f"Pod {ns}/{pod.name}"
    link = gangs.link_of(pod) if gangs is not None else None
    shared: dict[str, ResourceClaim] = {}
    out = []
    for i, pc in enumerate(pod.spec.resource_claims or []):
        field = f"spec.resourceClaims[{i}]"
        group = gangs.group_claim(pod, pc, link, shared) if gangs is not None else None
        if group is not None:
            out.append(shared[group])
            continue
        if pc.resource_claim_name:
            c = claim(f"{ns}/{pc.resource_claim_name}")
            if c is None:
                raise InputError(f"claim {ns}/{pc.resource_claim_name} is not in the files", obj=where, field=field)
            out.append(c)
            continue
        if not pc.resource_claim_template_name:
            raise InputError("neither resourceClaimName nor resourceClaimTemplateName is set", obj=where, field=field)
        made = generated_name(pod, pc.name)
        existing = claim(f"{ns}/{made}") if made else None
        if existing is not None:
            out.append(existing)
            continue
        t = template(f"{ns}/{pc.resource_claim_template_name}")
        if t is None:
            raise InputError(f"ResourceClaimTemplate {ns}/{pc.resource_claim_template_name} is not in the files",
                             obj=where, field=field)
        out.append(instantiate(t, pod, pc.name))
    demand = extended.demand(pod) if extended is not None else None
    if demand is not None and demand.dra and extended is not None:
        out.append(extended.claim_for(pod, demand, {c.key for c in out}))
    if not out:
        why = f"; {demand.not_dra(extended.features.kubernetes_version)}" \
            if demand is not None and extended is not None else ""
        raise InputError(f"the pod has no resource claims{why}", obj=where, field="spec.resourceClaims")
    return out


def for_node(node: Node, claims: list[ResourceClaim], extended: ExtendedReader | None) -> tuple[
        list[ResourceClaim], dict[str, ResourceClaim], Share | None, list[Mapping]]:
    """The claims as the scheduler allocates them on ``node``: the
    extended-resource claim asks for the resources DRA serves there (left
    out when the node's device plugins serve them all); the claims built for
    the node, the pod's share of extended resources there, and the request
    mapping the pod's status would record."""
    if extended is None:
        return claims, {}, None, []
    out: list[ResourceClaim] = []
    built: dict[str, ResourceClaim] = {}
    share: Share | None = None
    maps: list[Mapping] = []
    for c in claims:
        demand = extended.demand_of(c)
        if demand is None:
            out.append(c)
            continue
        made, share, maps = extended.on_node(c, demand, node)
        if made is not None:
            out.append(made)
            if made is not c:
                built[made.key] = made
    return out, built, share, maps


def answered(out: Outcome, claims: list[ResourceClaim]) -> list[ResourceClaim]:
    """The claim objects of an answer, in its order: those given, or as the
    scheduler built them for the node (``out.instances``)."""
    given = {c.key: c for c in claims}
    return [out.instances.get(k) or given[k] for k in out.claims]


def is_allocated(claim: ResourceClaim) -> bool:
    return claim.status is not None and claim.status.allocation is not None


def refused_by(claims: list[ResourceClaim], node: Node) -> str | None:
    """Why a pod with these claims may not run on ``node`` because of a claim
    allocated already (its allocation's nodeSelector), or None."""
    for c in claims:
        if not is_allocated(c):
            continue
        try:
            ok = allocation_admits(c, node)
        except NodeSelectorError as e:
            raise InputError(f"ResourceClaim {c.key}: status.allocation.nodeSelector: {e}") from None
        if not ok:
            return (f"claim {c.key} is allocated already and its allocation's nodeSelector does not admit "
                    f"node {node.name}")
    return None


def on_node(node: Node, claims: list[ResourceClaim], mode: str,
            run: Callable[[list[ResourceClaim]], Outcome], extended: ExtendedReader | None = None) -> Outcome:
    """A pod's claims on ``node`` as the scheduler asks: the extended-resource
    claim built for the node (:func:`for_node`; its device plugins checked
    first), claims allocated already kept (the node must be one their
    allocation admits), ``run`` allocates the others; the answer covers
    every claim of the node, in order (``instances``: those built here)."""
    claims, built, share, maps = for_node(node, claims, extended)
    out = _on_node(node, claims, mode, run, share)
    out.instances = {k: c for k, c in built.items() if k in out.claims}
    if share is not None:
        out.device_plugin = plugin_use(share) if out.ok else {}
        out.request_mappings = [m.dump() for m in maps] if out.ok else []
        note = share.note()
        if note and out.ok:
            out.notes.append(note)
    return out


def _on_node(node: Node, claims: list[ResourceClaim], mode: str, run: Callable[[list[ResourceClaim]], Outcome],
             share: Share | None) -> Outcome:
    keys = [c.key for c in claims]
    why = share.refusal(node.name) if share is not None else None
    why = why or refused_by(claims, node)
    if why is not None:
        return Outcome(Status.UNSATISFIABLE, mode, node.name, keys, reasons=[why])
    todo = [c for c in claims if not is_allocated(c)]
    held = {c.key: c.status.allocation for c in claims if c.status is not None and c.status.allocation is not None}
    if not todo:
        note = "every claim of the pod is allocated already; its allocations admit the node" if claims else \
            "the pod needs no DRA devices on this node"
        return Outcome(Status.ALLOCATED, mode, node.name, keys, allocations=[held[k] for k in keys], notes=[note])
    out = run(todo)
    if held and out.allocations is not None and len(out.allocations) == len(todo):
        new: dict[str, AllocationResult] = dict(zip([c.key for c in todo], out.allocations, strict=True))
        out.allocations = [held[k] if k in held else new[k] for k in keys]
        out.claims = keys
        out.notes.append(f"claim(s) {', '.join(sorted(held))} allocated already: kept (their allocations admit "
                         "the node)")
    return out
