"""A slice built from an earlier slice of the same shape.

Nodes of one type publish the same slices again: the same device names, the
same capacities and counter consumptions, attribute maps that differ in a
UUID or a PCI address. So within a load (:mod:`.share`) the first slice of
each list of device names is kept, raw and built, as a *template*, and a later
slice with the same names (or, failing that, the latest slice of its driver
with as many devices) is built from it: a device equal to the template's is
the template's model; one that differs only in attribute values, capacity,
consumption or name is the template's model with those fields replaced (the
differing attribute entries built from their values, the rest of the map the
template's; the devices of one slice whose maps change alike share one map).
Nothing is dumped or hashed for a device the template already holds: the
comparisons run in C over the whole slice.

Python finds ``1 == 1.0 == True``; JSON does not, and neither does
validation. So "equal" is checked to the type: the template records where its
devices hold a number or a boolean (a handful of leaves: a NUMA node, an RDMA
flag) and the new slice must hold a value of the same type wherever it holds
one there (a string equals only a string, a map or list only one of the same
keys or length). A device whose other fields differ (taints, node selection,
mixins, ...), or any shape this does not know, sends the whole slice back to
the builder's ordinary path (:mod:`.build`), which gives the same models.

A derived slice's changes are recorded (:class:`Derived`) so that admission
checks only what changed (:mod:`dralloc.validation.slices`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import compress
from operator import itemgetter, ne
from typing import Any

from dralloc.io import parts
from dralloc.io.parts import intern

MAX_TEMPLATES = 256          # device-name lists kept per load (each holds its raw slice)
MAX_BY_SIZE = 256            # (driver, device count) -> the latest slice, for names that differ per node
_NAME = itemgetter("name")
_PARTS: dict[str, tuple[str, Callable[[Any, Any], Any]]] = {"capacity": ("capacity", parts.capacity_map),
          "consumesCounters": ("consumes_counters", parts.consumption_list)}
_ATTRIBUTES = ("attributes",)
_set = object.__setattr__

Leaf = tuple[int, tuple[Any, ...], type]   # device, path in it, type of the number or boolean there


class Template:
    """A slice's devices as parsed and as built, and where they hold numbers."""

    __slots__ = ("built", "leaves", "names", "raw")

    def __init__(self, raw: list[dict[str, Any]], built: list[Any], names: tuple[str, ...]) -> None:
        self.raw, self.built, self.names = raw, built, names
        self.leaves: list[Leaf] | None = None   # worked out when first used

    def numbers(self) -> list[Leaf]:
        if self.leaves is None:
            self.leaves = [(i, p, t) for i, d in enumerate(self.raw) for p, t in _numbers(d)]
        return self.leaves


@dataclass(eq=False)
class Derived:
    """How a slice's devices were built from a template's: ``changes[i]`` is
    the attribute names whose values device ``i`` replaced (an empty tuple:
    the template's device itself), or None where anything else differs."""

    template: list[Any]
    changes: list[tuple[str, ...] | None]


class Templates:
    """One load's templates (part of :class:`dralloc.io.share.Tables`)."""

    def __init__(self) -> None:
        self.by_names: dict[tuple[str, ...], Template] = {}
        self.by_size: dict[tuple[Any, int], Template] = {}

    def find(self, driver: Any, devices: list[Any]) -> tuple[Template | None, tuple[str, ...] | None]:
        try:
            names = tuple(map(_NAME, devices))
            hit = self.by_names.get(names)
            if hit is None:
                hit = self.by_size.get((driver, len(devices)))
        except (TypeError, KeyError):
            return None, None    # a device that is not a mapping, a name or driver that is not hashable
        return hit, names

    def add(self, driver: Any, names: tuple[str, ...] | None, raw: list[Any], built: list[Any]) -> None:
        if names is None or not raw or not all(type(n) is str for n in names):
            return
        tpl = Template(raw, built, names)
        if len(self.by_names) < MAX_TEMPLATES:
            self.by_names.setdefault(names, tpl)
        key = (driver, len(raw))
        if key in self.by_size or len(self.by_size) < MAX_BY_SIZE:
            self.by_size[key] = tpl


def _numbers(value: Any) -> list[tuple[tuple[Any, ...], type]]:
    """Where ``value`` holds a number or a boolean, and its type (iterative:
    a parsed document nests up to 1,024 levels)."""
    out = []
    stack: list[tuple[Any, tuple[Any, ...]]] = [(value, ())]
    while stack:
        v, p = stack.pop()
        t = type(v)
        if t is dict:
            stack.extend((x, (*p, k)) for k, x in v.items())
        elif t is list:
            stack.extend((x, (*p, i)) for i, x in enumerate(v))
        elif t is not str and v is not None:
            out.append((p, t))
    return out


