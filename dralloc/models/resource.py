"""resource.k8s.io/v1 types: ResourceSlice, DeviceClass, ResourceClaim,
ResourceClaimTemplate (plus the KEP-5234 mixin fields).

Pointer semantics matter to the allocator (a non-nil empty ``bindingConditions``
list, ``perDeviceNodeSelection: false``, ``adminAccess: false``), so every
optional field defaults to ``None`` and ``None`` means "not set"."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, SerializationInfo, SerializerFunctionWrapHandler, model_serializer

from dralloc.models.base import FreeForm, K8sModel, OpenModel, QuantityField
from dralloc.models.core import NodeSelector, ObjectMeta, TypedObject

# ---------------------------------------------------------------- slices


class DeviceAttribute(K8sModel):
    """One typed attribute value. Exactly one field is set in valid input;
    the list forms come from the DRAListTypeAttributes feature."""

    int_: int | None = Field(default=None, alias="int")
    bool_: bool | None = Field(default=None, alias="bool")
    string: str | None = None
    version: str | None = None
    ints: list[int] | None = None
    bools: list[bool] | None = None
    strings: list[str] | None = None
    versions: list[str] | None = None

    def set_fields(self) -> list[str]:
        return [
            k
            for k, f in (
                ("int", self.int_), ("bool", self.bool_), ("string", self.string),
                ("version", self.version), ("ints", self.ints), ("bools", self.bools),
                ("strings", self.strings), ("versions", self.versions),
            )
            if f is not None
        ]


class CapacityRequestPolicyRange(K8sModel):
    min: QuantityField | None = None
    max: QuantityField | None = None
    step: QuantityField | None = None


class CapacityRequestPolicy(K8sModel):
    default: QuantityField | None = None
    valid_values: list[QuantityField] | None = None
    valid_range: CapacityRequestPolicyRange | None = None


class DeviceCapacity(K8sModel):
    value: QuantityField
    request_policy: CapacityRequestPolicy | None = None


class Counter(K8sModel):
    value: QuantityField


class CounterSet(K8sModel):
    name: str
    counters: dict[str, Counter] | None = None
    includes: list[str] | None = None  # KEP-5234


class DeviceCounterConsumption(K8sModel):
    counter_set: str
    counters: dict[str, Counter] | None = None
    includes: list[str] | None = None  # KEP-5234
    # KEP-5963 (DRADeviceCompatibilityGroups, 1.37 alpha): devices drawing from
    # one counter set are co-allocated only when their groups intersect
    compatibility_groups: list[str] | None = None


class NodeAllocatableResourceMapping(K8sModel):
    """Kubernetes 1.36 (alpha, DRANodeAllocatableResources): what a device
    allocation takes from a node-allocatable resource -- ``allocationMultiplier``
    times the devices allocated, or times the capacity ``capacityKey``
    consumed. Replaced in 1.37 by :class:`NodeAllocatableResource`."""

    capacity_key: str | None = None
    allocation_multiplier: QuantityField | None = None


class NodeAllocatableMapping(K8sModel):
    """1.37: the allocation is the node resource itself (``deviceMultiplier``
    per device, or ``capacityMultiplier`` per unit of ``capacityKey`` consumed)."""

    capacity_key: str | None = None
    capacity_multiplier: QuantityField | None = None
    device_multiplier: QuantityField | None = None


class NodeAllocatableOverhead(K8sModel):
    """1.37: node resources a device allocation costs besides (per pod, per
    referencing container)."""

    per_pod: QuantityField | None = None
    per_container: QuantityField | None = None


class NodeAllocatableResource(K8sModel):
    """Kubernetes 1.37 (alpha, DRANodeAllocatableResources): one node resource
    (``cpu``, ``memory``...) a device allocation accounts for."""

    mapping: NodeAllocatableMapping | None = None
    overhead: NodeAllocatableOverhead | None = None


class DeviceTaint(K8sModel):
    key: str
    value: str | None = None
    effect: str
    time_added: str | None = None


class RuleTaint(DeviceTaint):
    """A taint a DeviceTaintRule (``rule``, its name) put on a device, as
    Kubernetes' slice tracker does before the allocator sees the slice
    (dralloc.validation.taintrules). It counts only while the release's
    DRADeviceTaintRules gate is on, and a slice written out leaves it out:
    the rule is an object of its own."""

    rule: str = Field(default="", exclude=True)


class Device(K8sModel):
    name: str
    attributes: dict[str, DeviceAttribute] | None = None
    capacity: dict[str, DeviceCapacity] | None = None
    consumes_counters: list[DeviceCounterConsumption] | None = None
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    all_nodes: bool | None = None
    taints: list[DeviceTaint] | None = None
    binds_to_node: bool | None = None
    binding_conditions: list[str] | None = None
    binding_failure_conditions: list[str] | None = None
    allow_multiple_allocations: bool | None = None
    # KEP-5517 (alpha): 1.36's field, and the one 1.37 replaced it with (read
    # and validated; the allocator does not use them, the kubelet does)
    node_allocatable_resource_mappings: dict[str, NodeAllocatableResourceMapping] | None = None
    node_allocatable_resources: dict[str, NodeAllocatableResource] | None = None
    includes: list[str] | None = None  # KEP-5234

    @model_serializer(mode="wrap")
    def _without_rule_taints(self, nxt: SerializerFunctionWrapHandler, info: SerializationInfo) -> dict[str, Any]:
        out: dict[str, Any] = nxt(self)
        if not self.taints or not any(isinstance(t, RuleTaint) for t in self.taints):
            return out
        if not isinstance(out.get("taints"), list):
            return out
        kept = [d for d, t in zip(out["taints"], self.taints, strict=True) if not isinstance(t, RuleTaint)]
        if kept:
            out["taints"] = kept
        elif info.exclude_none:
            del out["taints"]
        else:
            out["taints"] = None
        return out


class ResourcePool(K8sModel):
    name: str
    generation: int = 0
    resource_slice_count: int = 0


class DeviceMixin(K8sModel):
    """KEP-5234 device mixin: a named bundle of device fields."""

    name: str
    attributes: dict[str, DeviceAttribute] | None = None
    capacity: dict[str, DeviceCapacity] | None = None
    consumes_counters: list[DeviceCounterConsumption] | None = None
    taints: list[DeviceTaint] | None = None
    binding_conditions: list[str] | None = None
    binding_failure_conditions: list[str] | None = None
    allow_multiple_allocations: bool | None = None
    binds_to_node: bool | None = None
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    all_nodes: bool | None = None


class CounterSetMixin(K8sModel):
    name: str
    counters: dict[str, Counter] | None = None


class DeviceCounterConsumptionMixin(K8sModel):
    name: str
    counters: dict[str, Counter] | None = None


class ResourceSliceMixins(K8sModel):
    device: list[DeviceMixin] | None = None
    counter_set: list[CounterSetMixin] | None = None
    device_counter_consumption: list[DeviceCounterConsumptionMixin] | None = None


class ResourceSliceSpec(K8sModel):
    driver: str
    pool: ResourcePool
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    all_nodes: bool | None = None
    per_device_node_selection: bool | None = None
    devices: list[Device] | None = None
    shared_counters: list[CounterSet] | None = None
    mixins: ResourceSliceMixins | None = None
    partition_type_attribute: str | None = None  # newer alpha field, kept as read
    skip_node_operations: list[str] | None = None  # newer alpha field, kept as read


class ResourceSlice(TypedObject):
    kind: Literal["ResourceSlice"] = "ResourceSlice"
    api_version: str = "resource.k8s.io/v1"
    spec: ResourceSliceSpec


# ---------------------------------------------------------------- classes


class CELDeviceSelector(K8sModel):
    expression: str


class DeviceSelector(K8sModel):
    cel: CELDeviceSelector | None = None


class OpaqueDeviceConfiguration(K8sModel):
    driver: str
    parameters: FreeForm = None


class DeviceClassConfiguration(K8sModel):
    opaque: OpaqueDeviceConfiguration | None = None


class DeviceClassSpec(K8sModel):
    selectors: list[DeviceSelector] | None = None
    config: list[DeviceClassConfiguration] | None = None
    extended_resource_name: str | None = None


class DeviceClass(TypedObject):
    kind: Literal["DeviceClass"] = "DeviceClass"
    api_version: str = "resource.k8s.io/v1"
    spec: DeviceClassSpec = Field(default_factory=DeviceClassSpec)


# ---------------------------------------------------------------- claims


class DeviceToleration(K8sModel):
    key: str | None = None
    operator: str | None = None
    value: str | None = None
    effect: str | None = None
    toleration_seconds: int | None = None


class CapacityRequirements(K8sModel):
    requests: dict[str, QuantityField] | None = None


class DerivedAttribute(K8sModel):
    """KEP-6080 (DRADerivedAttributes, 1.37 alpha): a virtual attribute of each
    candidate device, computed by a CEL expression, that the claim's
    constraints can name."""

    name: str
    expression: str


class ExactDeviceRequest(K8sModel):
    device_class_name: str = ""
    selectors: list[DeviceSelector] | None = None
    allocation_mode: str | None = None
    count: int | None = None
    admin_access: bool | None = None
    tolerations: list[DeviceToleration] | None = None
    capacity: CapacityRequirements | None = None
    derived_attributes: list[DerivedAttribute] | None = None


class DeviceSubRequest(K8sModel):
    name: str
    device_class_name: str = ""
    selectors: list[DeviceSelector] | None = None
    allocation_mode: str | None = None
    count: int | None = None
    tolerations: list[DeviceToleration] | None = None
    capacity: CapacityRequirements | None = None
    derived_attributes: list[DerivedAttribute] | None = None


class DeviceRequest(K8sModel):
    name: str
    exactly: ExactDeviceRequest | None = None
    first_available: list[DeviceSubRequest] | None = None


class DeviceConstraint(K8sModel):
    requests: list[str] | None = None
    match_attribute: str | None = None
    distinct_attribute: str | None = None


class DeviceClaimConfiguration(K8sModel):
    requests: list[str] | None = None
    opaque: OpaqueDeviceConfiguration | None = None


class DeviceClaim(K8sModel):
    requests: list[DeviceRequest] | None = None
    constraints: list[DeviceConstraint] | None = None
    config: list[DeviceClaimConfiguration] | None = None


class ResourceClaimSpec(K8sModel):
    devices: DeviceClaim = Field(default_factory=DeviceClaim)


class DeviceRequestAllocationResult(K8sModel):
    request: str
    driver: str
    pool: str
    device: str
    admin_access: bool | None = None
    tolerations: list[DeviceToleration] | None = None
    binding_conditions: list[str] | None = None
    binding_failure_conditions: list[str] | None = None
    share_id: str | None = Field(default=None, alias="shareID")
    consumed_capacity: dict[str, QuantityField] | None = None
    skip_node_operations: list[str] | None = None
    # KEP-5963: the device's compatibility groups per counter set, as allocated
    compatibility_groups: dict[str, list[str]] | None = None


class DeviceAllocationConfiguration(K8sModel):
    source: str
    requests: list[str] | None = None
    opaque: OpaqueDeviceConfiguration | None = None


class DeviceAllocationResult(K8sModel):
    results: list[DeviceRequestAllocationResult] | None = None
    config: list[DeviceAllocationConfiguration] | None = None


class AllocationResult(K8sModel):
    devices: DeviceAllocationResult | None = None
    node_selector: NodeSelector | None = None
    allocation_timestamp: str | None = None


class ResourceClaimConsumerReference(OpenModel):
    resource: str = ""
    name: str = ""
    uid: str = ""
    api_group: str | None = None


class ResourceClaimStatus(OpenModel):
    allocation: AllocationResult | None = None
    reserved_for: list[ResourceClaimConsumerReference] | None = None
    devices: list[dict[str, FreeForm]] | None = None


class ResourceClaim(TypedObject):
    kind: Literal["ResourceClaim"] = "ResourceClaim"
    api_version: str = "resource.k8s.io/v1"
    spec: ResourceClaimSpec = Field(default_factory=ResourceClaimSpec)
    status: ResourceClaimStatus | None = None

    @property
    def key(self) -> str:
        """``namespace/name`` as the allocator names a claim in messages."""
        ns = self.metadata.namespace
        return f"{ns}/{self.metadata.name}" if ns else self.metadata.name


class ResourceClaimTemplateSpec(K8sModel):
    metadata: ObjectMeta | None = None
    spec: ResourceClaimSpec = Field(default_factory=ResourceClaimSpec)


class ResourceClaimTemplate(TypedObject):
    kind: Literal["ResourceClaimTemplate"] = "ResourceClaimTemplate"
    api_version: str = "resource.k8s.io/v1"
    spec: ResourceClaimTemplateSpec = Field(default_factory=ResourceClaimTemplateSpec)


# ---------------------------------------------------------------- device taint rules


class DeviceTaintSelector(K8sModel):
    """Which devices a DeviceTaintRule taints: every field set must match
    (the empty selector matches every device). ``deviceClassName`` and
    ``selectors`` exist only in v1alpha3 as Kubernetes 1.33 and 1.34 served
    it (removed in 1.35)."""

    driver: str | None = None
    pool: str | None = None
    device: str | None = None
    device_class_name: str | None = None
    selectors: list[DeviceSelector] | None = None


class DeviceTaintRuleSpec(K8sModel):
    device_selector: DeviceTaintSelector | None = None
    taint: DeviceTaint


class DeviceTaintRule(TypedObject, OpenModel):
    """resource.k8s.io DeviceTaintRule (v1alpha3 in 1.33-1.36, v1beta2 from
    1.36, v1 from 1.37): one taint added to every device its selector
    matches, as if the driver had published it."""

    kind: Literal["DeviceTaintRule"] = "DeviceTaintRule"
    api_version: str = "resource.k8s.io/v1"
    spec: DeviceTaintRuleSpec
    status: dict[str, FreeForm] | None = None
