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
matter to the allocator). Scenario files get these defaults too (the scenario
format asks for them).

Object files, dumps and objects built in Python also get what kubectl and the
API server do when an object is created (:func:`default_object`): a namespaced
object without a namespace lands in ``default``, and a cluster-scoped one loses
any namespace it carries. Scenario files do not: they are the allocator's own
input, where the upstream test table leaves claims without a namespace.

Every function returns its argument itself when there is nothing to default,
so defaulting twice is free and keeps the object's identity.
"""

from __future__ import annotations

from typing import TypeVar

from dralloc.io.registry import namespaced
from dralloc.models import (
    DeviceRequest,
    ExactDeviceRequest,
    ResourceClaim,
    ResourceClaimTemplate,
    TypedObject,
)
from dralloc.models.resource import DeviceClaim, DeviceSubRequest

R = TypeVar("R", ExactDeviceRequest, DeviceSubRequest)
T = TypeVar("T", bound=TypedObject)
DEFAULT_NAMESPACE = "default"


def _request_body(r: R) -> R:
    update: dict[str, object] = {}
    mode = r.allocation_mode or "ExactCount"
    if r.allocation_mode is None:
        update["allocation_mode"] = mode
    if r.count is None and mode == "ExactCount":
        update["count"] = 1
    if r.tolerations is not None and any(not t.operator for t in r.tolerations):
        update["tolerations"] = [t if t.operator else t.model_copy(update={"operator": "Equal"})
                                 for t in r.tolerations]
    return r.model_copy(update=update) if update else r


def default_request(req: DeviceRequest) -> DeviceRequest:
    update: dict[str, object] = {}
    if req.exactly is not None:
        body = _request_body(req.exactly)
        if body is not req.exactly:
            update["exactly"] = body
    if req.first_available is not None:
        subs = [_request_body(s) for s in req.first_available]
        if any(a is not b for a, b in zip(subs, req.first_available, strict=True)):
            update["first_available"] = subs
    return req.model_copy(update=update) if update else req


def default_device_claim(dc: DeviceClaim) -> DeviceClaim:
    if not dc.requests:
        return dc
    reqs = [default_request(r) for r in dc.requests]
    if all(a is b for a, b in zip(reqs, dc.requests, strict=True)):
        return dc
    return dc.model_copy(update={"requests": reqs})


def default_claim(claim: ResourceClaim) -> ResourceClaim:
    """The claim as the API server stores it."""
    devices = default_device_claim(claim.spec.devices)
    if devices is claim.spec.devices:
        return claim
    return claim.model_copy(update={"spec": claim.spec.model_copy(update={"devices": devices})})


def default_template(t: ResourceClaimTemplate) -> ResourceClaimTemplate:
    devices = default_device_claim(t.spec.spec.devices)
    if devices is t.spec.spec.devices:
        return t
    inner = t.spec.spec.model_copy(update={"devices": devices})
    return t.model_copy(update={"spec": t.spec.model_copy(update={"spec": inner})})


def default_namespace(obj: T) -> T:
    """kubectl's and the API server's namespace handling: ``default`` for a
    namespaced object without one, none for a cluster-scoped object."""
    ns = obj.metadata.namespace
    if namespaced(obj.kind):
        if ns:
            return obj
        meta = obj.metadata.model_copy(update={"namespace": DEFAULT_NAMESPACE})
    else:
        if ns is None:
            return obj
        meta = obj.metadata.model_copy(update={"namespace": None})
    return obj.model_copy(update={"metadata": meta})


def default_object(obj: T) -> T:
    """Everything the API server defaults when ``obj`` is created: request
    modes, counts and toleration operators, and the namespace."""
    if isinstance(obj, ResourceClaim):
        obj = default_claim(obj)  # type: ignore[assignment]
    elif isinstance(obj, ResourceClaimTemplate):
        obj = default_template(obj)  # type: ignore[assignment]
    return default_namespace(obj)
