"""Gangs: pods that start together or not at all (KEP-4671 gang scheduling),
as every command reads them -- the planner, ``dralloc verify``, ``allocate
--pod`` and :class:`dralloc.Cluster`.

A pod belongs to a gang through

* ``spec.schedulingGroup.podGroupName`` -> a PodGroup (scheduling.k8s.io
  v1alpha2 in Kubernetes 1.36, v1beta1 and v1alpha3 in 1.37) with
  ``spec.schedulingPolicy.gang.minCount``;
* ``spec.workloadRef`` -> a Workload (v1alpha1, Kubernetes 1.35) pod group
  with ``policy.gang.minCount``; one gang per (workload, pod group,
  ``podGroupReplicaKey``);
* for clusters without the API, the annotation ``planner.dralloc.dev/gang:
  NAME`` (pods of one namespace with the same NAME form a gang) and optionally
  ``planner.dralloc.dev/gang-min-count: "N"`` (default: every pod of the
  gang).

A ``basic`` policy groups pods without gang semantics (group claims still
apply). A pod standing for N replicas (``planner.dralloc.dev/replicas``) is N
members. A PodGroup's ``spec.priority`` is the gang's priority.

**Group claims** (KEP-5729): a pod's ``spec.resourceClaims`` entry with the
name and the reference (ResourceClaim or ResourceClaimTemplate) of an entry
in its PodGroup's ``spec.resourceClaims`` is the group's one claim,
allocated once and shared by every pod of the group; once allocated, it
admits only the nodes its allocation's nodeSelector matches. For a template
the group's claim is the one named in the pod's
``status.resourceClaimStatuses``, else in the PodGroup's, else the claim the
PodGroup owns (``metadata.ownerReferences``) with the annotation
``resource.kubernetes.io/podgroup-claim-name`` naming the entry, else one
made from the template for the group (``<group>-<entry>``; Kubernetes adds a
random suffix).

Gang objects are checked as the API server checks them. A problem with one
pod's link (a PodGroup or Workload pod group that does not exist, two links,
an invalid gang object, a composite pod group or topology constraint that
changes placement -- not supported yet) is an :class:`InputError` naming
that pod, raised when that pod is read: a caller may report it for that pod
and go on with the others."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from dralloc.errors import InputError
from dralloc.io import ObjectSet
from dralloc.models import (
    CompositePodGroup,
    ObjectMeta,
    Pod,
    PodGroup,
    PodResourceClaim,
    ResourceClaim,
    ResourceClaimTemplate,
    TypedObject,
    Workload,
)
from dralloc.validation.finding import Collector
from dralloc.validation.scheduling import check_composite_pod_group, check_pod_group, check_workload

GANG = "planner.dralloc.dev/gang"
GANG_MIN = "planner.dralloc.dev/gang-min-count"
GROUP_CLAIM_ANNOTATION = "resource.kubernetes.io/podgroup-claim-name"
NOT_SUPPORTED = "not supported yet"

ClaimLookup = Callable[[str], ResourceClaim | None]                 # "ns/name" -> claim
TemplateLookup = Callable[[str], ResourceClaimTemplate | None]      # "ns/name" -> template


@dataclass
class Gang:
    key: str                                   # "ns/name" (PodGroup, annotation), "ns/workload/group[/replica]"
    source: str                                # "PodGroup", "Workload" or "annotation"
    min_count: int | None                      # None: every member (annotation default)
    gang: bool = True                          # False: a basic policy (a group without all-or-nothing)
    members: list[str] = field(default_factory=list)    # pending members' names, input order
    size: int = 0                              # pending pods in all (replicas counted)
    bound: int = 0                             # pods of the gang already on a node
    priority: int | None = None                # the PodGroup's spec.priority
    running: list[str] = field(default_factory=list)    # "ns/pod" of the members already on a node

    @property
    def needed(self) -> int:
        """Pending pods that must start together: the minimum less the pods
        already running (Kubernetes counts scheduled pods towards it)."""
        return max(0, (self.min_count or 0) - self.bound)

    @property
    def waits_for_pods(self) -> bool:
        """Fewer pods exist than the minimum: Kubernetes lets none of them
        into a scheduling cycle until more pods are created, whatever is free."""
        return self.min_count is not None and self.size + self.bound < self.min_count


@dataclass(frozen=True)
class Link:
    gang: str
    group: PodGroup | None = None


def _ns(obj: TypedObject) -> str:
    return obj.metadata.namespace or "default"


def _invalid(objs: ObjectSet, obj: Workload | PodGroup | CompositePodGroup) -> InputError | None:
    c = Collector(objs.where(obj), obj.ref)
    if isinstance(obj, Workload):
        check_workload(c, obj)
    elif isinstance(obj, PodGroup):
        check_pod_group(c, obj)
    else:
        check_composite_pod_group(c, obj)
    if not c.findings:
        return None
    f = c.findings[0]
    return InputError(f"{f.message} [{f.rule}]", source=f.source, obj=f.object, field=f.field)


class GangReader:
    """Which gang a pod is in, and which of its claims are its group's.

    ``objs`` holds the gang objects (and, by default, the claims and
    templates); ``claim``, ``template`` and ``claims`` look claims up
    elsewhere (a :class:`dralloc.Cluster` passes its own). Gang objects are
    checked as the API server checks them unless ``checked`` (default:
    whether ``objs`` were admitted) says they were."""

    def __init__(self, objs: ObjectSet, claim: ClaimLookup | None = None, template: TemplateLookup | None = None,
                 claims: Callable[[], Iterable[ResourceClaim]] | None = None, checked: bool | None = None) -> None:
        self.objs = objs
        self.claim = claim or objs.claim
        self.template = template or self._template
        self._claims = claims or (lambda: objs.claims)
        self.groups = {f"{_ns(g)}/{g.name}": g for g in objs.pod_groups}
        self.workloads = {f"{_ns(w)}/{w.name}": w for w in objs.workloads}
        self.composites = {f"{_ns(g)}/{g.name}": g for g in objs.composite_pod_groups}
        self.invalid: dict[int, InputError] = {}
        gang_objects: list[Workload | PodGroup | CompositePodGroup] = [*objs.workloads, *objs.pod_groups,
                                                                       *objs.composite_pod_groups]
        for obj in gang_objects if not (objs.admitted if checked is None else checked) else []:
            err = _invalid(objs, obj)
            if err is not None:
                self.invalid[id(obj)] = err
        self.gangs: dict[str, Gang] = {}
        self.made: dict[str, ResourceClaim] = {}          # group claims made from templates, by key
        self._owned: dict[tuple[str, str, str], ResourceClaim] | None = None

    def _template(self, key: str) -> ResourceClaimTemplate | None:
        ns, _, name = key.partition("/")
        return next((t for t in self.objs.templates if t.name == name and _ns(t) == ns), None)

    def _valid(self, obj: Workload | PodGroup | CompositePodGroup) -> None:
        err = self.invalid.get(id(obj))
        if err is not None:
            raise err

    # ------------------------------------------------------------ membership

    def link(self, pod: Pod, member: str, replicas: int) -> Link | None:
        """Record ``replicas`` members of ``pod`` (named ``member``) in its
        gang; a pod bound to a node counts as running. Raises InputError
        naming the pod when its link is bad."""
        found = self.find(pod)
        if found is None:
            return None
        gang, link = found
        old = self.gangs.setdefault(gang.key, gang)
        if old.min_count != gang.min_count or old.gang != gang.gang:
            raise InputError(f"Pod {_ns(pod)}/{pod.name}: gang {gang.key}: minimum count "
                             f"{gang.min_count} disagrees with {old.min_count} given by "
                             f"{old.members[0] if old.members else 'a running pod'}",
                             field=f"metadata.annotations[{GANG_MIN}]")
        if pod.spec.node_name:
            old.bound += replicas
            old.running.append(member)
            return link
        old.members.append(member)
        old.size += replicas
        return link

    def find(self, pod: Pod) -> tuple[Gang, Link] | None:
        """The pod's gang (not recorded) and link, None when it is in none."""
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

    def link_of(self, pod: Pod) -> Link | None:
        """The pod's link, or None when it has none or a bad one (for
        commands that only need its group claims)."""
        try:
            found = self.find(pod)
        except InputError:
            return None
        return found[1] if found else None

    def _pod_group(self, pod: Pod, name: str, where: str) -> tuple[Gang, Link]:
        key = f"{_ns(pod)}/{name}"
        group = self.groups.get(key)
        if group is None:
            raise InputError(f"{where}: spec.schedulingGroup.podGroupName: PodGroup {key} not found "
                             "(Kubernetes keeps the pod pending until it exists)")
        self._valid(group)
        self._placement_supported(group, where)
        pol = group.spec.scheduling_policy
        gang = pol is not None and pol.gang is not None
        mc = pol.gang.min_count if pol is not None and pol.gang is not None else None
        return Gang(key, "PodGroup", mc, gang, priority=group.spec.priority), Link(key, group)

    def _placement_supported(self, group: PodGroup, where: str) -> None:
        """Refuse what changes placement and is not modelled: a topology
        constraint, a composite parent with a gang policy (or one not in the
        input); a basic composite parent schedules its groups independently."""
        key = f"{_ns(group)}/{group.name}"
        topo = group.spec.scheduling_constraints.topology if group.spec.scheduling_constraints else None
        if topo:
            raise InputError(f"{where}: PodGroup {key}: spec.schedulingConstraints.topology ({topo[0].key}: every "
                             f"pod in one domain) changes placement: {NOT_SUPPORTED}")
        parent, seen = group.spec.parent_composite_pod_group_name, set()
        while parent and parent not in seen:
            seen.add(parent)
            comp = self.composites.get(f"{_ns(group)}/{parent}")
            what = f"CompositePodGroup {_ns(group)}/{parent}"
            if comp is None:
                raise InputError(f"{where}: PodGroup {key} is part of {what}, which is not in the input; composite "
                                 f"pod groups are {NOT_SUPPORTED} unless every level has a basic policy")
            self._valid(comp)
            pol = comp.spec.scheduling_policy
            ctopo = comp.spec.scheduling_constraints.topology if comp.spec.scheduling_constraints else None
            if (pol is not None and pol.gang is not None) or ctopo:
                why = f"gang: at least {pol.gang.min_group_count} of its groups together" \
                    if pol is not None and pol.gang is not None else "a topology constraint"
                raise InputError(f"{where}: PodGroup {key} is part of {what} ({why}), which changes placement: "
                                 f"composite pod groups are {NOT_SUPPORTED}")
            parent = comp.spec.parent_composite_pod_group_name

    def _workload(self, pod: Pod, where: str) -> tuple[Gang, Link]:
        ref = pod.spec.workload_ref
        assert ref is not None
        key = f"{_ns(pod)}/{ref.name}"
        w = self.workloads.get(key)
        if w is None or not w.api_version.endswith("/v1alpha1"):
            raise InputError(f"{where}: spec.workloadRef.name: Workload {key} (scheduling.k8s.io/v1alpha1) not "
                             "found (Kubernetes keeps the pod pending until it exists)")
        self._valid(w)
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
                out[key] = Gang(g.key, g.source, mc, True, list(g.members), g.size, g.bound, g.priority,
                                list(g.running))
        return out

    # ------------------------------------------------------------ group claims

    def group_claim(self, pod: Pod, ref: PodResourceClaim, link: Link | None,
                    shared: dict[str, ResourceClaim] | None = None) -> str | None:
        """The key of the group's claim that pod claim ``ref`` is (the claim
        added to ``shared``), or None when it is the pod's own."""
        group = link.group if link else None
        if group is None:
            return None
        gc = next((c for c in group.spec.resource_claims or [] if c.name == ref.name), None)
        if gc is None or gc.resource_claim_name != ref.resource_claim_name or \
                gc.resource_claim_template_name != ref.resource_claim_template_name:
            return None
        ns = _ns(group)
        if gc.resource_claim_name:
            claim = self.claim(f"{ns}/{gc.resource_claim_name}")
            if claim is None:
                raise InputError(f"PodGroup {ns}/{group.name}: spec.resourceClaims[{gc.name}].resourceClaimName: "
                                 f"ResourceClaim {ns}/{gc.resource_claim_name} not found")
        else:
            claim = self._from_template(pod, group, gc.name, str(gc.resource_claim_template_name))
        if shared is not None:
            shared[claim.key] = claim
        return claim.key

    def _from_template(self, pod: Pod, group: PodGroup, name: str, template: str) -> ResourceClaim:
        ns = _ns(group)
        pod_st = (pod.status.resource_claim_statuses or []) if pod.status else []
        group_st = (group.status.resource_claim_statuses or []) if group.status else []
        names = [s.resource_claim_name for s in pod_st if s.name == name]
        names += [s.resource_claim_name for s in group_st if s.name == name]
        names.append(f"{group.name}-{name}")     # made here earlier (and committed to a Cluster)
        for made in names:
            if made and (claim := self.claim(f"{ns}/{made}")) is not None:
                return claim
        owned = self._owned_claims().get((ns, group.name, name))
        if owned is not None:
            return owned
        key = f"{ns}/{group.name}-{name}"
        if key not in self.made:
            tmpl = self.template(f"{ns}/{template}")
            if tmpl is None:
                raise InputError(f"PodGroup {ns}/{group.name}: spec.resourceClaims[{name}].resourceClaimTemplateName: "
                                 f"ResourceClaimTemplate {ns}/{template} not found")
            meta = tmpl.spec.metadata.dump() if tmpl.spec.metadata is not None else {}
            meta.update({"name": f"{group.name}-{name}", "namespace": ns})
            self.made[key] = ResourceClaim(metadata=ObjectMeta.model_validate(meta), spec=tmpl.spec.spec)
        return self.made[key]

    def _owned_claims(self) -> dict[tuple[str, str, str], ResourceClaim]:
        """(namespace, PodGroup, entry) -> the claim the resource-claim
        controller made for it (owner reference and annotation); built once."""
        if self._owned is None:
            self._owned = {}
            for c in self._claims():
                entry = (c.metadata.annotations or {}).get(GROUP_CLAIM_ANNOTATION) or ""
                for o in (c.metadata.owner_references or []) if entry else []:
                    if o.kind == "PodGroup":
                        self._owned.setdefault((_ns(c), o.name, entry), c)
        return self._owned
