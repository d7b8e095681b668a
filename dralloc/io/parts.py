"""The parts of a ResourceSlice's devices, each validated once per distinct
raw value: attribute values, capacities, counter consumptions and counter
sets (keyed by the raw value itself), and within a load (:mod:`.share`)
whole attribute maps, capacity maps and consumption lists and each slice's
list of capacity and consumption pairs (keyed by their JSON bytes: equal
bytes, equal values). Models are frozen, so parts are shared.

Anything unusual -- a part that does not validate, a key that is not a
string, a value JSON cannot carry -- raises :class:`Unusual` or the
validation error, and the builder (:mod:`.build`) validates the whole object
instead, whose error names the field."""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable
from itertools import compress
from operator import ne
from typing import Any, TypeVar

import orjson

from dralloc.io import share
from dralloc.models import CounterSet, DeviceAttribute, DeviceCapacity, DeviceCounterConsumption
from dralloc.models.base import K8sModel

M = TypeVar("M", bound=K8sModel)
CACHE_LIMIT = 200_000  # entries per cache; beyond it parts are validated without being remembered

dumps = orjson.dumps
intern = sys.intern
KEY_ERRORS = (TypeError, orjson.JSONEncodeError)   # what dumps raises for what JSON cannot carry


class Unusual(Exception):
    """A shape the fast path does not handle: validate the whole object."""


class Parts:
    """Validated parts, one per distinct raw value."""

    def __init__(self, model: type[M], key: Callable[[Any], Hashable],
                 make: Callable[[Any], Any] | None = None) -> None:
        self.model = model
        self.key = key
        self.make = make or model.model_validate
        self.seen: dict[Hashable, Any] = {}

    def __call__(self, raw: Any, seen: dict[Hashable, Any] | None = None) -> Any:
        seen = self.seen if seen is None else seen
        try:
            k = self.key(raw)
            hit = seen.get(k)
        except (TypeError, ValueError, AttributeError, KeyError, orjson.JSONEncodeError):
            return self.model.model_validate(raw)  # not hashable as a key: validate as it is
        if hit is None:
            hit = self.make(raw)
            if len(seen) < CACHE_LIMIT:
                seen[compact(k)] = hit
        return hit


def compact(key: Hashable) -> Hashable:
    """A key to keep: orjson's bytes hold a 4 KiB buffer however short they
    are, so bytes are copied to their length."""
    return bytes(memoryview(key)) if type(key) is bytes else key


def _attribute_key(raw: dict[str, Any]) -> Hashable:
    ((kind, value),) = raw.items()  # one value per attribute; anything else is not cached
    return kind, type(value), value


def _capacity_key(raw: dict[str, Any]) -> Hashable:
    if len(raw) != 1 or "value" not in raw:
        return orjson.dumps(raw)
    value = raw["value"]
    return type(value), value


_ATTRIBUTE = share.Assembler(DeviceAttribute)
_SCALARS = {"int": (int, "int_"), "bool": (bool, "bool_"), "string": (str, "string"), "version": (str, "version")}


def _make_attribute(raw: Any) -> DeviceAttribute:
    """One scalar attribute value (``{"string": "x"}``) without pydantic's
    validation when its type is exactly the field's; anything else validated."""
    if type(raw) is dict and len(raw) == 1:
        ((kind, value),) = raw.items()
        want = _SCALARS.get(kind)
        if want is not None and type(value) is want[0]:
            return _ATTRIBUTE({want[1]: value}, (want[1],))  # type: ignore[no-any-return]
    return DeviceAttribute.model_validate(raw)


ATTRIBUTES = Parts(DeviceAttribute, _attribute_key, _make_attribute)
CAPACITIES = Parts(DeviceCapacity, _capacity_key)
CONSUMPTIONS = Parts(DeviceCounterConsumption, orjson.dumps)
COUNTER_SETS = Parts(CounterSet, orjson.dumps)


def attributes(raw: dict[str, Any], tables: share.Tables) -> dict[str, DeviceAttribute]:
    """A device's attributes, each value built once per distinct (kind,
    type, value) in a load (names interned: ``sys.intern`` refuses anything
    but a string). A map new to the load is mostly an earlier map of the same
    names with a few values changed (a GPU's is its type's plus a UUID): it
    is built as a copy of that map plus the differing entries (:func:`_from_base`)."""
    names = tuple(raw)
    base = tables.bases.get(names)
    if base is not None:
        got = _from_base(raw, base, tables.attributes)
        if got is not None:
            tables.bases[names] = (raw, base[1], got)   # the latest map of these names: the likeliest to the next
            return got
    seen = tables.attributes
    out = {}
    for name, attr in raw.items():
        try:
            ((kind, value),) = attr.items()
            out[intern(name)] = seen[(kind, type(value), value)]
            continue
        except (AttributeError, ValueError, KeyError, TypeError):
            pass   # a value met for the first time, or an unusual one
        if type(name) is not str:
            raise Unusual
        out[intern(name)] = ATTRIBUTES(attr, seen)
    if set(map(len, raw.values())) == {1}:
        tables.bases[names] = (raw, types_of(raw), out)
    return out


