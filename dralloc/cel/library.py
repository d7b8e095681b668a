"""Function library: CEL standard functions plus the extensions Kubernetes
enables for DRA selectors (strings, lists, sets, regex, Quantity, Semver,
optional, ``includes``). Each entry receives evaluated arguments (the receiver
first for method calls) and returns a CEL value or raises CELRuntimeError."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dralloc.cel import libconv, libext, libformat, libnamed, libnet, libtime, libtypes, liburl
from dralloc.cel.cost import COST_LIMIT, cost_exceeded, text_cost, traversal
from dralloc.cel.errors import CELRuntimeError, no_overload
from dralloc.cel.libconv import go_str
from dralloc.cel.regex import regex as _regex
from dralloc.cel.values import (
    CelType,
    Opt,
    cel_cmp,
    cel_eq,
    type_name,
)
from dralloc.quantity import Quantity

Impl = Callable[..., Any]


def _want(fn: str, args: tuple[Any, ...], *types: type | tuple[type, ...]) -> None:
    if len(args) != len(types):
        raise no_overload(fn, *args)
    for a, t in zip(args, types, strict=True):
        if not isinstance(a, t) or (isinstance(a, bool) and t in (int, (int, float))):
            raise no_overload(fn, *args)


# ---------------------------------------------------------------- standard
def f_size(*a: Any) -> int:
    if len(a) == 1 and isinstance(a[0], str | bytes | list | dict):
        return len(a[0])
    raise no_overload("size", *a)


def f_contains(*a: Any) -> bool:
    _want("contains", a, str, str)
    return a[1] in a[0]


def f_starts(*a: Any) -> bool:
    _want("startsWith", a, str, str)
    return bool(a[0].startswith(a[1]))


def f_ends(*a: Any) -> bool:
    _want("endsWith", a, str, str)
    return bool(a[0].endswith(a[1]))


def f_matches(*a: Any) -> bool:
    _want("matches", a, str, str)
    return _regex(a[1]).search(go_str(a[0])) is not None


def _arg(fn: str, a: tuple[Any, ...]) -> Any:
    if len(a) != 1:
        raise no_overload(fn, *a)
    return a[0]


def f_type(*a: Any) -> CelType:
    return CelType(type_name(_arg("type", a)))


def f_dyn(*a: Any) -> Any:
    return _arg("dyn", a)


# ---------------------------------------------------------------- optional
def f_opt_of(*a: Any) -> Opt:
    return Opt(_arg("optional.of", a))


def f_opt_nonzero(*a: Any) -> Opt:
    v = _arg("optional.ofNonZeroValue", a)
    zero = v is None or v is False or (isinstance(v, int | float | str | bytes | list | dict) and not v)
    return Opt.NONE if zero else Opt(v)


def f_opt_none(*a: Any) -> Opt:
    return Opt.NONE


def f_or_value(*a: Any) -> Any:
    if len(a) != 2:
        raise no_overload("orValue", *a)
    _want("orValue", a[:1], Opt)
    return a[0].value if a[0].present else a[1]


def f_or(*a: Any) -> Any:
    _want("or", a, Opt, Opt)
    return a[0] if a[0].present else a[1]


def f_has_value(*a: Any) -> bool:
    _want("hasValue", a, Opt)
    return bool(a[0].present)


def f_value(*a: Any) -> Any:
    _want("value", a, Opt)
    if not a[0].present:
        raise CELRuntimeError("optional.none() dereference")
    return a[0].value


# ---------------------------------------------------------------- includes (DRA)
def f_includes(*a: Any) -> bool:
    if len(a) != 2:
        raise no_overload("includes", *a)
    target, item = a
    if isinstance(target, list):
        if len(target) > 48:
            raise CELRuntimeError(f"list has {len(target)} elements, more than the limit of 48")
        return any(cel_eq(x, item) for x in target)
    return cel_eq(target, item)


MEMBER: dict[str, Impl] = {
    "size": f_size, "contains": f_contains, "startsWith": f_starts, "endsWith": f_ends,
    "matches": f_matches, "orValue": f_or_value, "or": f_or, "hasValue": f_has_value,
    "value": f_value, "includes": f_includes,
}
GLOBAL: dict[str, Impl] = {
    "size": f_size, "matches": f_matches, "type": f_type, "dyn": f_dyn,
    "optional.of": f_opt_of, "optional.ofNonZeroValue": f_opt_nonzero,
    "optional.none": f_opt_none,
}
for _lib in (libconv, libtypes, libext, libnet, liburl, libformat, libtime, libnamed):
    MEMBER.update(_lib.MEMBER)
    GLOBAL.update(_lib.GLOBAL)
RETURNS: dict[str, str] = {**libnet.RETURNS, **liburl.RETURNS, **libformat.RETURNS, **libtime.RETURNS,
                           **libnamed.RETURNS}
# calls whose runtime cost depends on their arguments (charged on top of the flat cost)
def regex_cost(*a: Any) -> int:
    """Kubernetes' cost of a regular expression over a string: the string's
    traversal times a quarter of the pattern's length (each call of
    matches/find/findAll)."""
    if len(a) >= 2 and isinstance(a[0], str) and isinstance(a[1], str):
        return text_cost(1 + len(a[0])) * max(1, -(-len(a[1]) // 4)) + traversal(a[2:])
    return traversal(a)


COSTS: dict[str, Callable[..., int]] = {**libnamed.COSTS, "matches": regex_cost,
                                        "find": regex_cost, "findAll": regex_cost}

# helpers re-exported for the interpreter
__all__ = ["MEMBER", "GLOBAL", "RETURNS", "COSTS", "COST_LIMIT", "cost_exceeded", "cel_cmp", "Quantity"]
