"""What already-allocated claims hold (the allocator's ``AllocatedState``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction

from dralloc.features import Features, Variant
from dralloc.inventory.pools import DeviceID
from dralloc.models import ResourceClaim


@dataclass
class AllocatedState:
    devices: set[DeviceID] = field(default_factory=set)                 # exclusively held
    shared: set[tuple[DeviceID, str]] = field(default_factory=set)      # (device, shareID)
    aggregated: dict[DeviceID, dict[str, Fraction]] = field(default_factory=dict)
    shared_devices: set[DeviceID] = field(default_factory=set)

    @classmethod
    def from_claims(cls, claims: Iterable[ResourceClaim], features: Features,
                    variant: Variant) -> AllocatedState:
        """Record the results of allocated claims as the scheduler does: admin
        access results are not recorded; with consumable capacity, results
        with a shareID are shares (their consumed capacity aggregated); every
        other result holds its device exclusively. The stable variant only
        knows exclusive devices."""
        st = cls()
        shares_known = features.consumable_capacity and variant is not Variant.STABLE
        for claim in claims:
            alloc = claim.status.allocation if claim.status else None
            if alloc is None or alloc.devices is None:
                continue
            for r in alloc.devices.results or []:
                if r.admin_access:
                    continue
                dev = (r.driver, r.pool, r.device)
                if features.consumable_capacity and r.share_id:
                    if not shares_known:
                        continue
                    st.shared.add((dev, r.share_id))
                    st.shared_devices.add(dev)
                    if r.consumed_capacity:
                        agg = st.aggregated.setdefault(dev, {})
                        for k, q in r.consumed_capacity.items():
                            agg[k] = agg.get(k, Fraction(0)) + q.value
                else:
                    st.devices.add(dev)
        return st

    def is_allocated(self, dev: DeviceID) -> bool:
        """``IsDeviceAllocated``: held exclusively, or by any share."""
        return dev in self.devices or dev in self.aggregated or dev in self.shared_devices
