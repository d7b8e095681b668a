"""A pod's claims, as the scheduler sees them."""

from __future__ import annotations

from collections.abc import Callable

from dralloc.errors import InputError
from dralloc.models import Pod, ResourceClaim, ResourceClaimTemplate

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


def pod_claims(pod: Pod, claim: ClaimLookup, template: TemplateLookup) -> list[ResourceClaim]:
    """The pod's claims, in ``spec.resourceClaims`` order: a named claim, the
    claim generated for a template entry when the pod's status names one that
    exists, else a new claim instantiated from the template."""
    ns = pod.namespace or "default"
    where = f"Pod {ns}/{pod.name}"
    out = []
    for i, pc in enumerate(pod.spec.resource_claims or []):
        field = f"spec.resourceClaims[{i}]"
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
    if not out:
        raise InputError("the pod has no resource claims", obj=where, field="spec.resourceClaims")
    return out
