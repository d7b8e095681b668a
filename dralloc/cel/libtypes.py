"""Kubernetes CEL libraries for Quantity, Semver and Regex."""

from __future__ import annotations

import math
from typing import Any

from dralloc.cel.cost import charge
from dralloc.cel.errors import CELRuntimeError, no_overload
from dralloc.cel.libconv import go_str
from dralloc.cel.regex import regex
from dralloc.cel.values import INT64_MAX, INT64_MIN, Semver, SemverError
from dralloc.quantity import Quantity, QuantityError

# ---------------------------------------------------------------- Quantity


def _q(fn: str, args: tuple[Any, ...], n: int) -> Quantity:
    if len(args) != n or not isinstance(args[0], Quantity):
        raise no_overload(fn, *args)
    return args[0]


def q_parse(*a: Any) -> Quantity:
    if len(a) != 1 or not isinstance(a[0], str):
        raise no_overload("quantity", *a)
    try:
        return Quantity.parse(a[0])
    except QuantityError as e:
        raise CELRuntimeError(str(e)) from None


def q_is(*a: Any) -> bool:
    if len(a) != 1 or not isinstance(a[0], str):
        raise no_overload("isQuantity", *a)
    try:
        Quantity.parse(a[0])
    except QuantityError:
        return False
    return True


def _fits_int64(q: Quantity) -> bool:
    return q.is_integer() and INT64_MIN <= q.value <= INT64_MAX


def q_is_integer(*a: Any) -> bool:
    return _fits_int64(_q("isInteger", a, 1))


def q_as_integer(*a: Any) -> int:
    q = _q("asInteger", a, 1)
    if not _fits_int64(q):
        raise CELRuntimeError("cannot convert value to integer")
    return int(q.value)


def q_as_float(*a: Any) -> float:
    v = _q("asApproximateFloat", a, 1).value
    try:
        return float(v)
    except OverflowError:   # beyond the double range: Go's float arithmetic gives ±Inf
        return math.inf if v > 0 else -math.inf


def q_sign(*a: Any) -> int:
    return _q("sign", a, 1).sign()


def _operand(fn: str, a: tuple[Any, ...]) -> Quantity:
    q = _q(fn, a, 2)
    other = a[1]
    if isinstance(other, Quantity):
        return other
    if isinstance(other, int) and not isinstance(other, bool):
        return Quantity(int(other))
    raise no_overload(fn, *a)
    return q  # pragma: no cover


def q_add(*a: Any) -> Quantity:
    other = _operand("add", a)
    return a[0] + other  # type: ignore[no-any-return]


def q_sub(*a: Any) -> Quantity:
    other = _operand("sub", a)
    return a[0] - other  # type: ignore[no-any-return]


# ---------------------------------------------------------------- Semver


def s_parse(*a: Any) -> Semver:
    if not 1 <= len(a) <= 2 or not isinstance(a[0], str) or (len(a) == 2 and not isinstance(a[1], bool)):
        raise no_overload("semver", *a)
    try:
        if len(a) == 2 and a[1]:
            return Semver.parse_normalized(a[0])
        return Semver.parse(a[0])
    except SemverError as e:
        raise CELRuntimeError(f"could not parse {a[0]!r} as semver: {e}") from None


def s_is(*a: Any) -> bool:
    try:
        s_parse(*a)
    except CELRuntimeError as e:
        if str(e).startswith("no such overload"):
            raise
        return False
    return True


def _s(fn: str, a: tuple[Any, ...]) -> Semver:
    if len(a) != 1 or not isinstance(a[0], Semver):
        raise no_overload(fn, *a)
    return a[0]


def s_major(*a: Any) -> int:
    return _s("major", a).major


def s_minor(*a: Any) -> int:
    return _s("minor", a).minor


def s_patch(*a: Any) -> int:
    return _s("patch", a).patch


# ------------------------------------------------ shared comparison methods


def _compare(fn: str, a: tuple[Any, ...]) -> int:
    if len(a) == 2 and isinstance(a[0], Quantity) and isinstance(a[1], Quantity):
        return a[0].cmp(a[1])
    if len(a) == 2 and isinstance(a[0], Semver) and isinstance(a[1], Semver):
        return a[0].compare(a[1])
    raise no_overload(fn, *a)


def m_compare_to(*a: Any) -> int:
    return _compare("compareTo", a)


def m_is_less(*a: Any) -> bool:
    return _compare("isLessThan", a) < 0


def m_is_greater(*a: Any) -> bool:
    return _compare("isGreaterThan", a) > 0


# ---------------------------------------------------------------- Regex


def r_find(*a: Any) -> str:
    if len(a) != 2 or not isinstance(a[0], str) or not isinstance(a[1], str):
        raise no_overload("find", *a)
    m = regex(a[1]).search(go_str(a[0]))
    return "" if m is None else str(m.group(0))


def r_find_all(*a: Any) -> list[str]:
    if len(a) not in (2, 3) or not isinstance(a[0], str) or not isinstance(a[1], str):
        raise no_overload("findAll", *a)
    limit = a[2] if len(a) == 3 else -1
    if not isinstance(limit, int) or isinstance(limit, bool):
        raise no_overload("findAll", *a)
    out: list[str] = []
    for m in regex(a[1]).finditer(go_str(a[0])):
        if len(out) == limit:
            break
        charge(5)   # each match, as it is found (an empty pattern matches everywhere)
        out.append(str(m.group(0)))
    return out


MEMBER = {
    "isInteger": q_is_integer, "asInteger": q_as_integer, "asApproximateFloat": q_as_float,
    "sign": q_sign, "add": q_add, "sub": q_sub,
    "major": s_major, "minor": s_minor, "patch": s_patch,
    "compareTo": m_compare_to, "isLessThan": m_is_less, "isGreaterThan": m_is_greater,
    "find": r_find, "findAll": r_find_all,
}
GLOBAL = {
    "quantity": q_parse, "isQuantity": q_is, "semver": s_parse, "isSemver": s_is,
}
