"""Errors raised by the CEL layer. Messages carry only the detail text; the
caller adds the class/claim/selector context Kubernetes prints around it."""

from __future__ import annotations

from dralloc.errors import AllocationError


class CELError(AllocationError):
    """Base class of every CEL error."""


class CELCompileError(CELError):
    """The expression does not compile (syntax, undeclared reference, type, limits)."""


class CELRuntimeError(CELError):
    """Evaluation failed (missing key, no overload, cost limit, bad attribute)."""


def no_overload(fn: str, *args: object) -> CELRuntimeError:
    from dralloc.cel.values import type_name

    return CELRuntimeError(
        f"no such overload: {fn}({', '.join(type_name(a) for a in args)})"
    )
