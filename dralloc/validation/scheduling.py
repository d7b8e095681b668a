"""What the API server rejects in gang-scheduling objects (scheduling.k8s.io):
a Workload (v1alpha1: at most 8 pod groups, unique DNS-label names; v1alpha2
and later: the same for pod group templates; v1alpha3/v1beta1: exactly one of
pod group templates and composite pod group templates, a tree at most 4
deep), a PodGroup (v1alpha2 and later), a CompositePodGroup (v1alpha3).
Every policy has exactly one of ``basic`` and ``gang``; a gang's
``minCount`` (a composite gang's ``minGroupCount``) is positive; at most 4
group claims, unique DNS-label names, each naming exactly one of a
ResourceClaim and a ResourceClaimTemplate; a priority at most 1,000,000,000;
at most one topology constraint, its key a label key."""

from __future__ import annotations

from collections.abc import Sequence

from dralloc.models import (
    CompositePodGroup,
    PodGroup,
    PodGroupPolicy,
    PodGroupResourceClaim,
    Workload,
)
from dralloc.models.scheduling import (
    CompositePodGroupTemplate,
    CompositePolicy,
    PodGroupTemplate,
    SchedulingConstraints,
)
from dralloc.validation import formats
from dralloc.validation.finding import Collector

MAX_POD_GROUPS = 8
MAX_GROUP_CLAIMS = 4
MAX_TREE_DEPTH = 4                   # WorkloadMaxTreeDepth
HIGHEST_USER_PRIORITY = 1_000_000_000


def check_policy(c: Collector, path: str, policy: PodGroupPolicy | None) -> None:
    if policy is None:
        c.add(path, "scheduling.policy", "a scheduling policy is required (one of basic, gang)")
        return
    set_ = [n for n, v in (("basic", policy.basic), ("gang", policy.gang)) if v is not None]
    if len(set_) != 1:
        what = "none is set" if not set_ else f"{' and '.join(set_)} are set"
        c.add(path, "scheduling.policy", f"exactly one of basic, gang is required; {what}")
        return
    if policy.gang is not None and not formats.int32(c, f"{path}.gang.minCount", policy.gang.min_count, "minCount"):
        return
    if policy.gang is not None and (policy.gang.min_count is None or policy.gang.min_count <= 0):
        got = "missing" if policy.gang.min_count is None else str(policy.gang.min_count)
        c.add(f"{path}.gang.minCount", "scheduling.min-count", f"must be a positive integer (got {got})")


def check_composite_policy(c: Collector, path: str, policy: CompositePolicy | None) -> None:
    set_ = [n for n, v in (("basic", policy.basic), ("gang", policy.gang)) if v is not None] if policy else []
    if len(set_) != 1:
        what = "none is set" if not set_ else f"{' and '.join(set_)} are set"
        c.add(path, "scheduling.policy", f"exactly one of basic, gang is required; {what}")
        return
    gang = policy.gang if policy else None
    if gang is not None and not formats.int32(c, f"{path}.gang.minGroupCount", gang.min_group_count, "minGroupCount"):
        return
    if gang is not None and (gang.min_group_count is None or gang.min_group_count <= 0):
        got = "missing" if gang.min_group_count is None else str(gang.min_group_count)
        c.add(f"{path}.gang.minGroupCount", "scheduling.min-count", f"must be a positive integer (got {got})")


def check_priority(c: Collector, path: str, priority: int | None) -> None:
    if priority is not None and priority < 0 and not formats.int32(c, path, priority, "priority"):
        return
    if priority is not None and priority > HIGHEST_USER_PRIORITY:
        c.add(path, "scheduling.priority", f"{priority} is above the highest user-definable priority "
              f"{HIGHEST_USER_PRIORITY:,}")


def check_constraints(c: Collector, path: str, cons: SchedulingConstraints | None) -> None:
    topo = (cons.topology or []) if cons is not None else []
    c.limit(f"{path}.topology", "scheduling.topology", "topology constraints", len(topo), 1)
    for i, t in enumerate(topo):
        formats.label_key(c, f"{path}.topology[{i}].key", t.key, "topology key")


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


