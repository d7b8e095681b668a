"""A cluster's state as the verifier sees it: which pods use which claims,
on which node, and which node each allocated claim is checked against. A
pod's entry that is its PodGroup's claim is the group's one claim
(:mod:`dralloc.gangs`, as every command reads it); one not created yet is
made for the group (``<group>-<entry>``) and shared by its pods. A pod's
extended resources a DeviceClass serves have the scheduler's
extended-resource claim (:mod:`dralloc.extended`): the one its status names
(or that it owns), else, for a pod not on a node, one made for it."""

from __future__ import annotations

from dataclasses import dataclass, field

from dralloc.checker.finding import WARNING, Finding
from dralloc.errors import InputError
from dralloc.extended import Demand, ExtendedReader
from dralloc.features import Features
from dralloc.gangs import GangReader
from dralloc.inventory.nodesel import NodeSelectorError, selector_matches
from dralloc.io.loader import ObjectSet
from dralloc.models import Node, ObjectMeta, Pod, ResourceClaim, ResourceClaimSpec


def claim_name_for(pod: Pod, entry_name: str) -> str | None:
    """The claim behind ``pod.spec.resourceClaims[entry_name]``."""
    for prc in pod.spec.resource_claims or []:
        if prc.name != entry_name:
            continue
        if prc.resource_claim_name:
            return prc.resource_claim_name
        for st in (pod.status.resource_claim_statuses or []) if pod.status else []:
            if st.name == entry_name:
                return st.resource_claim_name
    return None


def pod_key(pod: Pod) -> str:
    return f"{pod.namespace}/{pod.name}" if pod.namespace else pod.name


