"""The ``device`` variable: DeviceView, attribute conversion (CEL-4) and the
qualification of names with the driver's domain (CEL-3)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dralloc.cel.errors import CELRuntimeError
from dralloc.cel.ops import DomainMaps
from dralloc.cel.values import Semver, SemverError
from dralloc.models import Device, DeviceAttribute
from dralloc.quantity import Quantity

_ERR = "err"
_CEL = "cel"
_FULL = "full"
_OK = ""


@dataclass(frozen=True)
class DeviceView:
    """What a selector sees of one device. Keys of ``attributes`` and ``capacity``
    are as in the slice (``domain/id`` or a bare ``id`` of the driver's domain)."""

    driver: str
    attributes: Mapping[str, DeviceAttribute]
    capacity: Mapping[str, Quantity]
    allow_multiple_allocations: bool = False
    memo: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def from_device(cls, driver: str, device: Device, allow_multiple: bool | None = None) -> DeviceView:
        caps = device.capacity
        capacity = {k: c.value for k, c in caps.items()} if caps else {}
        ama = bool(device.allow_multiple_allocations) if allow_multiple is None else allow_multiple
        return cls(driver, device.attributes or {}, capacity, ama)

    def attribute_error(self) -> str:
        """The CEL-4 error every evaluation on this device fails with ("" if none)."""
        err = self.memo.get(_ERR)
        if err is None:
            err = _scan(self.attributes)
            self.memo[_ERR] = err
        return err  # type: ignore[no-any-return]

    def cel_value(self) -> dict[str, Any]:
        """The full ``device`` value (built once per view, on a verdict-cache miss)."""
        v = self.memo.get(_CEL)
        if v is None:
            v = _build(self)
            self.memo[_CEL] = v
        return v  # type: ignore[no-any-return]

    def signature(self) -> tuple[Any, ...]:
        """A hashable summary of everything a selector can read."""
        s = self.memo.get(_FULL)
        if s is None:
            s = (self.driver, self.allow_multiple_allocations,
                 tuple(sorted((k, attr_key(a)) for k, a in self.attributes.items())),
                 tuple(sorted(self.capacity.items(), key=lambda kv: kv[0])))
            self.memo[_FULL] = s
        return s  # type: ignore[no-any-return]


_semver_cache: dict[str, Any] = {}


def parse_version(text: str) -> Semver:
    v = _semver_cache.get(text)
    if v is None:
        try:
            v = Semver.parse(text)
        except SemverError as e:
            v = f"parse semantic version: {e}"
        if len(_semver_cache) > 65536:
            _semver_cache.clear()
        _semver_cache[text] = v
    if isinstance(v, str):
        raise SemverError(v)
    return v


def convert(name: str, a: DeviceAttribute) -> Any:
    """The CEL value of one attribute, first set field wins in Kubernetes' order."""
    try:
        if a.ints is not None:
            return list(a.ints)
        if a.bools is not None:
            return list(a.bools)
        if a.strings is not None:
            return list(a.strings)
        if a.versions is not None:
            return [parse_version(v) for v in a.versions]
        if a.int_ is not None:
            return a.int_
        if a.bool_ is not None:
            return a.bool_
        if a.string is not None:
            return a.string
        if a.version is not None:
            return parse_version(a.version)
    except SemverError as e:
        raise CELRuntimeError(f"attribute {name}: {e}") from None
    raise CELRuntimeError(f"attribute {name}: unsupported attribute value")


def attr_key(a: DeviceAttribute | None) -> Any:
    """A hashable, type-tagged key for an attribute value (None when absent)."""
    if a is None:
        return None
    s = a.string
    if s is not None and a.ints is None and a.bools is None and a.strings is None and a.versions is None:
        return s
    i = a.int_
    if i is not None and a.ints is None and a.bools is None and a.strings is None and a.versions is None:
        return ("i", i)
    return ("x", tuple(a.ints or ()), tuple(a.bools or ()), tuple(a.strings or ()),
            tuple(a.versions or ()), a.int_ is not None, a.bool_, a.string, a.version,
            a.ints is None, a.bools is None, a.strings is None, a.versions is None)


def _scan(attrs: Mapping[str, DeviceAttribute]) -> str:
    cache = _semver_cache
    for name, a in attrs.items():
        if a.version is None and a.versions is None:
            if a.string is not None or a.int_ is not None or a.bool_ is not None:
                continue
        elif a.versions is None and a.ints is None and a.bools is None and a.strings is None \
                and type(cache.get(a.version or "")) is Semver:  # noqa: E721
            continue
        try:
            convert(name, a)
        except CELRuntimeError as e:
            return str(e)
    return _OK


def split_name(driver: str, name: str) -> tuple[str, str]:
    dom, sep, ident = name.partition("/")
    return (dom, ident) if sep else (driver, name)


def _build(view: DeviceView) -> dict[str, Any]:
    attrs: dict[str, dict[str, Any]] = {}
    for name, a in sorted(view.attributes.items(), key=lambda kv: "/" in kv[0]):
        dom, ident = split_name(view.driver, name)
        attrs.setdefault(dom, {})[ident] = convert(name, a)
    caps: dict[str, dict[str, Any]] = {}
    for name, q in sorted(view.capacity.items(), key=lambda kv: "/" in kv[0]):
        dom, ident = split_name(view.driver, name)
        caps.setdefault(dom, {})[ident] = q
    return {"driver": view.driver, "allowMultipleAllocations": view.allow_multiple_allocations,
            "attributes": DomainMaps(attrs), "capacity": DomainMaps(caps)}
