"""Building models from raw documents at parse speed.

A cluster repeats itself: the same attribute values, capacities, counter
consumptions and counter sets appear on thousands of devices. So a
ResourceSlice's devices are built from parts validated once per distinct raw
value (keyed by the raw value itself; models are frozen, so the parts are
shared), and pydantic then only assembles each device from validated parts.
The result is exactly what validating the whole object gives (same models,
equal, same fields set); anything unusual — a part that does not validate, a
shape the caches do not know — makes the whole object go through ordinary
validation, whose error names the field.

:func:`quiet_gc` keeps Python's cyclic garbage collector out of a load: the
objects built are long-lived and free of cycles, and the collector would
otherwise traverse every one of them again and again as the heap grows (about
80 % of the time of loading a 100-node dump)."""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import orjson
from pydantic import ValidationError

from dralloc.io import share
from dralloc.models import (
    CounterSet,
    DeviceAttribute,
    DeviceCapacity,
    DeviceCounterConsumption,
    ResourceSlice,
    TypedObject,
)
from dralloc.models.base import K8sModel
from dralloc.models.resource import Device

M = TypeVar("M", bound=K8sModel)
CACHE_LIMIT = 200_000  # entries per cache; beyond it parts are validated without being remembered


class _Parts:
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
                seen[_compact(k)] = hit
        return hit


def _compact(key: Hashable) -> Hashable:
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
_DEVICE = share.Assembler(Device)
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


_ATTRIBUTES = _Parts(DeviceAttribute, _attribute_key, _make_attribute)
_CAPACITIES = _Parts(DeviceCapacity, _capacity_key)
_CONSUMPTIONS = _Parts(DeviceCounterConsumption, orjson.dumps)
_COUNTER_SETS = _Parts(CounterSet, orjson.dumps)


class _Unusual(Exception):
    """A shape the fast path does not handle: validate the whole object."""


def _attributes(raw: dict[str, Any], tables: share.Tables) -> dict[str, DeviceAttribute]:
    """A device's attributes, each value built once per distinct (kind,
    type, value) in a load -- the hot loop of a load, hence written out."""
    seen = tables.attributes
    out = {}
    for name, attr in raw.items():
        if type(name) is not str:
            raise _Unusual
        try:
            ((kind, value),) = attr.items()
            hit = seen[(kind, type(value), value)]
        except (AttributeError, ValueError, KeyError, TypeError):
            hit = _ATTRIBUTES(attr, seen)
        out[_intern(name)] = hit
    return out




def _capacity_map(raw: dict[str, Any], tables: share.Tables) -> dict[str, DeviceCapacity]:
    out = {}
    for name, cap in raw.items():
        if type(name) is not str:
            raise _Unusual
        out[sys.intern(name)] = _CAPACITIES(cap)
    return out


def _consumption_list(raw: list[Any], tables: share.Tables) -> list[DeviceCounterConsumption]:
    return [_CONSUMPTIONS(c) for c in raw]


def _shared(raw: Any, tag: str, make: Callable[[Any, share.Tables], Any], tables: share.Tables) -> Any:
    """The map or list built from ``raw``, once per distinct raw value in a
    load (keyed by its JSON bytes: equal bytes, equal values; ``null``, which
    also stands for NaN and infinities, is never a key)."""
    try:
        key = _dumps(raw)
    except (TypeError, orjson.JSONEncodeError):
        raise _Unusual from None
    table = tables.maps[tag]
    hit = table.get(key)
    if hit is None:
        hit = make(raw, tables)
        if b"null" not in key:
            tables.remember(table, _compact(key), hit)
            tables.origin[id(hit)] = tables.slice
    return hit


_dumps = orjson.dumps
_intern = sys.intern
_PLAIN = {"name": "name", "attributes": "attributes", "capacity": "capacity", "consumesCounters": "consumes_counters"}
_PARTS: dict[str, tuple[str, type, Callable[[Any, share.Tables], Any]]] = {
    "attributes": ("attributes", dict, _attributes), "capacity": ("capacity", dict, _capacity_map),
    "consumesCounters": ("consumes_counters", list, _consumption_list),
}


def _device(raw: Any, tables: share.Tables, body: tuple[Any, Any]) -> Device:
    if type(raw.get("name")) is str and raw.keys() <= _PLAIN.keys():
        return _plain_device(raw, tables, body)
    parts = dict(raw)
    for alias, (tag, kind, make) in _PARTS.items():
        value = raw.get(alias)
        if type(value) is kind:
            parts[alias] = _shared(value, tag, make, tables)
    return Device.model_validate(parts)


