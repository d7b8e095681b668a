"""Core Kubernetes types dralloc needs: metadata, node selectors, Node, Pod."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from dralloc.models.base import FreeForm, K8sModel, OpenModel


class OwnerReference(OpenModel):
    """``metadata.ownerReferences[]``: e.g. the Pod or PodGroup a generated
    ResourceClaim belongs to."""

    api_version: str = ""
    kind: str = ""
    name: str = ""
    uid: str | None = None
    controller: bool | None = None


class ObjectMeta(OpenModel):
    name: str = ""
    namespace: str | None = None
    generate_name: str | None = None
    uid: str | None = None
    labels: dict[str, str] | None = None
    annotations: dict[str, str] | None = None
    creation_timestamp: str | None = None
    generation: int | None = None
    resource_version: str | None = None
    owner_references: list[OwnerReference] | None = None
    deletion_timestamp: str | None = None

    def controller_uid(self) -> str | None:
        """The uid (else kind/name) of the object's controller, if it has one."""
        for ref in self.owner_references or []:
            if ref.controller:
                return ref.uid or f"{ref.kind}/{ref.name}"
        return None


class NodeSelectorRequirement(K8sModel):
    key: str
    operator: str
    values: list[str] | None = None


class NodeSelectorTerm(K8sModel):
    match_expressions: list[NodeSelectorRequirement] | None = None
    match_fields: list[NodeSelectorRequirement] | None = None


class NodeSelector(K8sModel):
    node_selector_terms: list[NodeSelectorTerm] = Field(default_factory=list)


class LabelSelectorRequirement(K8sModel):
    key: str
    operator: str
    values: list[str] | None = None


class LabelSelector(K8sModel):
    """metav1.LabelSelector: every matchLabels pair and every expression must
    hold; the empty selector matches everything (a missing one, nothing)."""

    match_labels: dict[str, str] | None = None
    match_expressions: list[LabelSelectorRequirement] | None = None


class TypedObject(K8sModel):
    """Common head of a top-level object."""

    api_version: str = ""
    kind: str = ""
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)

    @property
    def name(self) -> str:
        return self.metadata.name

    @property
    def namespace(self) -> str:
        return self.metadata.namespace or ""

    @property
    def ref(self) -> str:
        """``kind namespace/name`` for messages."""
        ns = self.metadata.namespace
        return f"{self.kind} {ns + '/' if ns else ''}{self.metadata.name}"


class NodeSpec(OpenModel):
    unschedulable: bool | None = None


class Node(TypedObject, OpenModel):
    kind: Literal["Node"] = "Node"
    api_version: str = "v1"
    spec: NodeSpec | None = None
    status: dict[str, FreeForm] | None = None

    @property
    def labels(self) -> dict[str, str]:
        return dict(self.metadata.labels or {})


class PodResourceClaim(OpenModel):
    name: str
    resource_claim_name: str | None = None
    resource_claim_template_name: str | None = None


class ResourceClaimRef(OpenModel):
    name: str
    request: str | None = None


class ContainerResources(OpenModel):
    """``resources`` of a container: its claims, and its requests and limits
    (resource name -> quantity; kept as written and parsed where read, by
    :mod:`dralloc.extended` for extended resources)."""

    claims: list[ResourceClaimRef] | None = None
    requests: dict[str, FreeForm] | None = None
    limits: dict[str, FreeForm] | None = None


class Container(OpenModel):
    name: str = ""
    resources: ContainerResources | None = None
    restart_policy: str | None = None          # "Always" on an init container: a sidecar


class WorkloadReference(OpenModel):
    """``spec.workloadRef`` (Kubernetes 1.35, scheduling.k8s.io/v1alpha1): the
    Workload, its pod group, and the replica of that group the pod is in."""

    name: str = ""
    pod_group: str = ""
    pod_group_replica_key: str | None = None


class PodSchedulingGroup(OpenModel):
    """``spec.schedulingGroup`` (Kubernetes 1.36, scheduling.k8s.io/v1alpha2)."""

    pod_group_name: str | None = None


class PodSpec(OpenModel):
    node_name: str | None = None
    priority: int | None = None
    priority_class_name: str | None = None
    resource_claims: list[PodResourceClaim] | None = None
    workload_ref: WorkloadReference | None = None
    scheduling_group: PodSchedulingGroup | None = None
    containers: list[Container] = Field(default_factory=list)
    init_containers: list[Container] | None = None
    overhead: dict[str, FreeForm] | None = None     # RuntimeClass overhead, added to the pod's requests


class PodResourceClaimStatus(OpenModel):
    name: str
    resource_claim_name: str | None = None


class ContainerExtendedResourceRequest(OpenModel):
    """One entry of ``status.extendedResourceClaimStatus.requestMappings``:
    which request of the scheduler's extended-resource claim serves a
    container's extended resource (KEP-5004)."""

    container_name: str = ""
    resource_name: str = ""
    request_name: str = ""


class PodExtendedResourceClaimStatus(OpenModel):
    """``status.extendedResourceClaimStatus``: the claim the scheduler made
    for the pod's extended resources backed by DRA, and its request mapping."""

    resource_claim_name: str = ""
    request_mappings: list[ContainerExtendedResourceRequest] | None = None


class PodCondition(OpenModel):
    type: str = ""
    status: str = ""


class PodStatus(OpenModel):
    phase: str | None = None
    conditions: list[PodCondition] | None = None
    resource_claim_statuses: list[PodResourceClaimStatus] | None = None
    extended_resource_claim_status: PodExtendedResourceClaimStatus | None = None


class Pod(TypedObject, OpenModel):
    kind: Literal["Pod"] = "Pod"
    api_version: str = "v1"
    spec: PodSpec = Field(default_factory=PodSpec)
    status: PodStatus | None = None
