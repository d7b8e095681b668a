"""API-server defaulting, applied explicitly.

The Kubernetes allocator does not default anything itself: the API server has
already done so before the scheduler sees an object. Files written by hand (and
the conformance scenarios) are "as a user writes them", so dralloc applies the
same defaults on load:

* ``exactly.allocationMode`` and ``firstAvailable[].allocationMode`` absent →
  ``ExactCount``;
* ``count`` absent with mode ``ExactCount`` → ``1`` (an explicit ``0`` is kept);
* a toleration without ``operator`` → ``Equal``.

Everything else is left as written (a nil list stays nil: pointer semantics
matter to the allocator).
"""

from __future__ import annotations

from typing import TypeVar

from dralloc.models import (
    DeviceRequest,
    DeviceToleration,
    ExactDeviceRequest,
    ResourceClaim,
    ResourceClaimTemplate,
)
from dralloc.models.resource import DeviceClaim, DeviceSubRequest

R = TypeVar("R", ExactDeviceRequest, DeviceSubRequest)


def _tolerations(tols: list[DeviceToleration] | None) -> list[DeviceToleration] | None:
    if tols is None:
        return None
    return [t if t.operator else t.model_copy(update={"operator": "Equal"}) for t in tols]


def _request_body(r: R) -> R:
    update: dict[str, object] = {}
    mode = r.allocation_mode or "ExactCount"
    if r.allocation_mode is None:
        update["allocation_mode"] = mode
    if r.count is None and mode == "ExactCount":
        update["count"] = 1
    if r.tolerations is not None:
        update["tolerations"] = _tolerations(r.tolerations)
    return r.model_copy(update=update) if update else r


def default_request(req: DeviceRequest) -> DeviceRequest:
    update: dict[str, object] = {}
    if req.exactly is not None:
        update["exactly"] = _request_body(req.exactly)
    if req.first_available is not None:
        update["first_available"] = [_request_body(s) for s in req.first_available]
    return req.model_copy(update=update) if update else req


def default_device_claim(dc: DeviceClaim) -> DeviceClaim:
    if not dc.requests:
        return dc
    return dc.model_copy(update={"requests": [default_request(r) for r in dc.requests]})


def default_claim(claim: ResourceClaim) -> ResourceClaim:
    """The claim as the API server stores it."""
    spec = claim.spec.model_copy(update={"devices": default_device_claim(claim.spec.devices)})
    return claim.model_copy(update={"spec": spec})


def default_template(t: ResourceClaimTemplate) -> ResourceClaimTemplate:
    inner = t.spec.spec.model_copy(update={"devices": default_device_claim(t.spec.spec.devices)})
    return t.model_copy(update={"spec": t.spec.model_copy(update={"spec": inner})})
