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
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import orjson
from pydantic import ValidationError

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

    def __init__(self, model: type[M], key: Callable[[Any], Hashable]) -> None:
        self.model = model
        self.key = key
        self.seen: dict[Hashable, Any] = {}

    def __call__(self, raw: Any) -> Any:
        try:
            k = self.key(raw)
            hit = self.seen.get(k)
        except (TypeError, ValueError, AttributeError, KeyError, orjson.JSONEncodeError):
            return self.model.model_validate(raw)  # not hashable as a key: validate as it is
        if hit is None:
            hit = self.model.model_validate(raw)
            if len(self.seen) < CACHE_LIMIT:
                self.seen[k] = hit
        return hit


def _attribute_key(raw: dict[str, Any]) -> Hashable:
    ((kind, value),) = raw.items()  # one value per attribute; anything else is not cached
    return kind, type(value), value


def _capacity_key(raw: dict[str, Any]) -> Hashable:
    if len(raw) != 1 or "value" not in raw:
        return orjson.dumps(raw)
    value = raw["value"]
    return type(value), value


_ATTRIBUTES = _Parts(DeviceAttribute, _attribute_key)
_CAPACITIES = _Parts(DeviceCapacity, _capacity_key)
_CONSUMPTIONS = _Parts(DeviceCounterConsumption, orjson.dumps)
_COUNTER_SETS = _Parts(CounterSet, orjson.dumps)


class _Unusual(Exception):
    """A shape the fast path does not handle: validate the whole object."""


_SCALARS = frozenset({str, int, bool, float})


def _attributes(raw: dict[str, Any]) -> dict[str, DeviceAttribute]:
    """A device's attributes, each value validated once per distinct
    (type, value) — the hot loop of a load, hence written out."""
    seen = _ATTRIBUTES.seen
    out = {}
    for name, attr in raw.items():
        hit = None
        if type(attr) is dict and len(attr) == 1:
            for kind, value in attr.items():
                if type(value) in _SCALARS:
                    hit = seen.get((kind, type(value), value))
        out[name] = hit if hit is not None else _ATTRIBUTES(attr)
    return out


def _consumptions(raw: list[Any]) -> list[DeviceCounterConsumption]:
    seen = _CONSUMPTIONS.seen
    out = []
    for c in raw:
        try:
            hit = seen.get(orjson.dumps(c))
        except (TypeError, orjson.JSONEncodeError):
            hit = None
        out.append(hit if hit is not None else _CONSUMPTIONS(c))
    return out


def _device(raw: Any) -> Device:
    if type(raw) is not dict:
        raise _Unusual
    parts = dict(raw)
    attributes = raw.get("attributes")
    if attributes is not None:
        parts["attributes"] = _attributes(attributes)
    capacity = raw.get("capacity")
    if capacity is not None:
        parts["capacity"] = {k: _CAPACITIES(v) for k, v in capacity.items()}
    consumes = raw.get("consumesCounters")
    if consumes is not None:
        parts["consumesCounters"] = _consumptions(consumes)
    return Device.model_validate(parts)


def _slice(data: dict[str, Any]) -> ResourceSlice:
    spec = data.get("spec")
    if type(spec) is not dict:
        raise _Unusual
    spec = dict(spec)
    devices = spec.get("devices")
    if devices is not None:
        spec["devices"] = [_device(d) for d in devices]
    shared = spec.get("sharedCounters")
    if shared is not None:
        spec["sharedCounters"] = [_COUNTER_SETS(c) for c in shared]
    return ResourceSlice.model_validate({**data, "spec": spec})


def validate(model: type[TypedObject], data: dict[str, Any]) -> TypedObject:
    """``model.model_validate(data)``, faster for ResourceSlices; raises the
    same ValidationError for invalid input."""
    if model is ResourceSlice:
        try:
            return _slice(data)
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
