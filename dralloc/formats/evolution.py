"""The dra-evolution prototype (kubernetes-sigs/wg-device-management,
folder dra-evolution): its ResourcePool to resource.k8s.io/v1 ResourceSlices.

A ResourcePool (written ``resource.k8s.io/v1alpha2`` or ``v1alpha3``, kind
``ResourcePool``; some testdata says ``DevicePool``) has a ``driverName``, a
``nodeName``, a flat list of ``sharedCapacity`` entries ({name, capacity}) and
devices with a list of typed ``attributes`` and ``sharedCapacityConsumed``
entries. A set of devices fits when the consumed amounts stay within every
shared capacity: v1's shared counters. Shared capacities consumed together
form one counter set (:func:`dralloc.formats.counter_split.split_flat`),
named after the common prefix of its counters (``gpu-0-memory`` ...
become counter ``memory`` of set ``gpu-0``).

The prototype's classes and claims (``requirements``/``deviceSelector`` with
``device.stringAttributes[...]`` CEL) are not translated; see docs/formats.md."""

from __future__ import annotations

import os
from typing import Any

from dralloc.errors import InputError
from dralloc.formats.common import (
    Namer,
    Translation,
    as_list,
    as_mapping,
    c_identifier,
    dns_label,
    dns_subdomain,
    normalize_version,
    quantity,
)
from dralloc.formats.composite import MAX_COUNTERS, slice_docs
from dralloc.formats.composite_parse import CompositeSlice
from dralloc.formats.counter_split import check_spans, split_flat
from dralloc.quantity import Quantity

KINDS = ("ResourcePool", "DevicePool")
KNOWN_SPEC = ("nodeName", "driverName", "sharedCapacity", "devices")
TYPES = {"string": "string", "bool": "bool", "version": "version", "int": "int"}


def is_evolution_pool(doc: Any) -> bool:
    return (isinstance(doc, dict) and doc.get("kind") in KINDS and isinstance(doc.get("apiVersion"), str)
            and doc["apiVersion"].startswith("resource.k8s.io/") and isinstance(doc.get("spec"), dict))


def _named_quantities(raw: Any, where: str, obj: str, path: str) -> dict[str, Quantity]:
    out: dict[str, Quantity] = {}
    for i, e in enumerate(as_list(raw, where, obj, path)):
        e = as_mapping(e, where, obj, f"{path}[{i}]")
        name = e.get("name")
        if not isinstance(name, str) or not name:
            raise InputError("name is required", source=where, obj=obj, field=f"{path}[{i}].name")
        if name in out:
            raise InputError(f"duplicate name {name!r}", source=where, obj=obj, field=f"{path}[{i}].name")
        out[name] = quantity(e.get("capacity"), where, obj, f"{path}[{i}].capacity")
    return out


def _attributes(raw: Any, where: str, obj: str, path: str, names: Namer,
                tr: Translation) -> tuple[dict[str, Any], dict[str, Any]]:
    """(attributes, capacity): a ``quantity`` attribute becomes a capacity,
    since v1 attributes hold no quantities (CEL reads it as device.capacity)."""
    attrs: dict[str, Any] = {}
    caps: dict[str, Any] = {}
    for i, a in enumerate(as_list(raw, where, obj, path)):
        a = as_mapping(a, where, obj, f"{path}[{i}]")
        name = a.get("name")
        values = [k for k in ("string", "bool", "version", "int", "quantity") if k in a]
        if not isinstance(name, str) or len(values) != 1:
            raise InputError("an attribute needs a name and exactly one of string, bool, version, int, quantity",
                             source=where, obj=obj, field=f"{path}[{i}]")
        v1 = names(name)
        if values[0] == "quantity":
            caps[v1] = {"value": quantity(a["quantity"], where, obj, f"{path}[{i}].quantity").canonical()}
            tr.notes.append(f"{where}: {obj}: quantity attribute {name!r} is capacity {v1!r} in v1 "
                            "(v1 attributes hold no quantities)")
        elif values[0] == "version":
            attrs[v1] = {"version": normalize_version(str(a["version"]))}
        else:
            attrs[v1] = {TYPES[values[0]]: a[values[0]]}
    return attrs, caps


def _set_name(counters: list[str]) -> tuple[str, dict[str, str]] | None:
    """``gpu-0`` and the short names when all counters share a prefix that
    ends at a '-' (``gpu-0-memory`` -> ``memory``)."""
    prefix = os.path.commonprefix(counters)
    cut = prefix.rfind("-")
    if cut <= 0:
        return None
    short = {c: c[cut + 1:] for c in counters}
    if any(not v for v in short.values()) or len(set(short.values())) != len(short):
        return None
    return prefix[:cut], short


def _counter_sets(shared: dict[str, Quantity], consumers: dict[str, list[str]],
                  tr: Translation, label: str) -> tuple[list[dict[str, Any]], dict[str, tuple[str, str]], list[list[str]]]:
    parts = split_flat(list(shared), consumers, MAX_COUNTERS)
    sets: list[dict[str, Any]] = []
    where: dict[str, tuple[str, str]] = {}
    set_names = Namer(dns_label, "counter set", [], label)
    for i, part in enumerate(parts):
        named = _set_name(part)
        base, short = named if named else (f"shared-capacity-{i}", {c: c for c in part})
        name = set_names(base)
        counters = Namer(dns_label, f"counter of set {name!r}", tr.notes, label)
        sets.append({"name": name, "counters": {counters(short[c]): {"value": shared[c].canonical()} for c in part}})
        where.update((c, (name, counters(short[c]))) for c in part)
    return sets, where, parts


