"""What the API server rejects in gang-scheduling objects (scheduling.k8s.io):
a Workload (v1alpha1: at most 8 pod groups, unique DNS-label names; v1alpha2:
the same for pod group templates), a PodGroup (v1alpha2). Every policy has
exactly one of ``basic`` and ``gang``; a gang's ``minCount`` is positive; at
most 4 group claims, unique DNS-label names, each naming exactly one of a
ResourceClaim and a ResourceClaimTemplate."""

from __future__ import annotations

from collections.abc import Sequence

from dralloc.models import PodGroup, PodGroupPolicy, PodGroupResourceClaim, Workload
from dralloc.validation import formats
from dralloc.validation.finding import Collector

MAX_POD_GROUPS = 8
MAX_GROUP_CLAIMS = 4


def check_policy(c: Collector, path: str, policy: PodGroupPolicy | None) -> None:
    if policy is None:
        c.add(path, "scheduling.policy", "a scheduling policy is required (one of basic, gang)")
        return
    set_ = [n for n, v in (("basic", policy.basic), ("gang", policy.gang)) if v is not None]
    if len(set_) != 1:
        what = "none is set" if not set_ else f"{' and '.join(set_)} are set"
        c.add(path, "scheduling.policy", f"exactly one of basic, gang is required; {what}")
        return
    if policy.gang is not None and (policy.gang.min_count is None or policy.gang.min_count <= 0):
        got = "missing" if policy.gang.min_count is None else str(policy.gang.min_count)
        c.add(f"{path}.gang.minCount", "scheduling.min-count", f"must be a positive integer (got {got})")


def check_group_claims(c: Collector, path: str, claims: Sequence[PodGroupResourceClaim] | None) -> None:
    items = list(claims or [])
    c.limit(path, "scheduling.claims", "resource claims", len(items), MAX_GROUP_CLAIMS)
    seen: set[str] = set()
    for i, rc in enumerate(items):
        where = f"{path}[{i}]"
        formats.dns_label(c, f"{where}.name", rc.name, "claim name")
        if rc.name in seen:
            c.add(f"{where}.name", "scheduling.claims", f"duplicate claim name {rc.name!r}")
        seen.add(rc.name)
        both = [rc.resource_claim_name, rc.resource_claim_template_name]
        if sum(1 for v in both if v) != 1:
            c.add(where, "scheduling.claims",
                  "exactly one of resourceClaimName and resourceClaimTemplateName must be set")
        for name, value in (("resourceClaimName", both[0]), ("resourceClaimTemplateName", both[1])):
            if value:
                formats.dns_subdomain(c, f"{where}.{name}", value, name)


def _named(c: Collector, path: str, names: list[str]) -> None:
    c.limit(path, "scheduling.groups", "pod groups", len(names), MAX_POD_GROUPS)
    if not names:
        c.add(path, "scheduling.groups", "at least one pod group is required")
    seen: set[str] = set()
    for i, name in enumerate(names):
        formats.dns_label(c, f"{path}[{i}].name", name, "pod group name")
        if name in seen:
            c.add(f"{path}[{i}].name", "scheduling.groups", f"duplicate pod group name {name!r}")
        seen.add(name)


def check_workload(c: Collector, w: Workload) -> None:
    if w.api_version.endswith("/v1alpha1"):
        groups = w.spec.pod_groups or []
        _named(c, "spec.podGroups", [g.name for g in groups])
        for i, g in enumerate(groups):
            check_policy(c, f"spec.podGroups[{i}].policy", g.policy)
        return
    templates = w.spec.pod_group_templates or []
    _named(c, "spec.podGroupTemplates", [t.name for t in templates])
    for i, t in enumerate(templates):
        check_policy(c, f"spec.podGroupTemplates[{i}].schedulingPolicy", t.scheduling_policy)
        check_group_claims(c, f"spec.podGroupTemplates[{i}].resourceClaims", t.resource_claims)


def check_pod_group(c: Collector, g: PodGroup) -> None:
    check_policy(c, "spec.schedulingPolicy", g.spec.scheduling_policy)
    check_group_claims(c, "spec.resourceClaims", g.spec.resource_claims)
