"""k8srm prototype (kubernetes-sigs/wg-device-management, devmgmtproto.k8s.io/v1alpha1)
DevicePools to v1 ResourceSlices.

* Pool and device attributes (a list of ``{name, stringValue|intValue|
  quantityValue|semVerValue}``; the device's value wins) become v1 attributes
  under the shared domain ``devmgmtproto.k8s.io``, so that one name means the
  same thing for every driver, as it did in the prototype (matchAttributes
  across a GPU and a NIC). v1 has no quantity attribute: a quantityValue
  becomes a string holding the quantity as written.
* ``sharedResources`` become a counter set ``shared-resources`` in a slice of
  its own; ``sharedResourcesConsumed`` become the device's counter consumption.
* ``claimResourcesProvided`` become device capacity.
* No ``nodeName`` (network-attached) becomes ``allNodes: true``."""

from __future__ import annotations

import re
from typing import Any

from dralloc.errors import InputError
from dralloc.formats.common import (
    Translation,
    as_list,
    as_mapping,
    c_identifier,
    dns_label,
    dns_subdomain,
    normalize_version,
    quantity,
)

API_GROUP = "devmgmtproto.k8s.io"
DOMAIN = API_GROUP  # attribute and capacity domain of translated devices
COUNTER_SET = "shared-resources"
MAX_DEVICES_WITH_COUNTERS = 64


def is_prototype(doc: Any) -> bool:
    return isinstance(doc, dict) and str(doc.get("apiVersion", "")).startswith(API_GROUP + "/")


def v1_driver(name: str) -> str:
    return dns_subdomain(name)


def attr_name(name: str) -> str:
    return f"{DOMAIN}/{c_identifier(name)}"


def _attribute(a: Any, where: str, obj: str, path: str, tr: Translation) -> tuple[str, dict[str, Any]]:
    a = as_mapping(a, where, obj, path)
    name = a.get("name")
    if not isinstance(name, str) or not name:
        raise InputError("attribute name is required", source=where, obj=obj, field=f"{path}.name")
    kinds = [k for k in ("stringValue", "intValue", "quantityValue", "semVerValue") if a.get(k) is not None]
    if len(kinds) != 1:
        raise InputError(f"attribute {name!r} needs exactly one of stringValue, intValue, quantityValue, "
                         f"semVerValue (found {', '.join(kinds) or 'none'})", source=where, obj=obj, field=path)
    v = a[kinds[0]]
    if kinds[0] == "intValue":
        if not isinstance(v, int) or isinstance(v, bool):
            raise InputError(f"intValue must be an integer, got {v!r}", source=where, obj=obj,
                             field=f"{path}.intValue")
        return attr_name(name), {"int": v}
    if kinds[0] == "semVerValue":
        return attr_name(name), {"version": normalize_version(str(v))}
    if kinds[0] == "quantityValue":
        quantity(v, where, obj, f"{path}.quantityValue")  # must still be a valid quantity
        tr.notes.append(f"{where}: {obj}: attribute {name!r} is a quantity; v1 has no quantity "
                        f"attributes, it becomes the string {str(v)!r}")
    return attr_name(name), {"string": str(v)}


def _resources(value: Any, where: str, obj: str, path: str) -> dict[str, Any]:
    """``{name: qty}`` or ``[{name, capacity}]`` (both forms occur in the testdata)."""
    if isinstance(value, list):
        out = {}
        for i, e in enumerate(value):
            e = as_mapping(e, where, obj, f"{path}[{i}]")
            if not isinstance(e.get("name"), str):
                raise InputError("name is required", source=where, obj=obj, field=f"{path}[{i}].name")
            out[e["name"]] = quantity(e.get("capacity"), where, obj, f"{path}[{i}].capacity")
        return out
    return {str(k): quantity(v, where, obj, f"{path}[{k}]")
            for k, v in as_mapping(value, where, obj, path).items()}


def _digits(name: str) -> str:
    return re.sub(r"\d+", lambda m: str(int(m.group())), name)


def _resolve(name: str, shared: dict[str, Any], where: str, obj: str, path: str, tr: Translation) -> str:
    """The shared resource a consumption names. A name that differs only in
    leading zeros of a number ("memory-slices-00" for "memory-slices-0", as in
    the prototype's DGX A100 data) is read as that resource, with a note."""
    if name in shared:
        return name
    alike = [s for s in shared if _digits(s) == _digits(name)]
    if len(alike) == 1:
        tr.notes.append(f"{where}: {obj}: {path} names {name!r}, which the pool does not share; read as "
                        f"{alike[0]!r} (same name up to leading zeros)")
        return alike[0]
    raise InputError(f"consumes {name!r}, which is not among the pool's sharedResources "
                     f"({', '.join(shared) or 'none'})", source=where, obj=obj, field=path)