def _plain_device(raw: dict[str, Any], tables: share.Tables, body: tuple[Any, Any]) -> Device:
    """A device of name, attributes, capacity and counter consumption only
    (what drivers publish), from shared parts; shared itself when another
    slice holds the same device (same name and parts) -- the hot loop of a
    load, hence written out. ``body``: its capacity map and counter
    consumption list, shared (:func:`_bodies`)."""
    values: dict[str, Any] = {"name": _intern(raw["name"])}
    attrs = raw.get("attributes")
    if attrs is not None:
        if type(attrs) is not dict:
            raise _Unusual
        try:
            key = _dumps(attrs)
        except (TypeError, orjson.JSONEncodeError):
            raise _Unusual from None
        hit = tables.maps["attributes"].get(key)
        attrs = values["attributes"] = hit if hit is not None else _shared(attrs, "attributes", _attributes, tables)
    elif "attributes" in raw:
        values["attributes"] = None
    caps, cons = body
    if "capacity" in raw:
        values["capacity"] = caps
    if "consumesCounters" in raw:
        values["consumes_counters"] = cons
    given = tuple(values)
    if attrs is not None and tables.origin.get(id(attrs)) == tables.slice:
        return _DEVICE(values, given)  # type: ignore[no-any-return]  # attributes of this slice's own
    key = (given, values["name"], id(attrs), id(caps), id(cons))
    hit = tables.devices.get(key)
    if hit is None:
        hit = tables.remember(tables.devices, key, _DEVICE(values, given))
    return hit  # type: ignore[no-any-return]


def _bodies(devices: list[Any], tables: share.Tables) -> list[tuple[Any, Any]]:
    """Every device's capacity map and counter consumption list, shared,
    found with one key for the whole slice: they are the partitions of the
    hardware, which another node of the type publishes again."""
    raw = []
    for d in devices:
        if type(d) is not dict:
            raise _Unusual
        raw.append((d.get("capacity"), d.get("consumesCounters")))
    try:
        key = _dumps(raw)
    except (TypeError, orjson.JSONEncodeError):
        raise _Unusual from None
    table = tables.maps["bodies"]
    hit = table.get(key)
    if hit is None:
        hit = [_body(caps, cons, tables) for caps, cons in raw]
        if all(type(b) is tuple for b in hit):   # every part remembered by its raw value
            tables.remember(table, _compact(key), hit)
        hit = [b if type(b) is tuple else b[0] for b in hit]
    return hit  # type: ignore[no-any-return]


def _body(caps: Any, cons: Any, tables: share.Tables) -> tuple[Any, Any] | list[tuple[Any, Any]]:
    """One device's pair (in a list when a part holds a ``null``: not to be remembered)."""
    if (caps is not None and type(caps) is not dict) or (cons is not None and type(cons) is not list):
        raise _Unusual
    pair = (None if caps is None else _shared(caps, "capacity", _capacity_map, tables),
            None if cons is None else _shared(cons, "consumes_counters", _consumption_list, tables))
    for part, value in zip((caps, cons), pair, strict=True):
        if part is not None and tables.origin.get(id(value)) is None:
            return [pair]
    return pair


def _slice(data: dict[str, Any], tables: share.Tables) -> ResourceSlice:
    spec = data.get("spec")
    if type(spec) is not dict:
        raise _Unusual
    tables.slice += 1
    spec = dict(spec)
    devices = spec.get("devices")
    if devices is not None:
        if type(devices) is not list:
            raise _Unusual
        bodies = _bodies(devices, tables)
        spec["devices"] = [_device(d, tables, b) for d, b in zip(devices, bodies, strict=True)]
    shared = spec.get("sharedCounters")
    if shared is not None:
        spec["sharedCounters"] = [_COUNTER_SETS(c) for c in shared]
    return ResourceSlice.model_validate({**data, "spec": spec})


def validate(model: type[TypedObject], data: dict[str, Any]) -> TypedObject:
    """``model.model_validate(data)``, faster for ResourceSlices; raises the
    same ValidationError for invalid input. Inside :func:`share.sharing`,
    slices share what is identical between them."""
    if model is ResourceSlice:
        try:
            return _slice(data, share.current())
        except (_Unusual, ValidationError, TypeError, ValueError, AttributeError):
            pass  # the whole object's validation says what is wrong, where
    return model.model_validate(data)


FREEZE_ABOVE = 50_000  # objects created by a load past which they are frozen


@contextmanager
def quiet_gc() -> Iterator[None]:
    """The cyclic garbage collector paused around a load, and restored after.
    A large load's objects are then frozen (``gc.freeze``: left out of every
    later collection); otherwise the first collection after the load would
    traverse them all once more, for nothing, since they hold no cycles."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            if gc.get_count()[0] > FREEZE_ABOVE:
                gc.freeze()
            gc.enable()
