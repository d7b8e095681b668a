"""Building models from raw documents at parse speed.

A cluster repeats itself: the same attribute values, capacities, counter
consumptions and counter sets appear on thousands of devices, whole maps of
them on every node of a type. So a ResourceSlice's devices are built from
parts validated once per distinct raw value (:mod:`.parts`; models are
frozen, so the parts are shared, across a whole load inside
:func:`dralloc.io.share.sharing`), and each device is assembled from its
validated parts without validating it again (:class:`dralloc.io.share.Assembler`).
The result is exactly what validating the whole object gives (same models,
equal, same fields set); anything unusual -- a part that does not validate,
a shape the caches do not know -- makes the whole object go through ordinary
validation, whose error names the field.

:func:`quiet_gc` keeps Python's cyclic garbage collector out of a load: the
objects built are long-lived and free of cycles, and the collector would
otherwise traverse every one of them again and again as the heap grows (about
80 % of the time of loading a 100-node dump)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pydantic import ValidationError

from dralloc.io import parts, share, template
from dralloc.io.parts import KEY_ERRORS, Unusual, dumps, intern
from dralloc.models import ResourceSlice, TypedObject
from dralloc.models.resource import Device

_PLAIN = {"name": "name", "attributes": "attributes", "capacity": "capacity", "consumesCounters": "consumes_counters"}
_PARTS: dict[str, tuple[str, type, Any]] = {
    "attributes": ("attributes", dict, parts.attributes), "capacity": ("capacity", dict, parts.capacity_map),
    "consumesCounters": ("consumes_counters", list, parts.consumption_list),
}
_DEVICE = share.Assembler(Device)
_ALL = ("name", "attributes", "capacity", "consumes_counters")
_PLAIN_DEVICE = _DEVICE.maker(_ALL)   # a device with all four


def _device(raw: dict[str, Any], tables: share.Tables) -> Device:
    """A device beyond name, attributes, capacity and consumption: its maps
    and lists shared, pydantic validates the rest."""
    values = dict(raw)
    for alias, (tag, kind, make) in _PARTS.items():
        value = raw.get(alias)
        if type(value) is kind:
            values[alias] = parts.shared(value, tag, make, tables)
    return Device.model_validate(values)


def _devices(devices: list[Any], tables: share.Tables) -> list[Device]:
    """A slice's devices. A device of name, attributes, capacity and counter
    consumption only (what drivers publish) is assembled from shared parts,
    and is shared itself when another slice holds the same device (same name
    and parts) -- the hot loop of a load, hence written out."""
    pairs = parts.bodies(devices, tables)
    amap, origin, first, devices_seen, here = (tables.maps["attributes"], tables.origin, tables.first, tables.devices,
                                              tables.slice)
    out = []
    for raw, (caps, cons) in zip(devices, pairs, strict=True):
        name = raw.get("name")
        if type(name) is not str or not raw.keys() <= _PLAIN.keys():
            out.append(_device(raw, tables))
            continue
        attrs = raw.get("attributes")
        if attrs is not None:
            if type(attrs) is not dict:
                raise Unusual
            try:
                key = dumps(attrs)
            except KEY_ERRORS:
                raise Unusual from None
            hit = amap.get(key)
            attrs = hit if hit is not None else parts.shared(attrs, "attributes", parts.attributes, tables, key)
        values = {"name": intern(name), "attributes": attrs, "capacity": caps, "consumes_counters": cons}
        given = _ALL if len(raw) == 4 else tuple(f for a, f in _PLAIN.items() if a in raw)
        if attrs is not None and origin.get(id(attrs)) == here:
            # attributes of this slice's own: remembered with them
            dev = _PLAIN_DEVICE(values) if given is _ALL else _DEVICE(values, given)
            built = first.get(id(attrs))
            if built is None:
                first[id(attrs)] = [dev]
            else:
                built.append(dev)
            out.append(dev)
            continue
        whole = (given, values["name"], id(attrs), id(caps), id(cons))
        hit = devices_seen.get(whole)
        if hit is None:
            hit = _first(tables, attrs, values, given) or _DEVICE(values, given)
            tables.remember(devices_seen, whole, hit)
        out.append(hit)
    return out


def _first(tables: share.Tables, attrs: Any, values: dict[str, Any], given: tuple[str, ...]) -> Device | None:
    """The device built the same way in the slice that first held these
    attributes (so that the first node of a type shares with the others)."""
    for dev in tables.first.get(id(attrs), ()):
        if (dev.name is values["name"] and dev.capacity is values["capacity"]
                and dev.consumes_counters is values["consumes_counters"] and dev.model_fields_set == set(given)):
            return dev  # type: ignore[no-any-return]
    return None


def _slice(data: dict[str, Any], tables: share.Tables) -> ResourceSlice:
    spec = data.get("spec")
    if type(spec) is not dict:
        raise Unusual
    tables.slice += 1
    spec = dict(spec)
    devices = spec.get("devices")
    how = None
    if devices is not None:
        if type(devices) is not list:
            raise Unusual
        spec["devices"], how = _from_template(spec.get("driver"), devices, tables)
    counter_sets = spec.get("sharedCounters")
    if counter_sets is not None:
        spec["sharedCounters"] = [parts.COUNTER_SETS(c) for c in counter_sets]
    out = ResourceSlice.model_validate({**data, "spec": spec})
    if how is not None:
        tables.derived[id(out)] = (out, how)
    return out


def _from_template(driver: Any, devices: list[Any], tables: share.Tables) -> tuple[list[Device], Any]:
    """A slice's devices, built from an earlier slice of the same device
    names where there is one (:mod:`.template`), else from their parts (and
    then kept as a template for later slices)."""
    tpls = tables.templates
    if tpls is None:
        tpls = tables.templates = template.Templates()
    tpl, names = tpls.find(driver, devices)
    if tpl is not None:
        got = template.derive(devices, tpl, names, tables)
        if got is not None:
            if names != tpl.names:   # built from a slice of other names: a template for its own
                tpls.add(driver, names, devices, got[0])
            return got
    out = _devices(devices, tables)
    tpls.add(driver, names, devices, out)
    return out, None


def validate(model: type[TypedObject], data: dict[str, Any]) -> TypedObject:
    """``model.model_validate(data)``, faster for ResourceSlices; raises the
    same ValidationError for invalid input. Inside :func:`share.sharing`,
    slices share what is identical between them."""
    if model is ResourceSlice:
        try:
            return _slice(data, share.current())
        except (Unusual, ValidationError, TypeError, ValueError, AttributeError):
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
