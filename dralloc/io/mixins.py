"""KEP-5234 ResourceSlice mixins: flattening ``includes`` into plain devices,
counter sets and counter consumptions.

Precedence (KEP-5234, "Proposal"): the mixins named in ``includes`` are applied
in the listed order, a later mixin overwriting an earlier one where both set
the same attribute, capacity or counter; whatever the device, counter set or
counter consumption sets itself wins over every mixin. Maps (attributes,
capacity, counters) merge key by key; any other field a device mixin carries is
taken whole from the last mixin that sets it, unless the device sets it.

Limits enforced here: at most 8 includes per device, counter set and counter
consumption; every included name must be a mixin of the right kind defined in
the same slice; mixin names are unique per kind. The per-device limit of 32
attributes and capacities applies to the flattened device and is checked by
``dralloc.validation``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from dralloc.errors import InputError
from dralloc.models import CounterSet, Device, DeviceCounterConsumption, ResourceSlice
from dralloc.models.base import K8sModel

MAX_INCLUDES = 8
MAP_FIELDS = ("attributes", "capacity", "counters")

M = TypeVar("M", bound=K8sModel)


def needs_flattening(s: ResourceSlice) -> bool:
    """True when the slice defines mixins or anything in it has ``includes``."""
    spec = s.spec
    if spec.mixins is not None:
        return True
    for cs in spec.shared_counters or ():
        if cs.includes is not None:
            return True
    for d in spec.devices or ():
        if d.includes is not None:
            return True
        for c in d.consumes_counters or ():
            if c.includes is not None:
                return True
    return False


def _index(mixins: Sequence[Any] | None, kind: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for i, m in enumerate(mixins or ()):
        if m.name in out:
            raise InputError(f"duplicate {kind} mixin name {m.name!r}",
                             field=f"spec.mixins.{kind}[{i}].name")
        out[m.name] = m
    return out


def _merge(own: M, includes: list[str] | None, table: dict[str, Any], kind: str, where: str) -> M:
    """``own`` with the mixins named in ``includes`` applied under it."""
    if includes is None:
        return own
    if len(includes) > MAX_INCLUDES:
        raise InputError(f"{len(includes)} includes, at most {MAX_INCLUDES} are allowed",
                         field=f"{where}.includes")
    merged: dict[str, Any] = {}
    for j, name in enumerate(includes):
        mixin = table.get(name)
        if mixin is None:
            known = ", ".join(sorted(table)) or "none"
            raise InputError(f"{kind} mixin {name!r} is not defined in this slice (defined: {known})",
                             field=f"{where}.includes[{j}]")
        for key in type(mixin).model_fields:
            value = getattr(mixin, key)
            if key == "name" or value is None:
                continue
            if key in MAP_FIELDS:
                merged[key] = {**merged.get(key, {}), **value}
            else:
                merged[key] = value
    update: dict[str, Any] = {"includes": None}
    for key, value in merged.items():
        if key not in type(own).model_fields:
            continue
        mine = getattr(own, key)
        if key in MAP_FIELDS:
            update[key] = {**value, **(mine or {})}
        elif mine is None:
            update[key] = value
    return own.model_copy(update=update)


def _consumption(c: DeviceCounterConsumption, table: dict[str, Any], where: str) -> DeviceCounterConsumption:
    return _merge(c, c.includes, table, "deviceCounterConsumption", where)


def _device(d: Device, i: int, tables: dict[str, dict[str, Any]]) -> Device:
    where = f"spec.devices[{i}]"
    flat = _merge(d, d.includes, tables["device"], "device", where)
    if flat.consumes_counters:
        cc = [_consumption(c, tables["deviceCounterConsumption"], f"{where}.consumesCounters[{k}]")
              for k, c in enumerate(flat.consumes_counters)]
        flat = flat.model_copy(update={"consumes_counters": cc})
    return flat


def _counter_set(cs: CounterSet, i: int, table: dict[str, Any]) -> CounterSet:
    return _merge(cs, cs.includes, table, "counterSet", f"spec.sharedCounters[{i}]")


def flatten_slice(s: ResourceSlice) -> ResourceSlice:
    """The slice with every ``includes`` resolved and ``spec.mixins`` removed.
    Raises :class:`InputError` (field path set) for a broken reference."""
    if not needs_flattening(s):
        return s
    spec = s.spec
    mixins = spec.mixins
    tables = {
        "device": _index(mixins.device if mixins else None, "device"),
        "counterSet": _index(mixins.counter_set if mixins else None, "counterSet"),
        "deviceCounterConsumption": _index(
            mixins.device_counter_consumption if mixins else None, "deviceCounterConsumption"),
    }
    update: dict[str, Any] = {"mixins": None}
    if spec.devices is not None:
        update["devices"] = [_device(d, i, tables) for i, d in enumerate(spec.devices)]
    if spec.shared_counters is not None:
        update["shared_counters"] = [_counter_set(cs, i, tables["counterSet"])
                                     for i, cs in enumerate(spec.shared_counters)]
    return s.model_copy(update={"spec": spec.model_copy(update=update)})
