"""Gangs: pods that start together or not at all (KEP-4671 gang scheduling),
as the planner and ``dralloc verify`` read them.

A pod belongs to a gang through

* ``spec.schedulingGroup.podGroupName`` -> a PodGroup (scheduling.k8s.io
  v1alpha2, Kubernetes 1.36) with ``spec.schedulingPolicy.gang.minCount``;
  its ``spec.resourceClaims`` are the group's claims: a pod's claim with the
  same name and the same source (ResourceClaim or ResourceClaimTemplate) is
  the group's one claim, allocated once and shared by every pod of the group
  (for a template, the claim named in ``status.resourceClaimStatuses`` when it
  is loaded, else one made from the template for the group);
* ``spec.workloadRef`` -> a Workload (v1alpha1, Kubernetes 1.35) pod group
  with ``policy.gang.minCount``; one gang per (workload, pod group,
  ``podGroupReplicaKey``);
* for clusters without the API, the annotation ``planner.dralloc.dev/gang:
  NAME`` (pods of one namespace with the same NAME form a gang) and optionally
  ``planner.dralloc.dev/gang-min-count: "N"`` (default: every pod of the
  gang).

A ``basic`` policy groups pods without gang semantics (group claims still
apply). A pod standing for N replicas (``planner.dralloc.dev/replicas``) is N
members. Gang objects are checked as the API server checks them."""

from __future__ import annotations

from dataclasses import dataclass, field

from dralloc.errors import InputError
from dralloc.io import ObjectSet
from dralloc.models import ObjectMeta, Pod, PodGroup, PodResourceClaim, ResourceClaim, Workload
from dralloc.validation.finding import Collector
from dralloc.validation.scheduling import check_pod_group, check_workload

GANG = "planner.dralloc.dev/gang"
GANG_MIN = "planner.dralloc.dev/gang-min-count"


@dataclass
class Gang:
    key: str                                   # "ns/name" (PodGroup, annotation), "ns/workload/group[/replica]"
    source: str                                # "PodGroup", "Workload" or "annotation"
    min_count: int | None                      # None: every member (annotation default)
    gang: bool = True                          # False: a basic policy (a group without all-or-nothing)
    members: list[str] = field(default_factory=list)    # PodDemand names, input order
    size: int = 0                              # pending pods in all (replicas counted)
    bound: int = 0                             # pods of the gang already on a node
    running: list[str] = field(default_factory=list)    # "ns/pod" of the members already on a node

    @property
    def needed(self) -> int:
        """Pending pods that must start together: the minimum less the pods
        already running (Kubernetes counts scheduled pods towards it)."""
        return max(0, (self.min_count or 0) - self.bound)


@dataclass(frozen=True)
class Link:
    gang: str
    group: PodGroup | None = None


def _ns(obj: Pod | PodGroup | Workload) -> str:
    return obj.metadata.namespace or "default"


def _check(objs: ObjectSet, obj: Workload | PodGroup) -> None:
    c = Collector(objs.where(obj), obj.ref)
    if isinstance(obj, Workload):
        check_workload(c, obj)
    else:
        check_pod_group(c, obj)
    if c.findings:
        f = c.findings[0]
        raise InputError(f"{f.message} [{f.rule}]", source=f.source, obj=f.object, field=f.field)


