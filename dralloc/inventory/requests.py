"""Request slots: claims → requests → firstAvailable sub-requests, validated
and sized as the allocator does before its search (spec §3, VR-*)."""

from __future__ import annotations

from dataclasses import dataclass, field

from dralloc.errors import AllocationError
from dralloc.features import Features, Variant
from dralloc.inventory.capacity import UnknownCapacity, request_over_capacity_ok
from dralloc.inventory.pools import Pool, PoolDevice
from dralloc.inventory.selectable import Selectability
from dralloc.inventory.spec import RequestSpec
from dralloc.inventory.state import AllocatedState
from dralloc.models import (
    DeviceClass,
    DeviceConstraint,
    DeviceRequest,
    DeviceSubRequest,
    ExactDeviceRequest,
    ResourceClaim,
)

MAX_RESULTS = 32


@dataclass(eq=False)
class RequestSlot:
    name: str
    plain: RequestSpec | None = None
    subs: list[RequestSpec] = field(default_factory=list)

    @property
    def options(self) -> list[RequestSpec]:
        return [self.plain] if self.plain is not None else self.subs

    def minimum(self) -> int:
        return min((r.num_devices for r in self.options), default=0)


@dataclass(eq=False)
class ClaimPlan:
    index: int
    claim: ResourceClaim
    key: str
    slots: list[RequestSlot]
    constraints: list[DeviceConstraint]


def claim_key(claim: ResourceClaim) -> str:
    ns = claim.metadata.namespace
    return f"{ns}/{claim.name}" if ns else claim.name


class PlanBuilder:
    """Builds and validates the request slots of the claims (VR-1..VR-10)."""

    def __init__(self, classes: dict[str, DeviceClass], pools: list[Pool], features: Features,
                 variant: Variant, selectable: Selectability, state: AllocatedState) -> None:
        self.classes = classes
        self.pools = pools
        self.features = features
        self.variant = variant
        self.selectable = selectable
        self.state = state

    def build(self, claims: list[ResourceClaim]) -> list[ClaimPlan]:
        return [self._claim(i, c) for i, c in enumerate(claims)]

    def _claim(self, ci: int, claim: ResourceClaim) -> ClaimPlan:
        key = claim_key(claim)
        slots = [self._request(ci, key, ri, r) for ri, r in enumerate(claim.spec.devices.requests or [])]
        total = sum(s.minimum() for s in slots)
        if total > MAX_RESULTS:
            raise AllocationError(f"claim {key}: number of requested devices {total} exceeds the claim limit of {MAX_RESULTS}")
        constraints = list(claim.spec.devices.constraints or [])
        for i, c in enumerate(constraints):
            if c.match_attribute is not None:
                continue
            if c.distinct_attribute is not None and self.variant is not Variant.STABLE:
                continue
            raise AllocationError(f"claim {key}, constraint #{i}: empty constraint (unsupported constraint type?)")
        return ClaimPlan(ci, claim, key, slots, constraints)

    def _capacity_gate_checked(self) -> bool:
        """VR-2: only incubating and experimental reject capacity requests
        while DRAConsumableCapacity is off; stable never looks at them."""
        return not self.features.consumable_capacity and self.variant is not Variant.STABLE

    def _request(self, ci: int, key: str, ri: int, r: DeviceRequest) -> RequestSlot:
        slot = RequestSlot(r.name)
        if r.first_available:
            if not self.features.prioritized_list:
                raise AllocationError(f"claim {key}, request {r.name}: has subrequests, but the DRAPrioritizedList feature is disabled")
            if self._capacity_gate_checked():
                for s in r.first_available:
                    if s.capacity is not None:
                        raise AllocationError(f"claim {key}, subrequest {s.name}: has capacity requests, but the DRAConsumableCapacity feature is disabled")
            for si, s in enumerate(r.first_available):
                slot.subs.append(self._spec(ci, key, (ci, ri, si), r.name, s))
            return slot
        body = r.exactly or ExactDeviceRequest()
        if self._capacity_gate_checked() and body.capacity is not None:
            raise AllocationError(f"claim {key}, request {r.name}: has capacity requests, but the DRAConsumableCapacity feature is disabled")
        slot.plain = self._spec(ci, key, (ci, ri, -1), r.name, body)
        return slot

    def _spec(self, ci: int, key: str, rkey: tuple[int, int, int], base: str,
              body: ExactDeviceRequest | DeviceSubRequest) -> RequestSpec:
        is_sub = isinstance(body, DeviceSubRequest)
        sub = body.name if isinstance(body, DeviceSubRequest) else ""
        msg = f"claim {key}, request {sub or base}"
        for i, sel in enumerate(body.selectors or []):
            if sel.cel is None:
                raise AllocationError(f"{msg}, selector #{i}: CEL expression empty (unsupported selector type?)")
        admin_ptr = None if is_sub else getattr(body, "admin_access", None)
        if not self.features.admin_access and admin_ptr is not None:
            raise AllocationError(f"{msg}: admin access is requested, but the feature is disabled")
        if not body.device_class_name:
            raise AllocationError(f"{msg}: missing device class name (unsupported request type?)")
        cls = self.classes.get(body.device_class_name)
        if cls is None:
            raise AllocationError(f"{msg}: could not retrieve device class {body.device_class_name}: "
                                  f'deviceclass.resource.k8s.io "{body.device_class_name}" not found')
        spec = RequestSpec(
            claim_index=ci, claim_key=key, name=f"{base}/{sub}" if sub else base, base=base, sub=sub,
            key=rkey, device_class_name=cls.name,
            class_selectors=[s.cel.expression for s in cls.spec.selectors or [] if s.cel is not None],
            selectors=[s.cel.expression for s in body.selectors or [] if s.cel is not None],
            mode=body.allocation_mode or "", count=body.count if body.count is not None else 0,
            admin=bool(admin_ptr), tolerations=body.tolerations,
            capacity=dict(body.capacity.requests or {}) if body.capacity is not None else None,
            device_class=cls,
            derived=[(d.name, d.expression) for d in body.derived_attributes or []]
            if self.features.derived_attributes else [],
        )
        if spec.mode == "ExactCount":
            spec.num_devices = spec.count
        elif spec.mode == "All":
            spec.all_devices = self._all_devices(spec, msg)
            spec.num_devices = len(spec.all_devices)
        else:
            raise AllocationError(f"{msg}: unsupported count mode {spec.mode}")
        return spec

    def _all_devices(self, spec: RequestSpec, msg: str) -> list[PoolDevice]:
        out: list[PoolDevice] = []
        for pool in self.pools:
            if pool.incomplete:
                raise AllocationError(f"{msg}: asks for all devices, but resource pool {pool.driver}/{pool.name} is currently being updated")
            if pool.invalid is not None:
                raise AllocationError(f"{msg}: asks for all devices, but resource pool {pool.driver}/{pool.name} is currently invalid")
            for pd in pool.devices:
                if not self.selectable(pd, spec):
                    continue
                if self.features.consumable_capacity and self.variant is not Variant.STABLE:
                    try:
                        if not request_over_capacity_ok(spec.capacity, pd.device.capacity,
                                                        self.state.aggregated.get(pd.id), None):
                            continue
                    except UnknownCapacity:
                        continue
                out.append(pd)
        return out
