"""CEL macros: has() lives in interp; here are the comprehensions
(all, exists, exists_one, map, filter, two-variable forms, transformList,
transformMap, sortBy) and cel.bind."""

from __future__ import annotations

from collections.abc import Callable
from functools import cmp_to_key
from typing import TYPE_CHECKING, Any

from dralloc.cel.errors import CELRuntimeError, no_overload
from dralloc.cel.parse import Call, Ident, Node
from dralloc.cel.values import Opt, cel_cmp

if TYPE_CHECKING:
    from dralloc.cel.cost import Env, Fn

Compiler = Callable[[Node, frozenset[str]], "Fn"]

# cel-go's receiver macros, by (name, number of arguments): the standard ones,
# the two-variable comprehensions (ext), sortBy (ext lists) and the optional
# library's optMap/optFlatMap. A call with another number of arguments is an
# ordinary call of a function nothing declares (cel-go refuses it when it
# compiles: there is no one-argument ``all``).
ONE_VAR = frozenset({("all", 2), ("exists", 2), ("exists_one", 2), ("existsOne", 2), ("map", 2), ("map", 3),
                     ("filter", 2), ("sortBy", 2), ("optMap", 2), ("optFlatMap", 2)})
TWO_VAR = frozenset({("all", 3), ("exists", 3), ("exists_one", 3), ("existsOne", 3), ("transformList", 3),
                     ("transformList", 4), ("transformMap", 3), ("transformMap", 4)})


def is_macro(node: Call) -> bool:
    """Whether ``node`` is a receiver macro (as cel-go's parser expands them)."""
    return node.target is not None and ((node.fn, len(node.args)) in ONE_VAR or (node.fn, len(node.args)) in TWO_VAR)


def macro_vars(node: Call) -> list[Ident]:
    """The iteration variables of a macro call; raises CELRuntimeError (the
    compile error, with where) when one is not a simple name."""
    count = 2 if (node.fn, len(node.args)) in TWO_VAR else 1
    out = []
    for a in node.args[:count]:
        if not isinstance(a, Ident):
            raise CELRuntimeError(f"ERROR: <input>:{a.line}:{a.col}: argument must be a simple name")
        out.append(a)
    return out


def compile_bind(node: Call, scope: frozenset[str], comp: Compiler) -> Fn:
    if len(node.args) != 3 or not isinstance(node.args[0], Ident):
        raise CELRuntimeError("cel.bind() variable name must be a simple identifier")
    name = node.args[0].name
    init, body = comp(node.args[1], scope), comp(node.args[2], scope | {name})

    def bind(env: Env) -> Any:
        value = init(env)
        saved = env.vars.get(name, _UNSET)
        env.vars[name] = value
        try:
            return body(env)
        finally:
            _restore(env, name, saved)
    return bind


_UNSET = object()


def _restore(env: Env, name: str, saved: Any) -> None:
    if saved is _UNSET:
        env.vars.pop(name, None)
    else:
        env.vars[name] = saved


def _pairs(fn: str, v: Any) -> list[tuple[Any, Any]]:
    if isinstance(v, list):
        return list(enumerate(v))
    if isinstance(v, dict):
        return [(k, val) for k, val in v.items()]
    raise no_overload(fn, v)


def compile_opt_map(node: Call, scope: frozenset[str], comp: Compiler) -> Fn:
    """``o.optMap(v, e)`` / ``o.optFlatMap(v, e)``: apply ``e`` to the value of a
    present optional (``optFlatMap``'s ``e`` must itself give an optional)."""
    assert node.target is not None
    fn, name = node.fn, macro_vars(node)[0].name
    target, body = comp(node.target, scope), comp(node.args[1], scope | {name})

    def run(env: Env) -> Any:
        o = target(env)
        if not isinstance(o, Opt):
            raise no_overload(fn, o)
        if not o.present:
            return Opt.NONE
        saved = env.vars.get(name, _UNSET)
        env.vars[name] = o.value
        try:
            r = body(env)
        finally:
            _restore(env, name, saved)
        if fn == "optMap":
            return Opt(r)
        if not isinstance(r, Opt):
            raise no_overload(fn, r)
        return r
    return run


