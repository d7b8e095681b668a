"""Compiled selectors with verdict caching by projection.

A selector is parsed, checked and turned into closures once per expression
string. Before evaluating it on a device we compute the *projection key*: the
values of exactly those device fields the expression can read (found by
walking the AST). Verdicts (and runtime errors) are cached per key, so devices
that agree on the fields a selector reads share one evaluation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from dralloc.cel.check import check, result_type_ok
from dralloc.cel.cost import Env, run_metered
from dralloc.cel.depth import SHALLOW, room
from dralloc.cel.device import DeviceView, attr_key
from dralloc.cel.errors import CELCompileError, CELRuntimeError
from dralloc.cel.interp import compile_node
from dralloc.cel.parse import Call, Ident, Index, Lit, Node, Select, parse
from dralloc.cel.values import type_name

MAX_EXPRESSION_LENGTH = 10 * 1024
VERDICT_CACHE_SIZE = 1 << 16
SELECTOR_CACHE_SIZE = 4096

Path = tuple[str, ...]
KeyFn = Callable[[DeviceView], Any]


def _domain_path(node: Node) -> tuple[str, str] | None:
    """``device.attributes["d"]`` → ("attributes", "d")."""
    if (isinstance(node, Index) and isinstance(node.index, Lit) and isinstance(node.index.value, str)
            and isinstance(node.operand, Select) and isinstance(node.operand.operand, Ident)
            and node.operand.operand.name == "device"
            and node.operand.field in ("attributes", "capacity")):
        return node.operand.field, node.index.value
    return None


def _leaf_path(node: Node) -> Path | None:
    """``device.attributes["d"].x`` / ``["x"]`` / ``.?x`` → ("attributes", "d", "x")."""
    if isinstance(node, Select):
        dom = _domain_path(node.operand)
        return (*dom, node.field) if dom else None
    if isinstance(node, Index) and isinstance(node.index, Lit) and isinstance(node.index.value, str):
        dom = _domain_path(node.operand)
        return (*dom, node.index.value) if dom else None
    return None


def reads(node: Node, scope: frozenset[str] = frozenset()) -> set[Path]:
    """The device paths an expression reads; ("*",) means the whole device."""
    out: set[Path] = set()
    _walk(node, scope, out)
    return out


def _walk(node: Node, scope: frozenset[str], out: set[Path]) -> None:
    leaf = _leaf_path(node)
    if leaf is not None:
        out.add(leaf)
        return
    if isinstance(node, Call) and node.fn == "@in" and node.target is None:
        key, dom = node.args
        d = _domain_path(dom)
        if d is not None and isinstance(key, Lit) and isinstance(key.value, str):
            out.add((*d, key.value))
            return
    if isinstance(node, Select) and isinstance(node.operand, Ident) and node.operand.name == "device" \
            and "device" not in scope and node.field in ("driver", "allowMultipleAllocations"):
        out.add((node.field,))
        return
    if isinstance(node, Ident):
        if node.name == "device" and "device" not in scope:
            out.add(("*",))
        return
    if isinstance(node, Call) and node.target is not None and node.args and isinstance(node.args[0], Ident):
        scope = scope | {a.name for a in node.args[:2] if isinstance(a, Ident)}
    for child in _children(node):
        _walk(child, scope, out)


def _children(node: Node) -> list[Node]:
    kids: list[Node] = []
    for name in ("operand", "index", "target"):
        v = getattr(node, name, None)
        if isinstance(v, Node):
            kids.append(v)
    kids.extend(getattr(node, "args", ()) or ())
    kids.extend(getattr(node, "items", ()) or ())
    for k, v in getattr(node, "entries", ()) or ():
        kids.extend((k, v))
    return kids


def height(node: Node) -> int:
    """The nesting depth of a syntax tree (counted without recursion)."""
    best = 0
    stack = [(node, 1)]
    while stack:
        n, level = stack.pop()
        best = max(best, level)
        stack.extend((c, level + 1) for c in _children(n))
    return best


def _getter(path: Path) -> KeyFn:
    if path == ("driver",):
        return lambda v: v.driver
    if path == ("allowMultipleAllocations",):
        return lambda v: v.allow_multiple_allocations
    kind, dom, ident = path
    qualified = f"{dom}/{ident}"
    if kind == "attributes":
        def attr(v: DeviceView) -> Any:
            a = v.attributes.get(qualified)
            if a is None and v.driver == dom:
                a = v.attributes.get(ident)
            return attr_key(a)
        return attr

    def cap(v: DeviceView) -> Any:
        q = v.capacity.get(qualified)
        if q is None:
            if v.driver != dom:
                return None
            q = v.capacity.get(ident)
            if q is None:
                return None
        f = q.value
        return f.numerator, f.denominator
    return cap


def projection(paths: set[Path]) -> KeyFn:
    if ("*",) in paths or not paths:
        return DeviceView.signature if paths else (lambda v: ())
    getters = [_getter(p) for p in sorted(paths)]
    if len(getters) == 1:
        g = getters[0]
        return g
    if len(getters) == 2:
        g0, g1 = getters
        return lambda v: (g0(v), g1(v))
    if len(getters) == 3:
        h0, h1, h2 = getters
        return lambda v: (h0(v), h1(v), h2(v))
    return lambda v: tuple(g(v) for g in getters)


def _evict_oldest(cache: dict[Any, Any]) -> None:
    """Drop the oldest entry; another thread evicting or adding at the same
    moment is no error (the caches are shared by every thread)."""
    try:
        del cache[next(iter(cache))]
    except (KeyError, RuntimeError, StopIteration):
        pass


class CompiledSelector:
    """One compiled selector expression with its verdict cache."""

    def __init__(self, expression: str) -> None:
        self.expression = expression
        size = len(expression.encode("utf-8", "surrogatepass"))   # Kubernetes counts bytes
        if size > MAX_EXPRESSION_LENGTH:
            raise CELCompileError(
                f"expression too long ({size} bytes, maximum is {MAX_EXPRESSION_LENGTH})")
        ast = parse(expression)
        self.height = height(ast)
        try:
            with room(self.height):
                self._check_result(check(ast))
                self._program = compile_node(ast)
                self.paths = frozenset(reads(ast))
        except CELRuntimeError as e:  # raised by the compiler for malformed macros
            raise CELCompileError(f"ERROR: <input>:1:1: {e}") from None
        self.projection_key: KeyFn = projection(set(self.paths))
        self._cache: dict[Any, Any] = {}
        self.evaluations = 0

    def _check_result(self, rtype: str) -> None:
        """Refuse an expression whose static type cannot be a verdict."""
        if not result_type_ok(rtype):
            raise CELCompileError(f"must evaluate to bool or the unknown type, not {rtype}")

    def _finish(self, value: Any) -> Any:
        """The evaluation's answer (a runtime error value when it has none)."""
        if value is True or value is False:
            return bool(value)
        return CELRuntimeError(f"CEL result of type {type_name(value)} could not be converted to bool")

    def evaluate(self, device: DeviceView) -> Any:
        """The verdict for ``device``; raises CELRuntimeError (fatal for the allocation)."""
        err = device.memo.get("err")
        if err is None:
            err = device.attribute_error()
        if err:
            raise CELRuntimeError(err)
        key = self.projection_key(device)
        r = self._cache.get(key)
        if r is None:
            r = self._run(device)
            cache = self._cache
            if len(cache) >= VERDICT_CACHE_SIZE:
                _evict_oldest(cache)
            cache[key] = r
        if isinstance(r, CELRuntimeError):
            raise r
        return r

    def _run(self, device: DeviceView) -> Any:
        self.evaluations += 1
        env = Env({"device": device.cel_value()})
        try:
            if self.height > SHALLOW:
                with room(self.height):
                    value = run_metered(self._program, env)
            else:
                value = run_metered(self._program, env)
        except CELRuntimeError as e:
            return e
        return self._finish(value)

    def evaluate_uncached(self, device: DeviceView) -> Any:
        """Evaluate without the verdict cache (for tests and benchmarks)."""
        err = device.attribute_error()
        if err:
            raise CELRuntimeError(err)
        r = self._run(device)
        if isinstance(r, CELRuntimeError):
            raise r
        return r

    def clear_cache(self) -> None:
        self._cache.clear()


_selectors: dict[str, CompiledSelector | CELCompileError] = {}
_T = TypeVar("_T")


def compiled(cache: dict[str, Any], expression: str, make: Callable[[str], _T]) -> _T:
    """``make(expression)``, kept in ``cache`` per string (compile errors too,
    raised again each time), the oldest dropped at SELECTOR_CACHE_SIZE."""
    s = cache.get(expression)
    if s is None:
        try:
            s = make(expression)
        except CELCompileError as e:
            s = e
        if len(cache) >= SELECTOR_CACHE_SIZE:
            _evict_oldest(cache)
        cache[expression] = s
    if isinstance(s, CELCompileError):
        raise CELCompileError(str(s))
    return s  # type: ignore[no-any-return]


def compile_selector(expression: str) -> CompiledSelector:
    """The compiled selector for ``expression`` (cached per string)."""
    return compiled(_selectors, expression, CompiledSelector)