def _types_hold(devices: list[Any], leaves: list[Leaf]) -> bool:
    """Wherever the template holds a number or boolean and the new slice
    holds a value too, the two are of one type (where the new slice holds
    none -- a changed entry of another shape -- that entry is built from its
    own value)."""
    for i, path, t in leaves:
        v = devices[i]
        try:
            for k in path:
                v = v[k]
        except (KeyError, IndexError, TypeError):
            continue
        if type(v) is not t:
            return False
    return True


def derive(devices: list[Any], tpl: Template, names: tuple[str, ...] | None,
           tables: Any) -> tuple[list[Any], Derived | None] | None:
    """The devices of a slice built from ``tpl`` (and how, when the names are
    the template's), or None when a device differs in a way only the
    ordinary path builds."""
    raw_t, built = tpl.raw, tpl.built
    n = len(devices)
    if n != len(raw_t):
        return None
    leaves = tpl.numbers()
    if leaves and not _types_hold(devices, leaves):
        return None
    out = list(built)
    changes: list[tuple[str, ...] | None] = [()] * n
    local: dict[int, Any] = {}   # id(template map) -> (raw, built, names changed, their value types)
    for i in range(n):
        d, td = devices[i], raw_t[i]
        if type(d) is not dict or d.keys() != td.keys():
            return None
        fields = tuple(compress(d, map(ne, d.values(), map(td.__getitem__, d))))
        if not fields:
            continue   # the template's device
        md = built[i]
        values: dict[str, Any] = {}
        if fields == _ATTRIBUTES:
            got = _attributes(d["attributes"], td["attributes"], md.attributes, tables, local)
            if got is None:
                return None
            values["attributes"], changes[i] = got
        else:
            if not _fields(d, fields, td, md, tables, values, local):
                return None
            changes[i] = None
        dev = md.__class__.__new__(md.__class__)
        _set(dev, "__dict__", {**md.__dict__, **values})
        _set(dev, "__pydantic_fields_set__", md.__pydantic_fields_set__)
        _set(dev, "__pydantic_extra__", md.__pydantic_extra__)
        _set(dev, "__pydantic_private__", md.__pydantic_private__)
        out[i] = dev
    return out, (Derived(built, changes) if names == tpl.names else None)


def _fields(d: dict[str, Any], fields: tuple[str, ...], td: dict[str, Any], md: Any, tables: Any,
            values: dict[str, Any], local: dict[int, Any]) -> bool:
    """``values`` of the fields of ``d`` that differ from the template's,
    built (False: a field only the ordinary path builds)."""
    for key in fields:
        v = d[key]
        if key == "attributes":
            got = _attributes(v, td[key], md.attributes, tables, local)
            if got is None:
                return False
            values["attributes"] = got[0]
        elif key == "name":
            if type(v) is not str:
                return False
            values["name"] = intern(v)
        elif key in _PARTS and (v is None or type(v) is (dict if key == "capacity" else list)):
            tag, make = _PARTS[key]
            values[tag] = None if v is None else parts.shared(v, tag, make, tables)
        else:
            return False
    return True


def _attributes(raw: Any, traw: Any, built: Any, tables: Any, local: dict[int, Any]) -> tuple[Any, Any] | None:
    """The attribute map ``raw``: the template's map ``built`` (of ``traw``)
    with the differing entries built from their values, and the names
    changed (None when a changed value is not one scalar: admission then
    checks the whole device). The devices of a slice whose maps were one map
    in the template and are equal again share one map (``local``); equality
    is trusted only where every changed value is a string, which nothing
    else equals."""
    if type(raw) is not dict or type(built) is not dict:
        return None
    hit = local.get(id(built))
    if hit is not None and (raw is hit[0] or raw == hit[0]) and _value_types(raw, hit[2]) == hit[3]:
        return hit[1], hit[2]
    if raw.keys() != traw.keys() or tuple(raw) != tuple(traw):
        return None
    names = tuple(compress(raw, map(ne, raw.values(), traw.values())))
    seen = tables.attributes
    out = dict(built)
    for name in names:
        attr = raw[name]
        if type(attr) is not dict or len(attr) != 1:
            return None
        ((kind, value),) = attr.items()
        t = type(value)
        if t is list or t is dict:
            out[name] = parts.ATTRIBUTES(attr, seen)
            continue
        try:
            out[name] = seen[(kind, t, value)]
        except KeyError:
            out[name] = parts.ATTRIBUTES(attr, seen)
    types = _value_types(raw, names)
    changed = names if types is not None and list not in types and dict not in types else None
    if changed is not None:
        local[id(built)] = (raw, out, changed, types)
    return out, changed


def _value_types(raw: dict[str, Any], names: tuple[str, ...] | None) -> tuple[type, ...] | None:
    """The types of the one value of each entry ``names`` of ``raw`` (two
    equal maps hold the same JSON when these agree: the other entries are
    the template's, checked to the type)."""
    if names is None:
        return None
    return tuple(type(next(iter(raw[name].values()))) for name in names)
