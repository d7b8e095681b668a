"""Reading the first KEP-4815 draft (October 2024): ResourceSlices, or bare
spec fragments, whose devices are ``composite:`` with ``includes`` of
``deviceMixins`` and ``consumesCapacityFrom`` a source device.

This module only reads and checks: mixins are applied (in ``includes`` order,
the device's own fields last), references are resolved and the
``consumesCapacityFrom`` forest is built with networkx; cycles, dangling
references and references into another slice are errors naming the object
and field. :mod:`dralloc.formats.composite` turns the result into v1."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from dralloc.errors import InputError
from dralloc.formats.common import as_list, as_mapping, quantity, ref_name
from dralloc.quantity import Quantity

Attrs = dict[str, dict[str, Any]]


class MissingReference(InputError):
    """An ``includes`` or ``consumesCapacityFrom`` name not in the slice."""

    def __init__(self, message: str, *, kind: str, name: str, source: str, obj: str, field: str) -> None:
        super().__init__(message, source=source, obj=obj, field=field)
        self.kind, self.name = kind, name


@dataclass
class Mixin:
    name: str
    attributes: Attrs
    capacity: dict[str, Quantity]


@dataclass
class CompositeDevice:
    name: str
    path: str                       # where it is, e.g. spec.devices[3]
    includes: list[str]
    source: str | None              # the device it consumes capacity from
    attributes: Attrs = field(default_factory=dict)   # after mixins
    capacity: dict[str, Quantity] = field(default_factory=dict)


@dataclass
class CompositeSlice:
    where: str                      # file#document
    obj: str                        # "ResourceSlice name" or "fragment"
    name: str
    driver: str
    pool: str
    generation: int
    slice_count: int
    placement: dict[str, Any]       # nodeName / nodeSelector / allNodes as written
    prefix: str                     # "spec." for slices, "" for fragments
    mixins: dict[str, Mixin] = field(default_factory=dict)
    devices: list[CompositeDevice] = field(default_factory=list)
    graph: Any = None               # nx.DiGraph: source -> consumer
    by_name: dict[str, CompositeDevice] = field(default_factory=dict)


def _has_composite(spec: dict[str, Any]) -> bool:
    if spec.get("deviceMixins") is not None:
        return True
    devices = spec.get("devices")
    return isinstance(devices, list) and any(isinstance(d, dict) and "composite" in d for d in devices)


def is_composite_slice(doc: Any) -> bool:
    return (isinstance(doc, dict) and doc.get("kind") == "ResourceSlice"
            and isinstance(doc.get("spec"), dict) and _has_composite(doc["spec"]))


def is_fragment(doc: Any) -> bool:
    """A bare KEP spec fragment: top-level ``deviceMixins``/``devices``, no kind."""
    return (isinstance(doc, dict) and "kind" not in doc and "apiVersion" not in doc
            and ("deviceMixins" in doc or "devices" in doc) and _has_composite(doc))


def _props(body: dict[str, Any], where: str, obj: str, path: str) -> tuple[Attrs, dict[str, Quantity]]:
    attrs: Attrs = {}
    for k, v in as_mapping(body.get("attributes"), where, obj, f"{path}.attributes").items():
        attrs[str(k)] = dict(as_mapping(v, where, obj, f"{path}.attributes[{k}]"))
    caps = {str(k): quantity(v, where, obj, f"{path}.capacity[{k}]")
            for k, v in as_mapping(body.get("capacity"), where, obj, f"{path}.capacity").items()}
    return attrs, caps


def _mixins(s: CompositeSlice, raw: list[Any]) -> None:
    for i, m in enumerate(raw):
        path = f"{s.prefix}deviceMixins[{i}]"
        m = as_mapping(m, s.where, s.obj, path)
        name = ref_name(m, s.where, s.obj, f"{path}.name")
        if name in s.mixins:
            raise InputError(f"duplicate mixin name {name!r}", source=s.where, obj=s.obj, field=f"{path}.name")
        body = m.get("composite")
        if not isinstance(body, dict):
            raise InputError("a device mixin needs exactly one of its type fields; only 'composite' "
                             "exists in this design", source=s.where, obj=s.obj, field=f"{path}.composite")
        attrs, caps = _props(body, s.where, s.obj, f"{path}.composite")
        s.mixins[name] = Mixin(name, attrs, caps)


def _device(s: CompositeSlice, i: int, d: Any) -> CompositeDevice:
    path = f"{s.prefix}devices[{i}]"
    d = as_mapping(d, s.where, s.obj, path)
    name = ref_name(d, s.where, s.obj, f"{path}.name")
    kinds = [k for k in ("composite", "basic") if d.get(k) is not None]
    if len(kinds) != 1:
        raise InputError(f"device {name!r} needs exactly one of composite, basic (found "
                         f"{', '.join(kinds) or 'none'})", source=s.where, obj=s.obj, field=path)
    body = as_mapping(d[kinds[0]], s.where, s.obj, f"{path}.{kinds[0]}")
    bpath = f"{path}.{kinds[0]}"
    includes = [ref_name(r, s.where, s.obj, f"{bpath}.includes[{j}]")
                for j, r in enumerate(as_list(body.get("includes"), s.where, s.obj, f"{bpath}.includes"))]
    sources = [ref_name(r, s.where, s.obj, f"{bpath}.consumesCapacityFrom[{j}]")
               for j, r in enumerate(as_list(body.get("consumesCapacityFrom"), s.where, s.obj,
                                             f"{bpath}.consumesCapacityFrom"))]
    if len(sources) > 1:
        raise InputError(f"device {name!r} lists {len(sources)} sources; only a single entry is allowed",
                         source=s.where, obj=s.obj, field=f"{bpath}.consumesCapacityFrom")
    source = sources[0] if sources and sources[0] != name else None  # naming itself ends the chain
    dev = CompositeDevice(name, bpath, includes, source)
    own_attrs, own_caps = _props(body, s.where, s.obj, bpath)
    for j, m in enumerate(includes):
        mixin = s.mixins.get(m)
        if mixin is None:
            raise MissingReference(f"device {name!r} includes mixin {m!r}, which is not defined in this "
                                   "slice", kind="mixin", name=m, source=s.where, obj=s.obj,
                                   field=f"{bpath}.includes[{j}]")
        dev.attributes.update(mixin.attributes)
        dev.capacity.update(mixin.capacity)
    dev.attributes.update(own_attrs)
    dev.capacity.update(own_caps)
    return dev


def _graph(s: CompositeSlice) -> None:
    g = nx.DiGraph()
    names = {d.name for d in s.devices}
    for d in s.devices:
        g.add_node(d.name)
    for d in s.devices:
        if d.source is None:
            continue
        if d.source not in names:
            raise MissingReference(f"device {d.name!r} consumes capacity from {d.source!r}, which is not "
                                   "a device of this slice", kind="device", name=d.source, source=s.where,
                                   obj=s.obj, field=f"{d.path}.consumesCapacityFrom[0]")
        g.add_edge(d.source, d.name)
    try:
        cycle = nx.find_cycle(g)
    except nx.NetworkXNoCycle:
        s.graph = g
        return
    members = {e[0] for e in cycle}
    first = next(d for d in s.devices if d.name in members)
    chain, cur = [first.name], first
    while cur.source is not None and cur.source != first.name:
        cur = s.by_name[cur.source]
        chain.append(cur.name)
    raise InputError(f"consumesCapacityFrom forms a cycle: {' -> '.join([*chain, first.name])} (each arrow: "
                     "consumes capacity from; every chain must end at a device without a source)",
                     source=s.where, obj=s.obj, field=f"{first.path}.consumesCapacityFrom")


def _header(doc: dict[str, Any], where: str, defaults: dict[str, str]) -> CompositeSlice:
    if "kind" not in doc:
        pname, node = defaults["pool"], defaults["node"]
        return CompositeSlice(where, "fragment", pname, defaults["driver"], pname, 0, 1,
                              {"nodeName": node}, "")
    name = str((doc.get("metadata") or {}).get("name") or "")
    obj = f"ResourceSlice {name}".strip()
    spec: dict[str, Any] = doc["spec"]
    pool = as_mapping(spec.get("pool"), where, obj, "spec.pool")
    driver = spec.get("driver")
    if not isinstance(driver, str) or not driver:
        raise InputError("driver is required", source=where, obj=obj, field="spec.driver")
    if not isinstance(pool.get("name"), str) or not pool["name"]:
        raise InputError("pool name is required", source=where, obj=obj, field="spec.pool.name")
    placement = {k: spec[k] for k in ("nodeName", "nodeSelector", "allNodes") if spec.get(k) is not None}
    return CompositeSlice(where, obj, name or pool["name"], driver, pool["name"],
                          int(pool.get("generation") or 0), int(pool.get("resourceSliceCount") or 1),
                          placement, "spec.")


slice_header = _header  # shared with the 2025-03 capacity-pool reader


def parse_composite(doc: dict[str, Any], where: str, defaults: dict[str, str]) -> CompositeSlice:
    """Read one composite ResourceSlice or fragment (``defaults`` gives driver,
    pool and node for fragments)."""
    s = _header(doc, where, defaults)
    spec = doc if s.prefix == "" else doc["spec"]
    _mixins(s, as_list(spec.get("deviceMixins"), where, s.obj, f"{s.prefix}deviceMixins"))
    seen: set[str] = set()
    for i, raw in enumerate(as_list(spec.get("devices"), where, s.obj, f"{s.prefix}devices")):
        dev = _device(s, i, raw)
        if dev.name in seen:
            raise InputError(f"duplicate device name {dev.name!r}", source=where, obj=s.obj,
                             field=f"{s.prefix}devices[{i}].name")
        seen.add(dev.name)
        s.devices.append(dev)
        s.by_name[dev.name] = dev
    _graph(s)
    return s


def defined_names(doc: dict[str, Any]) -> dict[str, set[str]]:
    """The mixin and device names a composite document defines (read loosely,
    for error messages about references into another slice)."""
    spec = doc.get("spec", doc) if isinstance(doc.get("spec"), dict) else doc
    out: dict[str, set[str]] = {"mixin": set(), "device": set()}
    for kind, key in (("mixin", "deviceMixins"), ("device", "devices")):
        for e in spec.get(key) or []:
            if isinstance(e, dict) and isinstance(e.get("name"), str):
                out[kind].add(e["name"])
    return out


def cross_slice_hint(err: MissingReference, others: list[tuple[str, dict[str, set[str]]]]) -> InputError:
    """Sharpen "not defined in this slice" when the name exists in another
    slice of the input: the design forbids reaching into other slices."""
    for label, names in others:
        if err.name in names[err.kind]:
            return InputError(f"{err.message}; {err.name!r} is defined in {label}, and a {err.kind} of "
                              "another slice cannot be referenced", source=err.source, obj=err.obj,
                              field=err.field)
    return err