def types_of(raw: dict[str, Any]) -> list[Any] | None:
    """The type of each entry's one value (``{"int": 1}``: int), in one C-level
    pass; for a list, its elements' types too (``[True, 2]`` equals ``[1, 2]``)."""
    try:
        values = list(map(next, map(iter, map(dict.values, raw.values()))))
    except TypeError:
        return None
    types: list[Any] = list(map(type, values))
    if list in types:
        types = [(list, *map(type, v)) if t is list else t for t, v in zip(types, values, strict=True)]
    return types


def _from_base(raw: dict[str, Any], base: tuple[dict[str, Any], Any, dict[str, Any]],
               seen: dict[Any, Any]) -> dict[str, DeviceAttribute] | None:
    """``raw`` built from the first map of its names: that map's values where
    the raw entries are equal -- and their values of the same type, so that
    1, 1.0 and true, which Python finds equal, stay apart (in lists too:
    :func:`types_of`) -- and the differing entries built; None when the types
    differ."""
    braw, btypes, built = base
    if btypes is None or types_of(raw) != btypes:
        return None
    out = dict(built)
    for name in compress(built, map(ne, raw.values(), braw.values())):
        attr = raw[name]
        try:
            ((kind, value),) = attr.items()
            out[name] = seen[(kind, type(value), value)]
        except (AttributeError, ValueError, KeyError, TypeError):
            out[name] = ATTRIBUTES(attr, seen)
    return out


def capacity_map(raw: dict[str, Any], tables: share.Tables) -> dict[str, DeviceCapacity]:
    out = {}
    for name, cap in raw.items():
        if type(name) is not str:
            raise Unusual
        out[intern(name)] = CAPACITIES(cap)
    return out


def consumption_list(raw: list[Any], tables: share.Tables) -> list[DeviceCounterConsumption]:
    return [CONSUMPTIONS(c) for c in raw]


def shared(raw: Any, tag: str, make: Callable[[Any, share.Tables], Any], tables: share.Tables,
           key: bytes | None = None) -> Any:
    """The map or list built from ``raw``, once per distinct raw value in a
    load (keyed by its JSON bytes, ``key`` when the caller has them already;
    ``null``, which also stands for NaN and infinities, is never a key)."""
    if key is None:
        try:
            key = dumps(raw)
        except KEY_ERRORS:
            raise Unusual from None
    table = tables.maps[tag]
    hit = table.get(key)
    if hit is None:
        hit = make(raw, tables)
        if b"null" not in key:
            tables.remember(table, compact(key), hit)
            tables.origin[id(hit)] = tables.slice
    return hit


def bodies(devices: list[Any], tables: share.Tables) -> list[tuple[Any, Any]]:
    """Every device's capacity map and counter consumption list, shared,
    found with one key for the whole slice: they are the partitions of the
    hardware, which another node of the type publishes again."""
    raw = []
    for d in devices:
        if type(d) is not dict:
            raise Unusual
        raw.append((d.get("capacity"), d.get("consumesCounters")))
    try:
        key = dumps(raw)
    except KEY_ERRORS:
        raise Unusual from None
    table = tables.maps["bodies"]
    hit = table.get(key)
    if hit is None:
        hit = [_body(caps, cons, tables) for caps, cons in raw]
        if all(type(b) is tuple for b in hit):   # every part remembered by its raw value
            tables.remember(table, compact(key), hit)
        hit = [b if type(b) is tuple else b[0] for b in hit]
    return hit  # type: ignore[no-any-return]


def _body(caps: Any, cons: Any, tables: share.Tables) -> tuple[Any, Any] | list[tuple[Any, Any]]:
    """One device's pair (in a list when a part holds a ``null``: not to be remembered)."""
    if (caps is not None and type(caps) is not dict) or (cons is not None and type(cons) is not list):
        raise Unusual
    pair = (None if caps is None else shared(caps, "capacity", capacity_map, tables),
            None if cons is None else shared(cons, "consumes_counters", consumption_list, tables))
    for part, value in zip((caps, cons), pair, strict=True):
        if part is not None and tables.origin.get(id(value)) is None:
            return [pair]
    return pair