class GangReader:
    """Which gang a pod is in, and which of its claims are its group's."""

    def __init__(self, objs: ObjectSet) -> None:
        self.objs = objs
        self.groups = {f"{_ns(g)}/{g.name}": g for g in objs.pod_groups}
        self.workloads = {f"{_ns(w)}/{w.name}": w for w in objs.workloads}
        for w in objs.workloads:
            _check(objs, w)
        for g in objs.pod_groups:
            _check(objs, g)
        self.gangs: dict[str, Gang] = {}

    def link(self, pod: Pod, member: str, replicas: int) -> Link | None:
        """Record ``replicas`` members of ``pod`` (named ``member``) in its
        gang; a pod bound to a node counts as running."""
        found = self._find(pod)
        if found is None:
            return None
        gang, link = found
        old = self.gangs.setdefault(gang.key, gang)
        if old.min_count != gang.min_count or old.gang != gang.gang:
            raise InputError(f"Pod {_ns(pod)}/{pod.name}: gang {gang.key}: minimum count "
                             f"{gang.min_count} disagrees with {old.min_count} given by {old.members[0]}",
                             field=f"metadata.annotations[{GANG_MIN}]")
        if pod.spec.node_name:
            old.bound += replicas
            old.running.append(member)
            return link
        old.members.append(member)
        old.size += replicas
        return link

    def _find(self, pod: Pod) -> tuple[Gang, Link] | None:
        where = f"Pod {_ns(pod)}/{pod.name}"
        ann = (pod.metadata.annotations or {}).get(GANG)
        links = [n for n, v in (("spec.schedulingGroup", pod.spec.scheduling_group),
                                ("spec.workloadRef", pod.spec.workload_ref), (f"annotation {GANG}", ann)) if v]
        if len(links) > 1:
            raise InputError(f"{where}: the pod names its gang twice ({' and '.join(links)}); keep one")
        if pod.spec.scheduling_group is not None and pod.spec.scheduling_group.pod_group_name:
            return self._pod_group(pod, pod.spec.scheduling_group.pod_group_name, where)
        if pod.spec.workload_ref is not None:
            return self._workload(pod, where)
        if ann:
            return self._annotation(pod, ann, where)
        return None

    def _pod_group(self, pod: Pod, name: str, where: str) -> tuple[Gang, Link]:
        key = f"{_ns(pod)}/{name}"
        group = self.groups.get(key)
        if group is None:
            raise InputError(f"{where}: spec.schedulingGroup.podGroupName: PodGroup {key} not found "
                             "(Kubernetes keeps the pod pending until it exists)")
        pol = group.spec.scheduling_policy
        gang = pol is not None and pol.gang is not None
        return Gang(key, "PodGroup", pol.gang.min_count if gang and pol and pol.gang else None, gang), \
            Link(key, group)

    def _workload(self, pod: Pod, where: str) -> tuple[Gang, Link]:
        ref = pod.spec.workload_ref
        assert ref is not None
        key = f"{_ns(pod)}/{ref.name}"
        w = self.workloads.get(key)
        if w is None or not w.api_version.endswith("/v1alpha1"):
            raise InputError(f"{where}: spec.workloadRef.name: Workload {key} (scheduling.k8s.io/v1alpha1) not "
                             "found (Kubernetes keeps the pod pending until it exists)")
        pg = next((g for g in w.spec.pod_groups or [] if g.name == ref.pod_group), None)
        if pg is None:
            raise InputError(f"{where}: spec.workloadRef.podGroup: Workload {key} has no pod group "
                             f"{ref.pod_group!r}")
        gkey = f"{key}/{pg.name}" + (f"/{ref.pod_group_replica_key}" if ref.pod_group_replica_key else "")
        gang = pg.policy is not None and pg.policy.gang is not None
        mc = pg.policy.gang.min_count if gang and pg.policy and pg.policy.gang else None
        return Gang(gkey, "Workload", mc, gang), Link(gkey)

    def _annotation(self, pod: Pod, name: str, where: str) -> tuple[Gang, Link]:
        raw = (pod.metadata.annotations or {}).get(GANG_MIN)
        mc = None
        if raw is not None:
            try:
                mc = int(raw)
            except ValueError:
                mc = 0
            if mc <= 0:
                raise InputError(f"{where}: metadata.annotations[{GANG_MIN}]: {raw!r} is not a positive integer")
        key = f"{_ns(pod)}/{name}"
        return Gang(key, "annotation", mc), Link(key)

    def group_claim(self, pod: Pod, ref: PodResourceClaim, link: Link | None,
                    shared: dict[str, ResourceClaim]) -> str | None:
        """The key of the group's claim that pod claim ``ref`` is (added to
        ``shared``), or None when it is the pod's own."""
        group = link.group if link else None
        if group is None:
            return None
        gc = next((c for c in group.spec.resource_claims or [] if c.name == ref.name), None)
        if gc is None or gc.resource_claim_name != ref.resource_claim_name or \
                gc.resource_claim_template_name != ref.resource_claim_template_name:
            return None
        ns = _ns(group)
        if gc.resource_claim_name:
            claim = self.objs.claim(f"{ns}/{gc.resource_claim_name}")
            if claim is None:
                raise InputError(f"PodGroup {ns}/{group.name}: spec.resourceClaims[{gc.name}].resourceClaimName: "
                                 f"ResourceClaim {ns}/{gc.resource_claim_name} not found")
            shared[claim.key] = claim
            return claim.key
        return self._from_template(group, gc.name, str(gc.resource_claim_template_name), shared)

    def _from_template(self, group: PodGroup, name: str, template: str, shared: dict[str, ResourceClaim]) -> str:
        ns = _ns(group)
        statuses = (group.status.resource_claim_statuses or []) if group.status else []
        made = next((s.resource_claim_name for s in statuses if s.name == name and s.resource_claim_name), None)
        if made and (claim := self.objs.claim(f"{ns}/{made}")) is not None:
            shared[claim.key] = claim
            return claim.key
        tmpl = next((t for t in self.objs.templates if t.name == template and (t.metadata.namespace or "default") == ns),
                    None)
        if tmpl is None:
            raise InputError(f"PodGroup {ns}/{group.name}: spec.resourceClaims[{name}].resourceClaimTemplateName: "
                             f"ResourceClaimTemplate {ns}/{template} not found")
        key = f"{ns}/{group.name}-{name}"
        if key not in shared:
            shared[key] = ResourceClaim(metadata=ObjectMeta(name=f"{group.name}-{name}", namespace=ns),
                                        spec=tmpl.spec.spec)
        return key

    def finish(self) -> dict[str, Gang]:
        """The gangs read (groups with a basic policy left out), a missing
        minimum filled in (every pod of the gang)."""
        out = {}
        for key, g in self.gangs.items():
            if g.gang and g.members:
                g.min_count = g.size + g.bound if g.min_count is None else g.min_count
                out[key] = g
        return out

    def running_gangs(self) -> dict[str, Gang]:
        """The gangs with members on nodes (``running``), a missing minimum
        filled in (every member, running or not); basic groups left out."""
        out = {}
        for key, g in self.gangs.items():
            if g.gang and g.running:
                mc = g.size + g.bound if g.min_count is None else g.min_count
                out[key] = Gang(g.key, g.source, mc, True, list(g.members), g.size, g.bound, list(g.running))
        return out
