"""Compile the AST into nested Python closures ``f(env) -> value``.

Errors are raised as CELRuntimeError. ``&&``/``||`` and the ``all``/``exists``
macros absorb errors when the other operands decide the result, as cel-go
does. Every call and comprehension step is charged to ``env.cost``; going over
the Kubernetes limit raises the cost error, so no expression can run for long
(:mod:`dralloc.cel.cost`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dralloc.cel import ops
from dralloc.cel.cost import Env, Fn, traversal
from dralloc.cel.errors import CELRuntimeError, no_overload
from dralloc.cel.library import COSTS, GLOBAL, MEMBER
from dralloc.cel.macros import compile_bind, compile_macro, is_macro
from dralloc.cel.parse import Call, Ident, Index, ListLit, Lit, MapLit, Node, Select
from dralloc.cel.values import CelType, Opt, type_name

NAMESPACES = frozenset({"cel", "lists", "strings", "sets", "optional", "math", "ip", "format"})
TYPE_NAMES = frozenset({"int", "uint", "double", "bool", "string", "bytes", "list", "map",
                        "null_type", "type"})


def _size_cost(v: Any) -> int:
    t = type(v)
    if t is bool or t is int or t is float:
        return 0
    if isinstance(v, list | dict):
        return len(v)
    if isinstance(v, str | bytes):
        return len(v) // 10
    return 0


def compile_node(node: Node, scope: frozenset[str] = frozenset()) -> Fn:
    if isinstance(node, Lit):
        value = node.value
        return lambda env: value
    if isinstance(node, Ident):
        return _ident(node.name, scope)
    if isinstance(node, Select):
        return _select(node, scope)
    if isinstance(node, Index):
        return _index(node, scope)
    if isinstance(node, ListLit):
        return _list_lit(node, scope)
    if isinstance(node, MapLit):
        return _map_lit(node, scope)
    assert isinstance(node, Call)
    return _call(node, scope)


def _ident(name: str, scope: frozenset[str]) -> Fn:
    if name in scope or name == "device":
        def get(env: Env) -> Any:
            return env.vars[name]
        return get
    if name in TYPE_NAMES:
        t = CelType(name)
        return lambda env: t
    raise CELRuntimeError(f"undeclared reference to '{name}'")  # checker reports it first


def _select(node: Select, scope: frozenset[str]) -> Fn:
    operand = compile_node(node.operand, scope)
    field, optional = node.field, node.optional

    def sel(env: Env) -> Any:
        return ops.select(operand(env), field, optional)
    return sel


def _index(node: Index, scope: frozenset[str]) -> Fn:
    operand, index, optional = compile_node(node.operand, scope), compile_node(node.index, scope), node.optional

    def idx(env: Env) -> Any:
        return ops.index(operand(env), index(env), optional)
    return idx


def _list_lit(node: ListLit, scope: frozenset[str]) -> Fn:
    items = [compile_node(i, scope) for i in node.items]
    size = len(items)

    def build(env: Env) -> list[Any]:
        env.charge(size)
        return [f(env) for f in items]
    return build


def _map_lit(node: MapLit, scope: frozenset[str]) -> Fn:
    entries = [(compile_node(k, scope), compile_node(v, scope)) for k, v in node.entries]

    def build(env: Env) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        for kf, vf in entries:
            k = kf(env)
            if not isinstance(k, str | int):
                raise CELRuntimeError(f"unsupported map key type: {type_name(k)}")
            if k in out:
                raise CELRuntimeError(f"Failed with repeated key: {k}")
            out[k] = vf(env)
        env.charge(len(out))
        return out
    return build


def _call(node: Call, scope: frozenset[str]) -> Fn:
    fn, target, args = node.fn, node.target, node.args
    if target is None and fn in ops.OPERATORS:
        return ops.compile_operator(fn, [compile_node(a, scope) for a in args])
    if target is None and fn == "has":
        return _has(node, scope)
    if is_macro(node):
        return compile_macro(node, scope, compile_node)
    if isinstance(target, Ident) and target.name in NAMESPACES and target.name not in scope:
        if target.name == "cel" and fn == "bind":
            return compile_bind(node, scope, compile_node)
        return _invoke(f"{target.name}.{fn}", GLOBAL.get(f"{target.name}.{fn}"),
                       [compile_node(a, scope) for a in args])
    if target is None:
        return _invoke(fn, GLOBAL.get(fn), [compile_node(a, scope) for a in args])
    return _invoke(fn, MEMBER.get(fn), [compile_node(a, scope) for a in (target, *args)])


def _invoke(name: str, impl: Callable[..., Any] | None, argfns: list[Fn]) -> Fn:
    if impl is None:
        raise CELRuntimeError(f"undeclared reference to '{name}'")
    fn: Callable[..., Any] = impl
    extra = COSTS.get(name)
    pre: Callable[..., int] | None = extra if extra is not None else None if name in _FLAT else _traversal
    opt_aware = name in _OPT_AWARE

    def call(env: Env) -> Any:
        vals = [f(env) for f in argfns]
        if not opt_aware and vals and isinstance(vals[0], Opt):
            raise no_overload(name, *vals)
        # work that grows with the arguments is charged before it is done (a
        # little of it may wait for the charge after the call)
        before = pre(*vals) if pre is not None else 0
        if before > EARLY:
            env.charge(before)
            before = 0
        result = fn(*vals)
        env.charge(1 + before + _size_cost(result))
        return result
    return call


EARLY = 64   # argument work charged before the call beyond this much


def _traversal(*vals: Any) -> int:
    return traversal(vals)


# calls that cost the same whatever the size of their arguments
_FLAT = frozenset({"size", "type", "dyn", "hasValue", "value", "orValue", "or", "optional.of",
                   "optional.ofNonZeroValue", "optional.none"})
_OPT_AWARE = frozenset({"orValue", "or", "hasValue", "value", "optional.of",
                        "optional.ofNonZeroValue", "type", "dyn"})


def _has(node: Call, scope: frozenset[str]) -> Fn:
    arg = node.args[0] if len(node.args) == 1 else None
    if not isinstance(arg, Select):
        raise CELRuntimeError("invalid argument to has() macro")
    operand, field = compile_node(arg.operand, scope), arg.field

    def has(env: Env) -> bool:
        return ops.has_field(operand(env), field)
    return has