def _device(d: Any, i: int, pool_attrs: dict[str, Any], shared: dict[str, Any], counters: dict[str, str],
            where: str, obj: str, tr: Translation) -> dict[str, Any]:
    path = f"spec.devices[{i}]"
    d = as_mapping(d, where, obj, path)
    name = d.get("name")
    if not isinstance(name, str) or not name:
        raise InputError("device name is required", source=where, obj=obj, field=f"{path}.name")
    attrs = dict(pool_attrs)
    for j, a in enumerate(as_list(d.get("attributes"), where, obj, f"{path}.attributes")):
        k, v = _attribute(a, where, obj, f"{path}.attributes[{j}]", tr)
        attrs[k] = v
    out: dict[str, Any] = {"name": dns_label(name)}
    if out["name"] != name:
        tr.notes.append(f"{where}: {obj}: device {name!r} is {out['name']!r} in v1 (v1 requires a DNS label)")
    if attrs:
        out["attributes"] = attrs
    provided = _resources(d.get("claimResourcesProvided"), where, obj, f"{path}.claimResourcesProvided")
    if provided:
        out["capacity"] = {attr_name(k): {"value": q.canonical()} for k, q in provided.items()}
    consumed = _resources(d.get("sharedResourcesConsumed"), where, obj, f"{path}.sharedResourcesConsumed")
    if consumed:
        used: dict[str, str] = {}
        for k, q in consumed.items():
            res = _resolve(k, shared, where, obj, f"{path}.sharedResourcesConsumed[{k}]", tr)
            used[counters[res]] = q.canonical()
        out["consumesCounters"] = [{"counterSet": COUNTER_SET,
                                    "counters": {k: {"value": v} for k, v in used.items()}}]
    return out


def translate_pool(doc: dict[str, Any], where: str, tr: Translation) -> list[dict[str, Any]]:
    """The v1 ResourceSlice documents for one DevicePool."""
    name = str((doc.get("metadata") or {}).get("name") or "")
    obj = f"DevicePool {name}".strip()
    spec = as_mapping(doc.get("spec"), where, obj, "spec")
    if not name:
        raise InputError("name is required", source=where, obj=obj, field="metadata.name")
    driver = spec.get("driver")
    if not isinstance(driver, str) or not driver:
        raise InputError("driver is required", source=where, obj=obj, field="spec.driver")
    if v1_driver(driver) != driver:
        tr.notes.append(f"{where}: {obj}: driver {driver!r} is {v1_driver(driver)!r} in v1 "
                        "(v1 requires a DNS subdomain)")
    pool_attrs = dict(_attribute(a, where, obj, f"spec.attributes[{i}]", tr)
                      for i, a in enumerate(as_list(spec.get("attributes"), where, obj, "spec.attributes")))
    shared = _resources(spec.get("sharedResources"), where, obj, "spec.sharedResources")
    counters = {k: dns_label(k) for k in shared}
    devices = [_device(d, i, pool_attrs, shared, counters, where, obj, tr)
               for i, d in enumerate(as_list(spec.get("devices"), where, obj, "spec.devices"))]
    head: dict[str, Any] = {"driver": v1_driver(driver), "pool": {"name": dns_subdomain(name), "generation": 0}}
    node = spec.get("nodeName")
    head.update({"nodeName": node} if isinstance(node, str) and node else {"allNodes": True})
    docs = []
    if shared:
        docs.append({"sharedCounters": [{"name": COUNTER_SET, "counters": {
            counters[k]: {"value": q.canonical()} for k, q in shared.items()}}]})
    size = MAX_DEVICES_WITH_COUNTERS if shared else 128
    for k in range(0, max(len(devices), 1), size):
        docs.append({"devices": devices[k:k + size]})
    out = []
    for k, body in enumerate(docs):
        suffix = "-counters" if "sharedCounters" in body else (f"-{k}" if k > int(bool(shared)) else "")
        spec_out = {**head, **body, "pool": {**head["pool"], "resourceSliceCount": len(docs)}}
        out.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                    "metadata": {"name": dns_subdomain(name) + suffix}, "spec": spec_out})
    return out
