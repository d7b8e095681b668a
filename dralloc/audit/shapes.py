"""The request shapes ``dralloc availability`` counts: given ones (each
ResourceClaim or ResourceClaimTemplate of a ``--shape`` file), or by default
one per device class that selects some published device (one device of the
class) and one per partition type of each class (one device of the class
whose partition type has that value).

A device's partition type is the value of its grouping attribute: the
``partitionTypeAttribute`` its slice declares (KEP-5677, 1.37), else the one
asked for (``--partition-type-attribute``, the request's
``defaultPartitionTypeAttribute``), else -- for a device that consumes
counters, as NVIDIA's DynamicMIG partitions do -- its driver's ``profile``
attribute (``1g.10gb``, ``3g.40gb``, ...). Only string values count."""

from __future__ import annotations

from collections.abc import Iterable

from dralloc.audit.headroom import Shape
from dralloc.cel import CELCompileError, CELRuntimeError, DeviceView, compile_selector
from dralloc.io import ObjectSet
from dralloc.models import (
    Device,
    DeviceClass,
    ObjectMeta,
    ResourceClaim,
    ResourceClaimSpec,
    ResourceClaimTemplate,
    ResourceSlice,
)

DEFAULT_PARTITION_ATTRIBUTE = "profile"  # in the driver's domain: NVIDIA DynamicMIG's MIG profile


def _selects(cls: DeviceClass, driver: str, device: Device) -> bool:
    view = DeviceView.from_device(driver, device, allow_multiple=bool(device.allow_multiple_allocations))
    try:
        return all(compile_selector(s.cel.expression).evaluate(view) for s in cls.spec.selectors or [] if s.cel)
    except (CELCompileError, CELRuntimeError):
        return False


def partition_type(s: ResourceSlice, device: Device, default: str | None) -> tuple[str, str] | None:
    """(fully qualified attribute, value) of the device's partition type."""
    driver = s.spec.driver
    attr = s.spec.partition_type_attribute or default
    if attr is None:
        if not device.consumes_counters:
            return None
        attr = DEFAULT_PARTITION_ATTRIBUTE
    qualified = attr if "/" in attr else f"{driver}/{attr}"
    attrs = device.attributes or {}
    a = attrs.get(qualified) or (attrs.get(qualified[len(driver) + 1:]) if qualified.startswith(driver + "/") else None)
    return (qualified, a.string) if a is not None and a.string is not None else None


def _claim(name: str, cls: str, selector: str | None = None) -> ResourceClaim:
    request: dict[str, object] = {"deviceClassName": cls, "allocationMode": "ExactCount", "count": 1}
    if selector:
        request["selectors"] = [{"cel": {"expression": selector}}]
    spec = ResourceClaimSpec.model_validate({"devices": {"requests": [{"name": "device", "exactly": request}]}})
    return ResourceClaim(metadata=ObjectMeta(name=name, namespace="default"), spec=spec)


def default_shapes(objs: ObjectSet, attribute: str | None = None) -> list[Shape]:
    """One shape per device class selecting a published device, then one per
    (class, partition type), in class and value order."""
    newest: dict[tuple[str, str], int] = {}
    for s in objs.slices:
        key = (s.spec.driver, s.spec.pool.name)
        newest[key] = max(newest.get(key, s.spec.pool.generation), s.spec.pool.generation)
    devices = [(s, d) for s in objs.slices if s.spec.pool.generation == newest[(s.spec.driver, s.spec.pool.name)]
               for d in s.spec.devices or []]
    plain: list[Shape] = []
    typed: list[Shape] = []
    for cls in sorted(objs.classes, key=lambda c: c.name):
        picked = [(s, d) for s, d in devices if _selects(cls, s.spec.driver, d)]
        if not picked:
            continue
        plain.append(Shape(f"{cls.name}", _claim(_dns(cls.name), cls.name), f"one device of class {cls.name}"))
        types = sorted({t for s, d in picked if (t := partition_type(s, d, attribute)) is not None})
        for attr, value in types:
            domain, _, ident = attr.partition("/")
            selector = f"device.attributes[{_quote(domain)}][{_quote(ident)}] == {_quote(value)}"
            typed.append(Shape(f"{cls.name}/{value}", _claim(_dns(f"{cls.name}-{value}"), cls.name, selector),
                               f"one device of class {cls.name} with {attr} {value}"))
    return plain + typed


def given_shapes(objs: Iterable[object]) -> list[Shape]:
    """The claims and claim templates of a ``--shape`` file, in file order."""
    out = []
    for o in objs:
        if isinstance(o, ResourceClaim):
            out.append(Shape(o.name, o.model_copy(update={"status": None}), f"ResourceClaim {o.key}"))
        elif isinstance(o, ResourceClaimTemplate):
            claim = ResourceClaim(metadata=ObjectMeta(name=o.name, namespace=o.namespace or "default"), spec=o.spec.spec)
            out.append(Shape(o.name, claim, f"ResourceClaimTemplate {o.namespace or 'default'}/{o.name}"))
    return out


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _dns(text: str) -> str:
    out = "".join(ch if ch.isalnum() else "-" for ch in text.lower()).strip("-")
    return out[:63].strip("-") or "shape"
