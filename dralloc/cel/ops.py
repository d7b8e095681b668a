"""CEL operators, field selection and indexing with cel-go semantics."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dralloc.cel import libtime
from dralloc.cel.cost import text_cost
from dralloc.cel.errors import CELRuntimeError, no_overload
from dralloc.cel.libtime import TimeValue
from dralloc.cel.values import INT64_MIN, Opt, UInt, cel_cmp, cel_eq, check_int, check_uint

if TYPE_CHECKING:
    from dralloc.cel.cost import Env, Fn

EMPTY: dict[str, Any] = {}


class DomainMaps(dict):  # type: ignore[type-arg]
    """``device.attributes`` / ``device.capacity``: an unknown domain is an empty map."""

    __slots__ = ()


def _lookup(m: dict[Any, Any], key: Any) -> tuple[bool, Any]:
    if type(m) is DomainMaps:
        return True, m.get(key, EMPTY) if type(key) is str else _bad_key(key)
    if type(key) is str:
        return (True, m[key]) if key in m else (False, None)
    if isinstance(key, float) and key.is_integer():
        key = int(key)
    if isinstance(key, bool):
        for k, v in m.items():
            if isinstance(k, bool) and k == key:
                return True, v
        return False, None
    if not isinstance(key, int | float):
        raise CELRuntimeError(f"unsupported key type: {_tn(key)}")
    if key in m:
        return True, m[key]
    return False, None


def _bad_key(key: Any) -> Any:
    raise CELRuntimeError(f"no such key: {key}")


def select(v: Any, field: str, optional: bool) -> Any:
    wrap = optional
    if isinstance(v, Opt):
        if not v.present:
            return Opt.NONE
        v, wrap = v.value, True
    if not isinstance(v, dict):
        raise CELRuntimeError(f"no such overload: field selection on {_tn(v)}")
    found, value = _lookup(v, field)
    if not found:
        if wrap:
            return Opt.NONE
        raise CELRuntimeError(f"no such key: {field}")
    return Opt(value) if wrap else value


def index(v: Any, key: Any, optional: bool) -> Any:
    wrap = optional
    if isinstance(v, Opt):
        if not v.present:
            return Opt.NONE
        v, wrap = v.value, True
    if isinstance(v, list):
        if isinstance(key, float) and key.is_integer():
            key = int(key)
        if not isinstance(key, int) or isinstance(key, bool):
            raise no_overload("_[_]", v, key)
        if not 0 <= key < len(v):
            if wrap:
                return Opt.NONE
            raise CELRuntimeError(f"index out of bounds: {key}")
        return Opt(v[key]) if wrap else v[key]
    if isinstance(v, dict):
        found, value = _lookup(v, key)
        if not found:
            if wrap:
                return Opt.NONE
            raise CELRuntimeError(f"no such key: {key}")
        return Opt(value) if wrap else value
    raise no_overload("_[_]", v, key)


def has_field(v: Any, field: str) -> bool:
    if isinstance(v, Opt):
        return v.present and has_field(v.value, field)
    if not isinstance(v, dict):
        raise CELRuntimeError(f"no such overload: has() on {_tn(v)}")
    if isinstance(v, DomainMaps):
        return field in v
    return field in v


def _tn(v: Any) -> str:
    from dralloc.cel.values import type_name

    return type_name(v)


# ---------------------------------------------------------------- operators
def _logic(name: str, decisive: bool) -> Callable[[list[Fn]], Fn]:
    """``&&`` (decisive False) and ``||`` (decisive True) with cel-go's error
    absorption: the decisive value on either side wins over an error on the
    other; otherwise the first error (or a non-bool operand) is raised."""

    def build(fns: list[Fn]) -> Fn:
        left, right = fns

        def f(env: Env) -> Any:
            err: CELRuntimeError | None = None
            try:
                a = left(env)
                if a is decisive:
                    return decisive
                if a is not (not decisive):
                    err = no_overload(name, a)
            except CELRuntimeError as e:
                err = e
            b = right(env)
            if b is decisive:
                return decisive
            if b is not (not decisive):
                raise err or no_overload(name, b)
            if err is not None:
                raise err
            return not decisive
        return f
    return build


_and = _logic("_&&_", False)
_or = _logic("_||_", True)


def _cond(fns: list[Fn]) -> Fn:
    c, a, b = fns

    def f(env: Env) -> Any:
        v = c(env)
        if v is True:
            return a(env)
        if v is False:
            return b(env)
        raise no_overload("_?_:_", v)
    return f


def _not(a: Any) -> bool:
    if isinstance(a, bool):
        return not a
    raise no_overload("!_", a)


def _neg(a: Any) -> Any:
    if isinstance(a, bool) or isinstance(a, UInt):
        raise no_overload("-_", a)
    if isinstance(a, int):
        return check_int(-a)
    if isinstance(a, float):
        return -a
    raise no_overload("-_", a)


def _same_num(fn: str, a: Any, b: Any) -> type:
    t = type(a)
    if t is not type(b) or t is bool or t not in (int, UInt, float):
        raise no_overload(fn, a, b)
    return t


def _fix(t: type, v: Any) -> Any:
    if t is int:
        return check_int(v)
    if t is UInt:
        return check_uint(v)
    return v


def _add(a: Any, b: Any) -> Any:
    if type(a) is type(b) and isinstance(a, str | bytes | list):
        return a + b
    if isinstance(a, TimeValue) or isinstance(b, TimeValue):
        return libtime.add(a, b)
    t = _same_num("_+_", a, b)
    return _fix(t, a + b)


def _sub(a: Any, b: Any) -> Any:
    if isinstance(a, TimeValue) or isinstance(b, TimeValue):
        return libtime.sub(a, b)
    t = _same_num("_-_", a, b)
    return _fix(t, a - b)


def _mul(a: Any, b: Any) -> Any:
    t = _same_num("_*_", a, b)
    return _fix(t, a * b)


def _div(a: Any, b: Any) -> Any:
    t = _same_num("_/_", a, b)
    if t is float:
        if b == 0:
            if a == 0 or a != a:
                return float("nan")
            return math.copysign(float("inf"), a) * math.copysign(1.0, b)
        return a / b
    if b == 0:
        raise CELRuntimeError("division by zero")
    if t is int and a == INT64_MIN and b == -1:
        raise CELRuntimeError("integer overflow")
    q = abs(a) // abs(b)
    return _fix(t, q if (a >= 0) == (b >= 0) else -q)


def _mod(a: Any, b: Any) -> Any:
    t = _same_num("_%_", a, b)
    if t is float:
        raise no_overload("_%_", a, b)
    if b == 0:
        raise CELRuntimeError("modulus by zero")
    if t is int and a == INT64_MIN and b == -1:
        raise CELRuntimeError("integer overflow")
    r = abs(a) % abs(b)
    return _fix(t, r if a >= 0 else -r)


def _in(a: Any, b: Any) -> bool:
    if isinstance(b, list):
        return any(cel_eq(a, x) for x in b)
    if isinstance(b, dict):
        return _lookup(b, a)[0] if not isinstance(b, DomainMaps) else isinstance(a, str) and a in b
    raise no_overload("@in", a, b)


def _add_cost(a: Any, b: Any) -> int:
    """A new string or list: its size, charged before it is built."""
    if isinstance(a, str | bytes) and isinstance(b, str | bytes):
        return text_cost(len(a) + len(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) + len(b)
    return 0


def _compare_cost(a: Any, b: Any) -> int:
    """Comparing strings reads the shorter one (cel-go); nested lists and
    maps are charged element by element as they are compared."""
    if isinstance(a, str | bytes) and isinstance(b, str | bytes):
        return text_cost(min(len(a), len(b)))
    return 0


def _in_cost(a: Any, b: Any) -> int:
    return len(b) if isinstance(b, list) else 0


def _binary(fn: str, fns: list[Fn]) -> Fn:
    impl = _BINARY[fn]
    left, right = fns
    pre = _PRECHARGE.get(fn)
    if pre is None:
        def f(env: Env) -> Any:
            return impl(left(env), right(env))
        return f

    def g(env: Env) -> Any:
        a, b = left(env), right(env)
        if type(a) is not int and type(b) is not int:   # numbers cost nothing extra
            cost = pre(a, b)
            if cost:
                env.charge(cost)
        return impl(a, b)
    return g


def _unary(impl: Callable[[Any], Any], fns: list[Fn]) -> Fn:
    (arg,) = fns
    return lambda env: impl(arg(env))


_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "_==_": cel_eq, "_!=_": lambda a, b: not cel_eq(a, b),
    "_<_": lambda a, b: cel_cmp("_<_", a, b) < 0, "_<=_": lambda a, b: cel_cmp("_<=_", a, b) <= 0,
    "_>_": lambda a, b: cel_cmp("_>_", a, b) > 0, "_>=_": lambda a, b: cel_cmp("_>=_", a, b) >= 0,
    "_+_": _add, "_-_": _sub, "_*_": _mul, "_/_": _div, "_%_": _mod, "@in": _in,
}
_PRECHARGE: dict[str, Callable[[Any, Any], int]] = {
    "_+_": _add_cost, "@in": _in_cost,
    **{op: _compare_cost for op in ("_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_")},
}
OPERATORS = frozenset({*_BINARY, "_&&_", "_||_", "_?_:_", "!_", "-_"})


def compile_operator(fn: str, fns: list[Fn]) -> Fn:
    if fn == "_&&_":
        return _and(fns)
    if fn == "_||_":
        return _or(fns)
    if fn == "_?_:_":
        return _cond(fns)
    if fn == "!_":
        return _unary(_not, fns)
    if fn == "-_":
        return _unary(_neg, fns)
    return _binary(fn, fns)
