"""What the API server enforces for every object's metadata, for the Node and
Pod fields dralloc reads, and for a claim's ``status.allocation``."""

from __future__ import annotations

from dralloc.io.registry import namespaced
from dralloc.models import Pod, ResourceClaim, TypedObject
from dralloc.models.resource import AllocationResult
from dralloc.validation import formats as f
from dralloc.validation.claims import opaque, references, request_names, tolerations
from dralloc.validation.finding import Collector
from dralloc.validation.podresources import check_extended_resources
from dralloc.validation.slices import binding_conditions, node_selector, pool_name

MAX_ANNOTATIONS_BYTES = 256 * 1024
MAX_RESULTS = 32
CONFIG_SOURCES = ("FromClass", "FromClaim")


def metadata(c: Collector, obj: TypedObject) -> None:
    meta = obj.metadata
    what = f"{obj.kind} name"
    if not meta.name and not meta.generate_name:
        c.add("metadata.name", "format.required", "name or generateName is required")
    elif meta.name:
        f.dns_subdomain(c, "metadata.name", meta.name, what)
    if namespaced(obj.kind):
        f.dns_label(c, "metadata.namespace", meta.namespace, "namespace")
    elif meta.namespace:
        c.add("metadata.namespace", "format.namespace", f"a {obj.kind} has no namespace")
    for k, v in (meta.labels or {}).items():
        f.label_key(c, f"metadata.labels[{k}]", k, "label key")
        f.label_value(c, f"metadata.labels[{k}]", v, "label value")
    notes = meta.annotations or {}
    for k in notes:
        f.label_key(c, f"metadata.annotations[{k}]", k, "annotation key")
    size = sum(len(k) + len(v) for k, v in notes.items())
    if size > MAX_ANNOTATIONS_BYTES:
        c.add("metadata.annotations", "format.annotations", f"annotations are {size} bytes, at most "
              f"{MAX_ANNOTATIONS_BYTES} are allowed")
    f.int64(c, "metadata.generation", meta.generation, "generation")


def check_pod(c: Collector, pod: Pod) -> None:
    """The pod's resource claims: unique DNS-label names, each naming exactly
    one of a claim and a template; container references to known entries;
    its extended resources (:mod:`.podresources`)."""
    if pod.spec.priority is not None and not -(2**31) <= pod.spec.priority < 2**31:
        c.add("spec.priority", "format.int32", f"priority {pod.spec.priority} does not fit in a 32-bit integer")
    entries = pod.spec.resource_claims or []
    names: set[str] = set()
    for i, pc in enumerate(entries):
        path = f"spec.resourceClaims[{i}]"
        f.dns_label(c, f"{path}.name", pc.name, "resource claim entry name")
        if pc.name in names:
            c.add(f"{path}.name", "pod.resource-claims.unique", f"duplicate entry name {pc.name!r}")
        names.add(pc.name)
        given = [n for n in (pc.resource_claim_name, pc.resource_claim_template_name) if n is not None]
        if len(given) != 1:
            c.add(path, "pod.resource-claims.one-of",
                  "exactly one of resourceClaimName and resourceClaimTemplateName must be set")
        for field, value in (("resourceClaimName", pc.resource_claim_name),
                             ("resourceClaimTemplateName", pc.resource_claim_template_name)):
            if value is not None:
                f.dns_subdomain(c, f"{path}.{field}", value, field)
    for kind, containers in (("containers", pod.spec.containers), ("initContainers", pod.spec.init_containers)):
        for j, ct in enumerate(containers or []):
            for k, ref in enumerate((ct.resources.claims or []) if ct.resources else []):
                if ref.name not in names:
                    c.add(f"spec.{kind}[{j}].resources.claims[{k}].name", "pod.resource-claims.reference",
                          f"{ref.name!r} is not an entry of spec.resourceClaims")
    check_extended_resources(c, pod)


def check_claim_status(c: Collector, claim: ResourceClaim) -> None:
    alloc = claim.status.allocation if claim.status else None
    if alloc is not None:
        allocation(c, "status.allocation", alloc, claim)


def allocation(c: Collector, path: str, alloc: AllocationResult, claim: ResourceClaim) -> None:
    """A stored allocation, as the API server checks it when the scheduler
    writes it: results naming the claim's requests, well-formed names."""
    known = request_names(claim.spec.devices)
    devs = alloc.devices
    results = (devs.results or []) if devs else []
    if not c.limit(f"{path}.devices.results", "allocation.results.max", "results", len(results), MAX_RESULTS):
        for i, r in enumerate(results):
            rp = f"{path}.devices.results[{i}]"
            references(c, rp, [r.request], known, "allocation.request")
            f.driver_name(c, f"{rp}.driver", r.driver)
            pool_name(c, f"{rp}.pool", r.pool)
            f.dns_label(c, f"{rp}.device", r.device, "device name")
            if r.share_id is not None and not f.UUID.match(r.share_id):
                c.add(f"{rp}.shareID", "allocation.share-id", f"shareID {r.share_id!r} is not a lower-case UUID")
            tolerations(c, f"{rp}.tolerations", r.tolerations)
            binding_conditions(c, rp, r.binding_conditions, r.binding_failure_conditions)
            for cs in r.compatibility_groups or {}:
                f.dns_label(c, f"{rp}.compatibilityGroups[{cs}]", cs, "counter set name")
    for i, cfg in enumerate((devs.config or []) if devs else []):
        cp = f"{path}.devices.config[{i}]"
        if cfg.source not in CONFIG_SOURCES:
            c.add(f"{cp}.source", "allocation.config", f"source {cfg.source!r} is not FromClass or FromClaim")
        references(c, f"{cp}.requests", cfg.requests, known, "allocation.config")
        opaque(c, f"{cp}.opaque", cfg.opaque)
    if alloc.node_selector is not None:
        node_selector(c, f"{path}.nodeSelector", alloc.node_selector, one_term=False)
