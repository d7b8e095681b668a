"""Errors raised by the CEL layer. Messages carry only the detail text; the
caller adds the class/claim/selector context Kubernetes prints around it."""

from __future__ import annotations

from typing import Any

from dralloc.errors import AllocationError
from dralloc.quantity import Quantity


class CELError(AllocationError):
    """Base class of every CEL error."""


class CELCompileError(CELError):
    """The expression does not compile (syntax, undeclared reference, type, limits)."""


class CELRuntimeError(CELError):
    """Evaluation failed (missing key, no overload, cost limit, bad attribute)."""


def type_name(v: Any) -> str:
    """The CEL type name of a runtime value: the ``cel_type_name`` its class
    declares (uint, optional, Semver, timestamps, IPs...), else by kind."""
    named = getattr(type(v), "cel_type_name", None)
    if named:
        return str(named)
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "double"
    if isinstance(v, str):
        return "string"
    if isinstance(v, bytes):
        return "bytes"
    if v is None:
        return "null_type"
    if isinstance(v, list | tuple):
        return "list"
    if isinstance(v, dict):
        return "map"
    if isinstance(v, Quantity):
        return "kubernetes.Quantity"
    return type(v).__name__


def no_overload(fn: str, *args: object) -> CELRuntimeError:
    return CELRuntimeError(
        f"no such overload: {fn}({', '.join(type_name(a) for a in args)})"
    )
