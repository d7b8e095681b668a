"""What the API server enforces for the parts of a ResourceSlice's devices
(attributes, capacities, counter consumptions), each checked once.

A loaded cluster shares its parts between devices (:mod:`dralloc.io.share`:
attribute values, capacities and counter consumptions, whole attribute and
capacity maps and consumption lists), so a part found clean is remembered by
identity and not checked again; a bad one is reported on every device that
uses it, under that device's path."""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from dralloc.models import DeviceAttribute, DeviceCapacity
from dralloc.models.resource import DeviceCounterConsumption
from dralloc.validation import formats as f
from dralloc.validation.capacity import capacity
from dralloc.validation.finding import Collector

MAX_ATTRIBUTE_STRING = 64
MAX_CONSUMPTIONS_PER_DEVICE = 2
MAX_COUNTERS_PER_CONSUMPTION = 32


def _attribute(c: Collector, path: str, attr: DeviceAttribute) -> int:
    """Check one attribute; returns how many values it holds (list items counted)."""
    scalars = [v for v in (attr.int_, attr.bool_, attr.string, attr.version) if v is not None]
    lists = [v for v in (attr.ints, attr.bools, attr.strings, attr.versions) if v is not None]
    if len(scalars) + len(lists) != 1:
        kinds = attr.set_fields()
        c.add(path, "device.attribute.one-value", "exactly one of int, bool, string, version (or "
              "their list forms) must be set" + (f"; found {', '.join(kinds)}" if kinds else ""))
    if scalars and not lists:
        _attribute_value(c, path, attr, scalars[0])
        return 1
    for name in ("ints", "bools", "strings", "versions"):
        if getattr(attr, name) == []:
            c.add(f"{path}.{name}", "device.attribute.one-value", f"{name} must not be empty if set")
    for v in [*scalars, *(x for lst in lists for x in lst)]:
        _attribute_value(c, path, attr, v)
    return sum(len(x) for x in lists) or 1


def _attribute_value(c: Collector, path: str, attr: DeviceAttribute, v: object) -> None:
    if isinstance(v, bool):
        return
    if isinstance(v, int):
        f.int64(c, path, v, "int attribute")
    elif isinstance(v, str) and (v == attr.version or (attr.versions and v in attr.versions)):
        if _bytes(v) > MAX_ATTRIBUTE_STRING or not f.SEMVER.match(v):
            c.add(path, "device.attribute.version", f"version {v!r} must be a semantic version "
                  f"(MAJOR.MINOR.PATCH) of at most {MAX_ATTRIBUTE_STRING} bytes")
    elif isinstance(v, str) and _bytes(v) > MAX_ATTRIBUTE_STRING:
        c.add(path, "device.attribute.string", f"string values are at most {MAX_ATTRIBUTE_STRING} bytes "
              "(UTF-8; Go's len, for scalars and, from 1.37, each list element alike)")


