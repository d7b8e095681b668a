"""Older resource.k8s.io API versions, converted to the v1 layout.

What differs from v1 (checked against the kubernetes/api types of each version):

* **v1alpha3** (Kubernetes 1.31/1.32) and **v1beta1** (1.32-1.34): a device is
  ``{name, basic: {...}}``; v1 drops the ``basic`` wrapper. In v1alpha3 a
  capacity is a bare quantity, in v1beta1 it is ``{value: q}`` as in v1. A
  request carries ``deviceClassName``, ``selectors``, ``allocationMode``,
  ``count``, ``adminAccess``, ``tolerations`` and ``capacity`` itself; v1
  moves them under ``exactly``.
  v1alpha3 (1.31) claims may carry an empty ``controller`` and device classes
  a ``suitableNodes`` selector; neither exists in v1.
* **v1beta2** (1.33+) has the v1 layout already.

Converters work on the raw mapping and only reshape what has the expected
type; anything else is left for the model validation to report."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from dralloc.errors import InputError
from dralloc.io.registry import RESOURCE_GROUP, register_converter

V1 = f"{RESOURCE_GROUP}/v1"
# Request fields that v1 keeps under ``exactly``.
EXACT_FIELDS = ("deviceClassName", "selectors", "allocationMode", "count", "adminAccess",
                "tolerations", "capacity")

Obj = dict[str, Any]


def _as_dict(v: Any) -> Obj | None:
    return v if isinstance(v, dict) else None


def _as_list(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _capacity_values(basic: Obj) -> None:
    """v1alpha3 capacities are bare quantities; v1 wraps them as ``{value: q}``."""
    cap = _as_dict(basic.get("capacity"))
    if cap is None:
        return
    for key, val in list(cap.items()):
        if isinstance(val, str | int | float) and not isinstance(val, bool):
            cap[key] = {"value": val}


def _unwrap_device(dev: Any, i: int) -> Any:
    d = _as_dict(dev)
    if d is None:
        return dev
    extra = sorted(set(d) - {"name", "basic"})
    if extra:
        raise InputError(f"unknown device type {extra[0]!r}: only 'basic' devices exist in this "
                         "API version", field=f"spec.devices[{i}].{extra[0]}")
    basic = d.get("basic")
    if basic is None:
        return {"name": d.get("name")} if "name" in d else {}
    if not isinstance(basic, dict):
        raise InputError(f"expected a mapping, got {type(basic).__name__}",
                         field=f"spec.devices[{i}].basic")
    out = {"name": d["name"]} if "name" in d else {}
    out.update(basic)
    _capacity_values(out)
    return out


def _slice(obj: Obj) -> Obj:
    spec = _as_dict(obj.get("spec"))
    if spec is not None and isinstance(spec.get("devices"), list):
        spec["devices"] = [_unwrap_device(d, i) for i, d in enumerate(spec["devices"])]
    return obj


def _request(req: Any) -> Any:
    """As Kubernetes converts: ``firstAvailable`` is kept, and ``exactly`` is
    made whenever any of the request's own fields is set (both at once is
    invalid, which validation reports)."""
    r = _as_dict(req)
    if r is None:
        return req
    exact = {k: r.pop(k) for k in EXACT_FIELDS if k in r}
    if exact:
        r["exactly"] = exact
    return r


def _device_claim(spec: Obj | None, where: str) -> None:
    if spec is None:
        return
    if spec.get("controller") in ("", None):
        spec.pop("controller", None)
    else:
        raise InputError("claims with a controller (classic DRA, Kubernetes 1.31) are not supported",
                         field=f"{where}.controller")
    devices = _as_dict(spec.get("devices"))
    if devices is not None and isinstance(devices.get("requests"), list):
        devices["requests"] = [_request(r) for r in devices["requests"]]


def _claim(obj: Obj) -> Obj:
    _device_claim(_as_dict(obj.get("spec")), "spec")
    return obj


def _template(obj: Obj) -> Obj:
    outer = _as_dict(obj.get("spec"))
    if outer is not None:
        _device_claim(_as_dict(outer.get("spec")), "spec.spec")
    return obj


def _device_class(obj: Obj) -> Obj:
    spec = _as_dict(obj.get("spec"))
    if spec is not None and spec.get("suitableNodes") is not None:
        raise InputError("suitableNodes (Kubernetes 1.31 only) has no equivalent in v1; "
                         "remove it or express it in the slices' node selection",
                         field="spec.suitableNodes")
    if spec is not None:
        spec.pop("suitableNodes", None)
    return obj


def _same(obj: Obj) -> Obj:
    return obj


def _to_v1(reshape: Callable[[Obj], Obj]) -> Callable[[Obj], Obj]:
    def convert(data: Obj) -> Obj:
        obj = reshape(copy.deepcopy(data))
        obj["apiVersion"] = V1
        return obj
    return convert


_OLD_LAYOUT = {"ResourceSlice": _slice, "ResourceClaim": _claim,
               "ResourceClaimTemplate": _template, "DeviceClass": _device_class}

CONVERTED_VERSIONS = ("v1alpha3", "v1beta1", "v1beta2")


def register_all() -> None:
    """Register the converters of every older version this module knows."""
    for kind, fn in _OLD_LAYOUT.items():
        register_converter(f"{RESOURCE_GROUP}/v1alpha3", kind, _to_v1(fn))
        register_converter(f"{RESOURCE_GROUP}/v1beta1", kind, _to_v1(fn))
        register_converter(f"{RESOURCE_GROUP}/v1beta2", kind, _to_v1(_same))


register_all()