def _named(c: Collector, path: str, names: list[str], required: bool = True) -> None:
    c.limit(path, "scheduling.groups", "pod groups", len(names), MAX_POD_GROUPS)
    if not names and required:
        c.add(path, "scheduling.groups", "at least one pod group is required")
    seen: set[str] = set()
    for i, name in enumerate(names):
        formats.dns_label(c, f"{path}[{i}].name", name, "pod group name")
        if name in seen:
            c.add(f"{path}[{i}].name", "scheduling.groups", f"duplicate pod group name {name!r}")
        seen.add(name)


def _templates(c: Collector, path: str, templates: list[PodGroupTemplate]) -> None:
    _named(c, path, [t.name for t in templates], required=False)
    for i, t in enumerate(templates):
        check_policy(c, f"{path}[{i}].schedulingPolicy", t.scheduling_policy)
        check_constraints(c, f"{path}[{i}].schedulingConstraints", t.scheduling_constraints)
        check_group_claims(c, f"{path}[{i}].resourceClaims", t.resource_claims)
        check_priority(c, f"{path}[{i}].priority", t.priority)


def _composites(c: Collector, path: str, templates: list[CompositePodGroupTemplate], depth: int) -> None:
    _named(c, path, [t.name for t in templates], required=False)
    for i, t in enumerate(templates):
        where = f"{path}[{i}]"
        if depth + 1 > MAX_TREE_DEPTH:
            c.add(where, "scheduling.groups", f"the tree of pod group templates is deeper than {MAX_TREE_DEPTH}")
            continue
        check_composite_policy(c, f"{where}.schedulingPolicy", t.scheduling_policy)
        check_constraints(c, f"{where}.schedulingConstraints", t.scheduling_constraints)
        check_priority(c, f"{where}.priority", t.priority)
        if not t.pod_group_templates and not t.composite_pod_group_templates:
            c.add(where, "scheduling.groups", "at least one of podGroupTemplates and compositePodGroupTemplates "
                  "must be set")
        _templates(c, f"{where}.podGroupTemplates", t.pod_group_templates or [])
        _composites(c, f"{where}.compositePodGroupTemplates", t.composite_pod_group_templates or [], depth + 1)


def check_workload(c: Collector, w: Workload) -> None:
    if w.api_version.endswith("/v1alpha1"):
        groups = w.spec.pod_groups or []
        _named(c, "spec.podGroups", [g.name for g in groups])
        for i, g in enumerate(groups):
            check_policy(c, f"spec.podGroups[{i}].policy", g.policy)
        return
    plain, composite = w.spec.pod_group_templates or [], w.spec.composite_pod_group_templates or []
    if plain and composite:
        c.add("spec", "scheduling.groups", "exactly one of podGroupTemplates and compositePodGroupTemplates "
              "must be set; both are set")
    elif not plain and not composite:
        c.add("spec.podGroupTemplates", "scheduling.groups", "at least one pod group is required")
    _templates(c, "spec.podGroupTemplates", plain)
    _composites(c, "spec.compositePodGroupTemplates", composite, 1)


def check_pod_group(c: Collector, g: PodGroup) -> None:
    check_policy(c, "spec.schedulingPolicy", g.spec.scheduling_policy)
    check_constraints(c, "spec.schedulingConstraints", g.spec.scheduling_constraints)
    check_group_claims(c, "spec.resourceClaims", g.spec.resource_claims)
    check_priority(c, "spec.priority", g.spec.priority)
    ref = g.spec.workload_ref
    if ref is not None:
        formats.dns_subdomain(c, "spec.workloadRef.workloadName", ref.workload_name, "workload name")
        formats.dns_label(c, "spec.workloadRef.templateName", ref.template_name, "template name")
    parent = g.spec.parent_composite_pod_group_name
    if parent is not None:
        formats.dns_subdomain(c, "spec.parentCompositePodGroupName", parent, "composite pod group name")
        if ref is None:
            c.add("spec.workloadRef", "scheduling.groups", "required when parentCompositePodGroupName is set")


def check_composite_pod_group(c: Collector, g: CompositePodGroup) -> None:
    check_composite_policy(c, "spec.schedulingPolicy", g.spec.scheduling_policy)
    check_constraints(c, "spec.schedulingConstraints", g.spec.scheduling_constraints)
    check_priority(c, "spec.priority", g.spec.priority)
    if g.spec.parent_composite_pod_group_name is not None:
        formats.dns_subdomain(c, "spec.parentCompositePodGroupName", g.spec.parent_composite_pod_group_name,
                              "composite pod group name")