def _bytes(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


class Clean:
    """Parts found clean, by identity: a loaded cluster shares its attribute
    values, capacities and counter consumptions between devices, and whole
    attribute and capacity maps and consumption lists (:mod:`dralloc.io.share`),
    so each is checked once. The part itself is held, so its id cannot be
    reused; a full table starts over (parts come slice by slice, so the
    recent ones are what repeats)."""

    def __init__(self, limit: int = 1 << 16) -> None:
        self.seen: dict[int, tuple[object, Any]] = {}
        self.limit = limit

    def get(self, part: object) -> Any:
        hit = self.seen.get(id(part))
        return hit[1] if hit is not None and hit[0] is part else None

    def put(self, part: object, value: Any) -> None:
        if len(self.seen) >= self.limit:
            self.seen.clear()
        self.seen[id(part)] = (part, value)


_CLEAN_CONSUMPTIONS = Clean()
_CLEAN_CAPACITIES = {False: Clean(), True: Clean()}   # by allowMultipleAllocations
CLEAN_MAPS = Clean()   # attribute maps (value: values held), consumption lists
CLEAN_CAPACITY_MAPS = {False: Clean(), True: Clean()}


def consumptions(c: Collector, path: str, cons: list[DeviceCounterConsumption]) -> None:
    if CLEAN_MAPS.get(cons) is not None:
        return
    before = len(c.findings)
    _consumption_list(c, path, cons)
    if len(c.findings) == before:
        CLEAN_MAPS.put(cons, 1)


def _consumption_list(c: Collector, path: str, cons: list[DeviceCounterConsumption]) -> None:
    if c.limit(path, "device.consumes-counters.max", "counter consumptions", len(cons), MAX_CONSUMPTIONS_PER_DEVICE):
        return
    for k, cc in enumerate(cons):
        if k and cc.counter_set in (x.counter_set for x in cons[:k]):
            c.add(f"{path}[{k}].counterSet", "device.consumes-counters.unique",
                  f"counter set {cc.counter_set!r} is consumed twice by this device")
        if _CLEAN_CONSUMPTIONS.get(cc) is None:
            before = len(c.findings)
            _consumption(c, f"{path}[{k}]", cc)
            if len(c.findings) == before:
                _CLEAN_CONSUMPTIONS.put(cc, 1)


def _consumption(c: Collector, cpath: str, cc: DeviceCounterConsumption) -> None:
    f.dns_label(c, f"{cpath}.counterSet", cc.counter_set, "counter set name")
    counters = cc.counters or {}
    if not counters:
        c.add(f"{cpath}.counters", "device.consumes-counters.counters", "at least one counter is required")
    elif not c.limit(f"{cpath}.counters", "device.consumes-counters.counters", "counters", len(counters),
                     MAX_COUNTERS_PER_CONSUMPTION):
        for name in counters:
            if not f.is_dns_label(name):
                f.dns_label(c, f"{cpath}.counters[{name}]", name, "counter name")


def attributes(c: Collector, path: str, attrs: dict[str, DeviceAttribute]) -> int:
    """Check a device's attributes; returns how many values they hold."""
    known = known_map(attrs)
    if known is not None:
        return known
    before = len(c.findings)
    values = _attribute_map(c, path, attrs)
    if len(c.findings) == before:
        CLEAN_MAPS.put(attrs, values)
    return values


# Attribute values found clean: id(value) -> (value, values it holds). The
# value is held, so a live object of that id is that value. Names found clean
# beside them (a value's checks do not depend on its name).
_CLEAN_VALUES: dict[int, tuple[DeviceAttribute, int]] = {}
_CLEAN_NAMES: set[str] = set()
_HELD = itemgetter(1)


def known_map(attrs: dict[str, DeviceAttribute]) -> int | None:
    """How many values ``attrs`` holds if it is known clean: the map itself,
    or every name and value in it (a GPU's maps differ from its twins' in one
    or two values: the rest are known), in one C-level pass; else None."""
    known = CLEAN_MAPS.get(attrs)
    if known is not None or not attrs.keys() <= _CLEAN_NAMES:
        return known
    try:
        values: int = sum(map(_HELD, map(_CLEAN_VALUES.__getitem__, map(id, attrs.values()))))
    except KeyError:
        return None
    CLEAN_MAPS.put(attrs, values)
    return values


def _attribute_map(c: Collector, path: str, attrs: dict[str, DeviceAttribute]) -> int:
    """Check every name and value not known clean (a GPU's map is its type's,
    known, plus a UUID or two); the clean ones are remembered."""
    values = 0
    if len(_CLEAN_NAMES) >= 1 << 16:
        _CLEAN_NAMES.clear()
    names, known = _CLEAN_NAMES, _CLEAN_VALUES
    for name, attr in attrs.items():
        if name not in names:
            before = len(c.findings)
            if not f.known_qualified_name(name):
                f.qualified_name(c, f"{path}.attributes[{name}]", name, "attribute name")
            if len(c.findings) == before:
                names.add(name)
        hit = known.get(id(attr))
        values += hit[1] if hit is not None else attribute_value(c, f"{path}.attributes[{name}]", attr)
    return values


def attribute_value(c: Collector, path: str, attr: DeviceAttribute) -> int:
    """How many values one attribute value holds, checked unless known clean
    (and remembered when it is)."""
    hit = _CLEAN_VALUES.get(id(attr))
    if hit is not None and hit[0] is attr:
        return hit[1]
    if len(_CLEAN_VALUES) >= 1 << 16:
        _CLEAN_VALUES.clear()
    before = len(c.findings)
    n = _attribute(c, path, attr)
    if len(c.findings) == before:
        _CLEAN_VALUES[id(attr)] = (attr, n)
    return n


def capacities(c: Collector, path: str, caps: dict[str, DeviceCapacity], multi: bool) -> None:
    if CLEAN_CAPACITY_MAPS[multi].get(caps) is not None:
        return
    before = len(c.findings)
    _capacity_map(c, path, caps, multi)
    if len(c.findings) == before:
        CLEAN_CAPACITY_MAPS[multi].put(caps, 1)


def _capacity_map(c: Collector, path: str, caps: dict[str, DeviceCapacity], multi: bool) -> None:
    for name, cap in caps.items():
        if not f.known_qualified_name(name):
            f.qualified_name(c, f"{path}.capacity[{name}]", name, "capacity name")
        if _CLEAN_CAPACITIES[multi].get(cap) is None:
            before = len(c.findings)
            capacity(c, f"{path}.capacity[{name}]", cap, multi)
            if len(c.findings) == before:
                _CLEAN_CAPACITIES[multi].put(cap, 1)
