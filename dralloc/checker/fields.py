"""Every field Kubernetes writes into one device result, compared with what
it writes for that request and device (spec OUT-3, OUT-4, DC-17, DC-18):

* ``adminAccess`` -- true exactly when the request asked for admin access
  (absent otherwise; an explicit ``false`` means the same and passes);
* ``tolerations`` -- the request's whole toleration list, as a set;
* ``bindingConditions`` / ``bindingFailureConditions`` -- the device's, with
  DRADeviceBindingConditions on; absent with it off;
* ``shareID`` -- present exactly on a device shared through consumable
  capacity (``allowMultipleAllocations``), and a UUID;
* ``consumedCapacity`` -- on a shared device, what the request consumes of
  every capacity the device declares (CC-5); absent otherwise;
* the request's capacity requests fit the device and its request policy at
  all (CC-1), shared or not;
* ``compatibilityGroups`` -- with DRADeviceCompatibilityGroups on, the
  device's groups per counter set as its slice declares them (counter sets
  without groups left out; absent when it declares none); absent with it off.

Uniqueness of share IDs across claims and the sums over shares are rules over
all claims together (:mod:`dralloc.checker.shared`)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from fractions import Fraction

from dralloc.checker.finding import Finding, error
from dralloc.features import Features, Variant
from dralloc.inventory.capacity import (
    UnknownCapacity,
    consumed_from_request,
    request_over_capacity_ok,
)
from dralloc.inventory.compat import snapshot
from dralloc.inventory.pools import PoolDevice
from dralloc.inventory.requests import RequestSpec
from dralloc.models import Device, DeviceRequestAllocationResult, DeviceToleration
from dralloc.quantity import Quantity

Res = DeviceRequestAllocationResult
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def is_shared(device: Device, features: Features, variant: Variant) -> bool:
    """Kubernetes shares the device through consumable capacity (DC-8)."""
    return features.consumable_capacity and variant is not Variant.STABLE \
        and bool(device.allow_multiple_allocations)


def check_result_fields(claim: str, r: Res, j: int, pd: PoolDevice, spec: RequestSpec,
                        features: Features, variant: Variant) -> list[Finding]:
    """Findings for result ``j`` of ``claim`` on device ``pd`` for ``spec``."""
    lab = f"{r.driver}/{r.pool}/{r.device}"
    fp = f"status.allocation.devices.results[{j}]"
    out: list[Finding] = []
    for rule, field, message in (*_admin(r, spec), *_tolerations(r, spec), *_binding(r, pd.device, features),
                                 *_share(r, pd.device, spec, features, variant), *_groups(r, pd.device, features)):
        out.append(error(rule, claim, f"device {lab} (request {r.request}): {message}", (lab,), (f"{fp}.{field}",)))
    return out


Problem = tuple[str, str, str]  # rule, field, message


def _admin(r: Res, spec: RequestSpec) -> list[Problem]:
    if bool(r.admin_access) == spec.admin:
        return []
    if spec.admin:
        return [("admin-access", "adminAccess", "the request asks for admin access, the result does not record it "
                 "(Kubernetes writes adminAccess: true)")]
    return [("admin-access", "adminAccess", "the result claims admin access, which the request does not ask "
             "for (an admin result holds the device without excluding others)")]


def _tol_key(t: DeviceToleration) -> tuple[str, str, str, str, int]:
    return (t.key or "", t.operator or "Equal", t.value or "", t.effect or "",
            -1 if t.toleration_seconds is None else t.toleration_seconds)


def _tolerations(r: Res, spec: RequestSpec) -> list[Problem]:
    want = sorted(_tol_key(t) for t in spec.tolerations or [])
    got = sorted(_tol_key(t) for t in r.tolerations or [])
    if want == got:
        return []
    return [("tolerations", "tolerations", f"the result carries {len(got)} toleration(s) {_tols(got)}, "
             f"Kubernetes copies the request's {len(want)} {_tols(want)}")]


def _tols(ts: Sequence[tuple[str, str, str, str, int]]) -> str:
    return "[" + ", ".join(f"{k or '*'} {op} {v}:{e or '*'}" for k, op, v, e, _ in ts) + "]"


def _binding(r: Res, device: Device, features: Features) -> list[Problem]:
    out: list[Problem] = []
    for name, got, have in (("bindingConditions", r.binding_conditions, device.binding_conditions),
                            ("bindingFailureConditions", r.binding_failure_conditions,
                             device.binding_failure_conditions)):
        want = list(have or []) if features.binding_conditions else []
        if sorted(got or []) != sorted(want):
            why = "the device's" if features.binding_conditions else "none (DRADeviceBindingConditions off)"
            out.append(("binding-conditions", name, f"{name} is {list(got or [])}, Kubernetes writes {why}: {want}"))
    return out


def _groups(r: Res, device: Device, features: Features) -> list[Problem]:
    want = snapshot(device) if features.compatibility_groups else None
    got = {cs: list(g) for cs, g in (r.compatibility_groups or {}).items()} or None
    if got == want:
        return []
    why = "the device's groups per counter set" if features.compatibility_groups else \
        "none (DRADeviceCompatibilityGroups off)"
    return [("compatibility-groups-record", "compatibilityGroups", f"compatibilityGroups is {got or {}}, Kubernetes "
             f"records {why}: {want or {}}")]


def _share(r: Res, device: Device, spec: RequestSpec, features: Features, variant: Variant) -> list[Problem]:
    shared = is_shared(device, features, variant)
    out: list[Problem] = []
    if shared and not r.share_id:
        out.append(("share-id", "shareID", "the device is shared (allowMultipleAllocations) and every share "
                    "gets a shareID; the result has none"))
    elif r.share_id and not shared:
        why = ("DRAConsumableCapacity is off" if not features.consumable_capacity
               else "the stable allocator does not share" if variant is Variant.STABLE
               else "the device does not allow multiple allocations")
        out.append(("share-id", "shareID", f"the result has shareID {r.share_id}, but the device is not shared ({why})"))
    elif r.share_id and not UUID.fullmatch(r.share_id):
        out.append(("share-id", "shareID", f"shareID {r.share_id!r} is not a lowercase UUID"))
    fits = _fits(device, spec) if features.consumable_capacity and variant is not Variant.STABLE else []
    return out + fits + ([] if fits else _consumed(r, device, spec, shared))


def _consumed(r: Res, device: Device, spec: RequestSpec, shared: bool) -> list[Problem]:
    got = _values(r.consumed_capacity)
    want = _values(consumed_from_request(spec.capacity, device.capacity)) if shared else {}
    if got == want:
        return []
    if want:
        return [("consumed-capacity", "consumedCapacity", f"consumedCapacity is {qmap(got)}; request {spec.name} "
                 f"consumes {qmap(want)} of the shared device")]
    return [("consumed-capacity", "consumedCapacity", f"consumedCapacity is {qmap(got)}; Kubernetes records "
             "consumed capacity only for a shared device that declares capacities")]


def _fits(device: Device, spec: RequestSpec) -> list[Problem]:
    """CC-1 on the device alone: Kubernetes skips a device the request's
    capacity requests do not fit, shared or not."""
    try:
        ok = request_over_capacity_ok(spec.capacity, device.capacity, None, None)
    except UnknownCapacity as e:
        return [("capacity", "device", f"request {spec.name} asks for capacity {e}, which the device does not "
                 "declare (Kubernetes skips such a device)")]
    if ok:
        return []
    return [("capacity", "device", f"the capacity request of {spec.name} ({qmap(_values(spec.capacity))}) does not "
             f"fit the device's capacity and request policy ({qmap(_values({k: c.value for k, c in (device.capacity or {}).items()}))})")]


def _values(m: Mapping[str, Quantity] | None) -> dict[str, Fraction]:
    return {k: q.value for k, q in (m or {}).items()}


def qmap(m: Mapping[str, Fraction]) -> str:
    return "{" + ", ".join(f"{k}: {Quantity(v, 'DecimalSI')}" for k, v in sorted(m.items())) + "}"
