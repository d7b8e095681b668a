"""One request, or one firstAvailable alternative of it, ready to search:
what the allocator knows of it once the claim is validated (class, selectors,
mode and count, admin access, tolerations, capacity requests). Built by
:mod:`dralloc.inventory.requests`; read by the selector cache, the replay and
the encoders."""

from __future__ import annotations

from dataclasses import dataclass, field

from dralloc.inventory.pools import PoolDevice
from dralloc.models import DeviceClass, DeviceToleration
from dralloc.quantity import Quantity


@dataclass(eq=False)
class RequestSpec:
    """One plain request or one firstAvailable alternative, ready to search."""

    claim_index: int
    claim_key: str
    name: str          # the name results carry: "parent/sub" or the plain name
    base: str          # the request's name
    sub: str           # the sub-request's name, "" for a plain request
    key: tuple[int, int, int]  # (claim, request, sub or -1)
    device_class_name: str
    class_selectors: list[str]
    selectors: list[str]
    mode: str
    count: int
    admin: bool
    tolerations: list[DeviceToleration] | None
    capacity: dict[str, Quantity] | None
    device_class: DeviceClass | None = None
    all_devices: list[PoolDevice] | None = None
    num_devices: int = 0
    # KEP-6080 derived attributes (name, CEL expression), with DRADerivedAttributes on
    derived: list[tuple[str, str]] = field(default_factory=list)

    @property
    def is_all(self) -> bool:
        return self.mode == "All"
