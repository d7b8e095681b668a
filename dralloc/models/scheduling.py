"""scheduling.k8s.io gang types: Workload (v1alpha1, Kubernetes 1.35: pod
groups inside the Workload, pods link with ``spec.workloadRef``) and PodGroup
(v1alpha2, Kubernetes 1.36: a runtime object of its own, pods link with
``spec.schedulingGroup.podGroupName``, PodGroup-level ``resourceClaims``
shared by the group's pods). The v1alpha2 Workload holds PodGroupTemplates
that controllers copy into PodGroups; it is read but the copy in the PodGroup
is what counts."""

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
    """v1alpha1 ``policy`` and v1alpha2 ``schedulingPolicy``: exactly one of
    basic and gang."""

    basic: BasicSchedulingPolicy | None = None
    gang: GangSchedulingPolicy | None = None


class WorkloadPodGroup(OpenModel):
    """v1alpha1: a pod group inside a Workload."""

    name: str = ""
    policy: PodGroupPolicy | None = None


class WorkloadSpec(OpenModel):
    controller_ref: dict[str, str] | None = None
    pod_groups: list[WorkloadPodGroup] | None = None          # v1alpha1
    pod_group_templates: list[PodGroupTemplate] | None = None  # v1alpha2


class Workload(TypedObject, OpenModel):
    kind: Literal["Workload"] = "Workload"
    api_version: str = "scheduling.k8s.io/v1alpha1"
    spec: WorkloadSpec = Field(default_factory=WorkloadSpec)


class PodGroupResourceClaim(K8sModel):
    """A claim of the group: exactly one of a ResourceClaim (by name) and a
    ResourceClaimTemplate (one claim made for the whole group)."""

    name: str = ""
    resource_claim_name: str | None = None
    resource_claim_template_name: str | None = None


class PodGroupTemplate(OpenModel):
    name: str = ""
    scheduling_policy: PodGroupPolicy | None = None
    resource_claims: list[PodGroupResourceClaim] | None = None


class PodGroupResourceClaimStatus(K8sModel):
    name: str = ""
    resource_claim_name: str | None = None


class PodGroupStatus(OpenModel):
    resource_claim_statuses: list[PodGroupResourceClaimStatus] | None = None


class PodGroupSpec(OpenModel):
    pod_group_template_ref: dict[str, dict[str, str]] | None = None
    scheduling_policy: PodGroupPolicy | None = None
    resource_claims: list[PodGroupResourceClaim] | None = None


class PodGroup(TypedObject, OpenModel):
    kind: Literal["PodGroup"] = "PodGroup"
    api_version: str = "scheduling.k8s.io/v1alpha2"
    spec: PodGroupSpec = Field(default_factory=PodGroupSpec)
    status: PodGroupStatus | None = None


WorkloadSpec.model_rebuild()
