"""Derived attributes (KEP-6080, ``DRADerivedAttributes``, Kubernetes 1.37
alpha): a CEL expression a claim's request evaluates on each candidate
device, in the selectors' environment (one variable, ``device``), whose value
the claim's constraints compare as if the device had that attribute.

The KEP fixes the value's type: a string, an int, a bool or a semantic
version, or a list of one of these. Another static type does not compile;
another value at run time is a runtime error, fatal for the allocation as a
selector's is. The value comes back as a :class:`DeviceAttribute` of the same
shape a ResourceSlice would publish (a list as ``strings``/``ints``/...), so
every engine compares it with the rules it already has for attributes.

Like a selector, a compiled expression caches its value per projection of the
device fields it reads."""

from __future__ import annotations

from typing import Any

from dralloc.cel.errors import CELCompileError, CELRuntimeError
from dralloc.cel.selector import CompiledSelector, compiled
from dralloc.cel.values import INT64_MAX, INT64_MIN, Semver, UInt, type_name
from dralloc.models import DeviceAttribute

_SCALARS = ("string", "int", "bool", "kubernetes.Semver", "dyn")
WANTED = "a string, int, bool or semver, or a list of one of them"


def result_type_ok(rtype: str) -> bool:
    if rtype in _SCALARS:
        return True
    return rtype.startswith("list(") and rtype[5:-1] in _SCALARS


class CompiledDerived(CompiledSelector):
    """One derived attribute's expression, compiled once."""

    def _check_result(self, rtype: str) -> None:
        if not result_type_ok(rtype):
            raise CELCompileError(f"must evaluate to {WANTED}, not {rtype}")

    def _finish(self, value: Any) -> Any:
        try:
            return as_attribute(value)
        except CELRuntimeError as e:
            return e


def _kind(v: Any) -> str | None:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, UInt) or isinstance(v, float):
        return None
    if isinstance(v, int):
        return "int" if INT64_MIN <= v <= INT64_MAX else None
    if isinstance(v, str):
        return "string"
    if isinstance(v, Semver):
        return "version"
    return None


def _plain(kind: str, v: Any) -> Any:
    return v.text if kind == "version" else v


def as_attribute(value: Any) -> DeviceAttribute:
    """The attribute a derived value stands for; a runtime error for a value
    of another type (or a list mixing types)."""
    if isinstance(value, list):
        kinds = {_kind(v) for v in value}
        if None in kinds or len(kinds) > 1:
            shown = sorted(type_name(v) for v in value if _kind(v) is None) or sorted(k for k in kinds if k)
            raise CELRuntimeError(f"derived attribute value must be {WANTED}, not a list of {', '.join(shown)}")
        kind = next((k for k in kinds if k), "string")
        items = [_plain(kind, v) for v in value]
        field = {"int": "ints", "bool": "bools", "string": "strings", "version": "versions"}[kind]
        return DeviceAttribute.model_validate({field: items})
    one = _kind(value)
    if one is None:
        raise CELRuntimeError(f"derived attribute value must be {WANTED}, not {type_name(value)}")
    return DeviceAttribute.model_validate({one: _plain(one, value)})


_compiled: dict[str, CompiledDerived | CELCompileError] = {}


def compile_derived(expression: str) -> CompiledDerived:
    """The compiled derived-attribute expression (cached per string)."""
    return compiled(_compiled, expression, CompiledDerived)