@dataclass
class ClusterState:
    objects: ObjectSet
    claims: dict[str, ResourceClaim] = field(default_factory=dict)        # key -> claim
    pod_claims: dict[str, list[str]] = field(default_factory=dict)        # pod key -> claim keys
    missing: dict[str, list[str]] = field(default_factory=dict)           # pod key -> entries without claim
    users: dict[str, list[Pod]] = field(default_factory=dict)             # claim key -> pods
    made: dict[str, ResourceClaim] = field(default_factory=dict)          # group claims not created yet
    group_keys: set[str] = field(default_factory=set)                     # claims that are a PodGroup's
    findings: list[Finding] = field(default_factory=list)
    extended: ExtendedReader | None = None                                # extended resources through DRA
    demands: dict[str, Demand] = field(default_factory=dict)              # pod key -> its extended resources
    extended_missing: set[str] = field(default_factory=set)               # pods whose extended claim is not made
    _by_device: dict[tuple[str, str, str], str] | None = field(default=None, repr=False)

    @classmethod
    def build(cls, objs: ObjectSet, features: Features | None = None) -> ClusterState:
        st = cls(objs, {c.key: c for c in objs.claims})
        st.extended = ExtendedReader.of(objs, features or Features.default())
        gangs = GangReader(objs)
        for pod in objs.pods:
            pk = pod_key(pod)
            st.pod_claims[pk] = []
            link = gangs.link_of(pod)
            for prc in pod.spec.resource_claims or []:
                try:
                    group = gangs.group_claim(pod, prc, link, st.made)
                except InputError:
                    group = None    # the gang analysis names the broken link
                if group is not None:
                    st.group_keys.add(group)
                    if group in st.claims:
                        st.made.pop(group, None)
                    st.pod_claims[pk].append(group)
                    st.users.setdefault(group, []).append(pod)
                    continue
                name = claim_name_for(pod, prc.name)
                key = f"{pod.namespace}/{name}" if pod.namespace else (name or "")
                if name is None or key not in st.claims:
                    st.missing.setdefault(pk, []).append(prc.name)
                    continue
                st.pod_claims[pk].append(key)
                st.users.setdefault(key, []).append(pod)
        for pod in objs.pods:
            st._extended_claim(pod)    # last, as the scheduler orders it
        return st

    def _extended_claim(self, pod: Pod) -> None:
        """The pod's extended-resource claim, when DRA may serve one of its
        extended resources: the one recorded, else (not made yet) noted."""
        try:
            demand = self.extended.demand(pod) if self.extended is not None else None
        except InputError as e:
            self.findings.append(Finding(WARNING, "extended-resources", pod_key(pod), str(e),
                                         (f"Pod {pod_key(pod)}",), ("spec.containers",)))
            return
        if demand is None:
            return
        pk = pod_key(pod)
        self.demands[pk] = demand
        found = self.extended.recorded(pod) if self.extended is not None else None
        if found is not None and found.key in self.claims:
            self.pod_claims[pk].append(found.key)
            self.users.setdefault(found.key, []).append(pod)
        elif demand.dra:
            self.extended_missing.add(pk)

    def claim(self, key: str) -> ResourceClaim:
        """A claim the state holds, or a group claim made for it."""
        return self.claims[key] if key in self.claims else self.made[key]

    def claims_of(self, pod: Pod) -> list[ResourceClaim]:
        """The pod's claims the state knows (allocated or not), in order."""
        return [self.claim(k) for k in self.pod_claims.get(pod_key(pod), [])]

    def allocated(self) -> list[ResourceClaim]:
        return [c for c in self.claims.values() if c.status is not None and c.status.allocation is not None]

    def node(self, name: str) -> Node:
        found = self.objects.node(name)
        if found is not None:
            return found
        return Node(metadata=ObjectMeta(name=name, labels={"kubernetes.io/hostname": name}))

    def node_for(self, claim: ResourceClaim) -> Node:
        """The node a claim is checked on: where a pod using it runs; else the
        node its selector pins or first admits; else a node without a name."""
        for pod in self.users.get(claim.key, []):
            if pod.spec.node_name:
                return self.node(pod.spec.node_name)
        alloc = claim.status.allocation if claim.status else None
        sel = alloc.node_selector if alloc else None
        if sel is not None:
            for term in sel.node_selector_terms:
                for r in term.match_fields or []:
                    if r.key == "metadata.name" and r.operator == "In" and r.values:
                        return self.node(r.values[0])
            for n in self.objects.nodes:
                try:
                    if selector_matches(sel, n):
                        return n
                except NodeSelectorError:
                    break
        for res in (alloc.devices.results or []) if alloc and alloc.devices else []:
            name = self._device_nodes().get((res.driver, res.pool, res.device))
            if name:
                return self.node(name)
        return Node(metadata=ObjectMeta(name=""))

    def _device_nodes(self) -> dict[tuple[str, str, str], str]:
        """(driver, pool, device) -> the nodeName of the first slice (input
        order) that publishes it bound to a node; built once."""
        if self._by_device is None:
            self._by_device = {}
            for s in self.objects.slices:
                if s.spec.node_name:
                    for d in s.spec.devices or []:
                        self._by_device.setdefault((s.spec.driver, s.spec.pool.name, d.name), s.spec.node_name)
        return self._by_device

    def pending_pods(self) -> list[Pod]:
        """Pods (not finished) with at least one claim that is not allocated,
        and pods not on a node that use a PodGroup's claim allocated already
        (a later member of a gang: it goes where the claim admits)."""
        out = []
        for pod in self.objects.pods:
            if pod.status is not None and pod.status.phase in ("Succeeded", "Failed"):
                continue
            claims = self.claims_of(pod)
            unalloc = [c for c in claims if c.status is None or c.status.allocation is None]
            waits = not pod.spec.node_name and any(c.key in self.group_keys for c in claims)
            extended = not pod.spec.node_name and pod_key(pod) in self.extended_missing
            if unalloc or self.missing.get(pod_key(pod)) or waits or extended:
                out.append(pod)
        return out

    def claims_to_place(self, pod: Pod) -> list[ResourceClaim]:
        """The pod's unallocated claims; a template claim not created yet is
        instantiated from its template (named ``<pod>-<entry>``)."""
        out = [c for c in self.claims_of(pod) if c.status is None or c.status.allocation is None]
        for entry in self.missing.get(pod_key(pod), []):
            prc = next(p for p in pod.spec.resource_claims or [] if p.name == entry)
            tmpl = next((t for t in self.objects.templates if t.name == prc.resource_claim_template_name
                         and t.namespace == pod.namespace), None)
            if tmpl is None:
                self.findings.append(Finding(WARNING, "pending", pod_key(pod),
                                             f"pod entry {entry} names no existing claim or template",
                                             (f"Pod {pod_key(pod)}",), ("spec.resourceClaims",)))
                continue
            spec: ResourceClaimSpec = tmpl.spec.spec
            out.append(ResourceClaim(metadata=ObjectMeta(name=f"{pod.name}-{entry}", namespace=pod.namespace),
                                     spec=spec))
        demand = self.demands.get(pod_key(pod))
        if pod_key(pod) in self.extended_missing and demand is not None and self.extended is not None:
            out.append(self.extended.claim_for(pod, demand, {c.key for c in out}))
        return out