def _header(doc: dict[str, Any], where: str, tr: Translation) -> CompositeSlice:
    name = str((doc.get("metadata") or {}).get("name") or "")
    obj = f"{doc['kind']} {name}".strip()
    spec: dict[str, Any] = doc["spec"]
    driver = spec.get("driverName")
    if not isinstance(driver, str) or not driver:
        raise InputError("driverName is required", source=where, obj=obj, field="spec.driverName")
    if not name:
        raise InputError("name is required (it names the pool)", source=where, obj=obj, field="metadata.name")
    v1_driver = dns_subdomain(driver)
    if v1_driver != driver:
        tr.notes.append(f"{where}: {obj}: driver {driver!r} is {v1_driver!r} in v1 (v1 requires a DNS subdomain)")
    node = spec.get("nodeName")
    placement = {"nodeName": node} if isinstance(node, str) and node else {"allNodes": True}
    for k in spec:
        if k not in KNOWN_SPEC:
            tr.notes.append(f"{where}: {obj}: spec.{k} is not part of the dra-evolution ResourcePool; ignored")
    return CompositeSlice(where, obj, name, v1_driver, dns_label(name), 0, 1, placement, "spec.")


def translate_evolution_pool(doc: dict[str, Any], where: str, tr: Translation) -> list[dict[str, Any]]:
    """The v1 ResourceSlices of one dra-evolution ResourcePool: counter sets in
    ``<pool>-counters``, devices in ``<pool>``, ``<pool>-2``..."""
    h = _header(doc, where, tr)
    spec = doc["spec"]
    label = f"{where}: {h.obj}"
    shared = _named_quantities(spec.get("sharedCapacity"), where, h.obj, "spec.sharedCapacity")
    dev_names = Namer(dns_label, "device", tr.notes, label)
    attr_names = Namer(c_identifier, "attribute", tr.notes, label)
    raw_devices = as_list(spec.get("devices"), where, h.obj, "spec.devices")
    devices: list[dict[str, Any]] = []
    consumed: dict[str, dict[str, Quantity]] = {}
    for i, d in enumerate(raw_devices):
        path = f"spec.devices[{i}]"
        d = as_mapping(d, where, h.obj, path)
        name = d.get("name")
        if not isinstance(name, str) or not name or name in consumed:
            raise InputError("every device needs a unique name", source=where, obj=h.obj, field=f"{path}.name")
        use = _named_quantities(d.get("sharedCapacityConsumed"), where, h.obj, f"{path}.sharedCapacityConsumed")
        for c in use:
            if c not in shared:
                raise InputError(f"device {name!r} consumes {c!r}, which is not a shared capacity of this pool",
                                 source=where, obj=h.obj, field=f"{path}.sharedCapacityConsumed")
        consumed[name] = use
        attrs, caps = _attributes(d.get("attributes"), where, h.obj, f"{path}.attributes", attr_names, tr)
        dev: dict[str, Any] = {"name": dev_names(name)}
        if attrs:
            dev["attributes"] = attrs
        if caps:
            dev["capacity"] = caps
        devices.append(dev)
    sets, set_of, parts = _counter_sets(shared, {n: list(u) for n, u in consumed.items()}, tr, label)
    check_spans(parts, {n: list(u) for n, u in consumed.items()}, MAX_COUNTERS, source=where, obj=h.obj,
                fields={n: f"spec.devices[{i}].sharedCapacityConsumed" for i, n in enumerate(consumed)})
    for dev, use in zip(devices, consumed.values(), strict=True):
        by_set: dict[str, dict[str, Any]] = {}
        for c, q in use.items():
            cs, counter = set_of[c]
            by_set.setdefault(cs, {})[counter] = {"value": q.canonical()}
        if by_set:
            dev["consumesCounters"] = [{"counterSet": cs, "counters": v} for cs, v in by_set.items()]
    docs = slice_docs(h, dns_label(h.name), sets, devices)
    for x in docs:
        x["spec"]["pool"]["resourceSliceCount"] = len(docs)
    return docs


NOT_TRANSLATED = {
    "DeviceClass": "its requirements use the prototype's CEL (device.stringAttributes[...], device.driverName) "
                   "and the prototype's class fields",
    "ResourceClaim": "its requests use the prototype's claim schema (requests without devices/exactly)",
    "ResourceClaimTemplate": "its requests use the prototype's claim schema (requests without devices/exactly)",
    "Pod": "a Pod under resource.k8s.io is the prototype's PodSpec extension",
}


def is_evolution_other(doc: Any) -> bool:
    """A dra-evolution class, claim, template or pod: resource.k8s.io/v1alpha2
    with the prototype's shapes (a class with top-level ``requirements``, a
    claim whose requests sit directly in the spec, a Pod in that group)."""
    if not (isinstance(doc, dict) and doc.get("apiVersion") == "resource.k8s.io/v1alpha2"):
        return False
    kind, spec = doc.get("kind"), doc.get("spec")
    if kind == "DeviceClass":
        return "requirements" in doc or (isinstance(spec, dict) and "requirements" in spec)
    if kind == "Pod":
        return True
    if kind in ("ResourceClaim", "ResourceClaimTemplate") and isinstance(spec, dict):
        inner = spec.get("spec", spec) if kind == "ResourceClaimTemplate" else spec
        return isinstance(inner, dict) and "requests" in inner and "devices" not in inner
    return False


def explain_other(doc: dict[str, Any], tr: Translation) -> None:
    meta = doc.get("metadata") or {}
    ns = str(meta.get("namespace") or "")
    ref = f"{doc['kind']} {ns + '/' if ns else ''}{meta.get('name', '')}"
    tr.explanations[ref] = (f"dra-evolution {doc['kind']} is not translated: {NOT_TRANSLATED[doc['kind']]}; "
                            "only its ResourcePools are (docs/formats.md)")
