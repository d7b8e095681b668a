"""scheduling.k8s.io gang types, every version a served release knows:

* **v1alpha1** (Kubernetes 1.35): a Workload holds its pod groups
  (``spec.podGroups[].policy``); pods link with ``spec.workloadRef``.
* **v1alpha2** (1.36): PodGroup is a runtime object of its own
  (``spec.podGroupTemplateRef``, ``schedulingPolicy``, ``resourceClaims``,
  ``priority``); pods link with ``spec.schedulingGroup.podGroupName``; a
  Workload holds PodGroupTemplates that controllers copy into PodGroups.
* **v1beta1** and **v1alpha3** (1.37): the same PodGroup and Workload, the
  PodGroup's ``spec.workloadRef`` (``workloadName``, ``templateName``)
  replacing ``podGroupTemplateRef``, composite pod groups
  (``spec.parentCompositePodGroupName``, Workload
  ``compositePodGroupTemplates``; the CompositePodGroup object itself is
  v1alpha3 only), ``preemptionPolicy`` and ``disruptionMode`` as a union.

Only what placement reads is modelled; other fields are kept as read. The
Workload's templates are read but the copy in the PodGroup is what counts."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from dralloc.models.base import K8sModel, OpenModel
from dralloc.models.core import TypedObject


class GangSchedulingPolicy(K8sModel):
    min_count: int | None = None


class BasicSchedulingPolicy(K8sModel):
    pass


class PodGroupPolicy(K8sModel):
    """v1alpha1 ``policy`` and later ``schedulingPolicy``: exactly one of
    basic and gang."""

    basic: BasicSchedulingPolicy | None = None
    gang: GangSchedulingPolicy | None = None


class CompositeGangPolicy(K8sModel):
    min_group_count: int | None = None


class CompositePolicy(K8sModel):
    """A composite pod group's ``schedulingPolicy``: basic (its child groups
    scheduled independently) or gang (at least ``minGroupCount`` of them
    together)."""

    basic: BasicSchedulingPolicy | None = None
    gang: CompositeGangPolicy | None = None


class TopologyConstraint(K8sModel):
    key: str = ""


class SchedulingConstraints(OpenModel):
    """``schedulingConstraints`` (TopologyAwareWorkloadScheduling): every pod
    of the group in one domain of a node label."""

    topology: list[TopologyConstraint] | None = None


class WorkloadPodGroup(OpenModel):
    """v1alpha1: a pod group inside a Workload."""

    name: str = ""
    policy: PodGroupPolicy | None = None


class PodGroupResourceClaim(K8sModel):
    """A claim of the group: exactly one of a ResourceClaim (by name) and a
    ResourceClaimTemplate (one claim made for the whole group)."""

    name: str = ""
    resource_claim_name: str | None = None
    resource_claim_template_name: str | None = None


class PodGroupTemplate(OpenModel):
    name: str = ""
    scheduling_policy: PodGroupPolicy | None = None
    scheduling_constraints: SchedulingConstraints | None = None
    resource_claims: list[PodGroupResourceClaim] | None = None
    priority: int | None = None


class CompositePodGroupTemplate(OpenModel):
    name: str = ""
    scheduling_policy: CompositePolicy | None = None
    scheduling_constraints: SchedulingConstraints | None = None
    priority: int | None = None
    pod_group_templates: list[PodGroupTemplate] | None = None
    composite_pod_group_templates: list[CompositePodGroupTemplate] | None = None


class WorkloadSpec(OpenModel):
    controller_ref: dict[str, str] | None = None
    pod_groups: list[WorkloadPodGroup] | None = None                           # v1alpha1
    pod_group_templates: list[PodGroupTemplate] | None = None                  # v1alpha2 and later
    composite_pod_group_templates: list[CompositePodGroupTemplate] | None = None   # v1alpha3, v1beta1


class Workload(TypedObject, OpenModel):
    kind: Literal["Workload"] = "Workload"
    api_version: str = "scheduling.k8s.io/v1alpha1"
    spec: WorkloadSpec = Field(default_factory=WorkloadSpec)


class PodGroupResourceClaimStatus(K8sModel):
    name: str = ""
    resource_claim_name: str | None = None


class PodGroupStatus(OpenModel):
    resource_claim_statuses: list[PodGroupResourceClaimStatus] | None = None


class PodGroupWorkloadRef(OpenModel):
    """v1alpha3/v1beta1 ``spec.workloadRef``: the Workload and its template
    the group was made from."""

    workload_name: str = ""
    template_name: str = ""


class PodGroupSpec(OpenModel):
    pod_group_template_ref: dict[str, dict[str, str]] | None = None   # v1alpha2
    workload_ref: PodGroupWorkloadRef | None = None                     # v1alpha3, v1beta1
    parent_composite_pod_group_name: str | None = None                  # v1alpha3, v1beta1
    scheduling_policy: PodGroupPolicy | None = None
    scheduling_constraints: SchedulingConstraints | None = None
    resource_claims: list[PodGroupResourceClaim] | None = None
    priority: int | None = None


class PodGroup(TypedObject, OpenModel):
    kind: Literal["PodGroup"] = "PodGroup"
    api_version: str = "scheduling.k8s.io/v1alpha2"
    spec: PodGroupSpec = Field(default_factory=PodGroupSpec)
    status: PodGroupStatus | None = None


class CompositePodGroupSpec(OpenModel):
    parent_composite_pod_group_name: str | None = None
    workload_ref: PodGroupWorkloadRef | None = None
    scheduling_policy: CompositePolicy | None = None
    scheduling_constraints: SchedulingConstraints | None = None
    priority: int | None = None


class CompositePodGroup(TypedObject, OpenModel):
    """v1alpha3 (Kubernetes 1.37, CompositePodGroup gate): a group of pod
    groups (and composite groups) with a policy of its own."""

    kind: Literal["CompositePodGroup"] = "CompositePodGroup"
    api_version: str = "scheduling.k8s.io/v1alpha3"
    spec: CompositePodGroupSpec = Field(default_factory=CompositePodGroupSpec)


CompositePodGroupTemplate.model_rebuild()
WorkloadSpec.model_rebuild()
