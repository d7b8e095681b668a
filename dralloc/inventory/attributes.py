"""Attribute lookup and comparison as the allocator's constraints use them
(spec CT-2, CT-3, CT-7, CT-8, CT-11, CT-13)."""

from __future__ import annotations

from collections.abc import Mapping

from dralloc.models import Device, DeviceAttribute

Scalar = tuple[str, object]  # (kind, value)


def lookup_attribute(device: Device, driver: str, name: str) -> DeviceAttribute | None:
    """The name verbatim; else, when its domain is the device's driver, the bare id."""
    attrs = device.attributes or {}
    if name in attrs:
        return attrs[name]
    domain, sep, ident = name.partition("/")
    if sep and domain == driver and ident in attrs:
        return attrs[ident]
    return None


def constraint_attribute(device: Device, driver: str, name: str,
                         derived: Mapping[str, DeviceAttribute] | None) -> DeviceAttribute | None:
    """What a constraint naming ``name`` compares for a device taken by a
    request: the request's derived attribute of that name first (KEP-6080,
    exact name), else the device's own attribute (:func:`lookup_attribute`)."""
    if derived:
        got = derived.get(name)
        if got is not None:
            return got
    return lookup_attribute(device, driver, name)


def scalar(attr: DeviceAttribute) -> Scalar | None:
    """The scalar value, kinds tried in the order string, int, bool, version."""
    if attr.string is not None:
        return ("string", attr.string)
    if attr.int_ is not None:
        return ("int", attr.int_)
    if attr.bool_ is not None:
        return ("bool", attr.bool_)
    if attr.version is not None:
        return ("version", attr.version)
    return None


_FIELDS = {"string": "string", "int": "int_", "bool": "bool_", "version": "version"}


def scalar_of_kind(attr: DeviceAttribute, kind: str) -> object | None:
    """The attribute's value of one kind (None when it has none)."""
    return getattr(attr, _FIELDS[kind])  # type: ignore[no-any-return]


def as_set(attr: DeviceAttribute) -> tuple[str, frozenset[object]] | None:
    """The first non-empty list, else the scalar as a one-element set."""
    for kind, lst in (("int", attr.ints), ("bool", attr.bools), ("string", attr.strings),
                      ("version", attr.versions)):
        if lst:
            return (kind, frozenset(lst))
    # Scalars in Kubernetes' set order (int, bool, string, version), which
    # differs from the scalar comparison order above.
    for kind in ("int", "bool", "string", "version"):
        value = scalar_of_kind(attr, kind)
        if value is not None:
            return (kind, frozenset([value]))
    return None