def compile_macro(node: Call, scope: frozenset[str], comp: Compiler) -> Fn:
    fn, args = node.fn, node.args
    if fn in ("optMap", "optFlatMap"):
        return compile_opt_map(node, scope, comp)
    names = [v.name for v in macro_vars(node)]
    inner = scope | set(names)
    target = comp(node.target, scope) if node.target is not None else None
    assert target is not None
    bodies = [comp(a, inner) for a in args[len(names):]]
    return _Comprehension(fn, names, target, bodies).run


class _Comprehension:
    def __init__(self, fn: str, names: list[str], target: Fn, bodies: list[Fn]) -> None:
        self.fn, self.names, self.target, self.bodies = fn, names, target, bodies

    def _iter(self, env: Env) -> Any:
        v = self.target(env)
        pairs = _pairs(self.fn, v)
        saved = [env.vars.get(n, _UNSET) for n in self.names]
        try:
            for k, val in pairs:
                env.charge(1)
                if len(self.names) == 2:
                    env.vars[self.names[0]], env.vars[self.names[1]] = k, val
                else:
                    env.vars[self.names[0]] = val if isinstance(v, list) else k
                yield k, val
        finally:
            for n, s in zip(self.names, saved, strict=True):
                _restore(env, n, s)

    def run(self, env: Env) -> Any:
        fn = self.fn
        if fn in ("all", "exists"):
            return self._quantifier(env, fn == "exists")
        if fn in ("exists_one", "existsOne"):
            count = sum(1 for _ in self._iter(env) if _bool(fn, self.bodies[0](env)))
            return count == 1
        if fn == "filter":
            return [val for k, val in self._iter(env) if _bool(fn, self.bodies[0](env))]
        if fn == "map" or fn == "transformList":
            return self._map_list(env)
        if fn == "transformMap":
            return self._map_map(env)
        return self._sort_by(env)

    def _quantifier(self, env: Env, want: bool) -> bool:
        err: CELRuntimeError | None = None
        for _ in self._iter(env):
            try:
                r = self.bodies[0](env)
                if not isinstance(r, bool):
                    raise no_overload(self.fn, r)
            except CELRuntimeError as e:
                err = err or e
                continue
            if r is want:
                return want
        if err is not None:
            raise err
        return not want

    def _map_list(self, env: Env) -> list[Any]:
        out = []
        pred, expr = (self.bodies[0], self.bodies[1]) if len(self.bodies) == 2 else (None, self.bodies[0])
        for _ in self._iter(env):
            if pred is None or _bool(self.fn, pred(env)):
                out.append(expr(env))
        return out

    def _map_map(self, env: Env) -> dict[Any, Any]:
        out = {}
        pred, expr = (self.bodies[0], self.bodies[1]) if len(self.bodies) == 2 else (None, self.bodies[0])
        for k, _ in self._iter(env):
            if pred is None or _bool(self.fn, pred(env)):
                out[k] = expr(env)
        return out

    def _sort_by(self, env: Env) -> list[Any]:
        keyed: list[tuple[Any, Any]] = [(self.bodies[0](env), val) for _, val in self._iter(env)]
        env.charge(len(keyed) * max(1, len(keyed).bit_length()))   # the comparisons of the sort
        keyed.sort(key=cmp_to_key(_cmp_keys))
        return [v for _, v in keyed]


def _bool(fn: str, v: Any) -> bool:
    if not isinstance(v, bool):
        raise no_overload(fn, v)
    return v


def _cmp_keys(x: tuple[Any, Any], y: tuple[Any, Any]) -> int:
    return cel_cmp("sortBy", x[0], y[0])
