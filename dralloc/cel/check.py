"""A light static checker in the spirit of cel-go's: undeclared identifiers and
functions, unknown ``device`` fields, operator operands of clearly wrong
types, and the selector result type. Types are strings; ``dyn`` is unknown."""

from __future__ import annotations

from typing import Any

from dralloc.cel.errors import CELCompileError, CELRuntimeError
from dralloc.cel.interp import NAMESPACES, TYPE_NAMES
from dralloc.cel.library import GLOBAL, MEMBER, RETURNS
from dralloc.cel.macros import is_macro, macro_vars
from dralloc.cel.ops import OPERATORS
from dralloc.cel.parse import Call, Ident, Index, ListLit, Lit, MapLit, Node, Select
from dralloc.cel.values import INT64_MAX, INT64_MIN, UINT64_MAX, CelType, type_name

DEVICE_FIELDS = {"driver": "string", "attributes": "map(string, map(string, dyn))",
                 "capacity": "map(string, map(string, kubernetes.Quantity))",
                 "allowMultipleAllocations": "bool"}
_NUMERIC = {"int", "uint", "double"}
_PRIMS = {"bool", "int", "uint", "double", "string", "bytes", "kubernetes.Quantity", "kubernetes.Semver",
          "net.IP", "net.CIDR", "kubernetes.URL", "google.protobuf.Timestamp", "google.protobuf.Duration",
          "kubernetes.NamedFormat"}
_RET = {
    "size": "int", "contains": "bool", "startsWith": "bool", "endsWith": "bool", "matches": "bool",
    "int": "int", "uint": "uint", "double": "double", "string": "string", "bool": "bool",
    "bytes": "bytes", "type": "type", "quantity": "kubernetes.Quantity", "isQuantity": "bool",
    "semver": "kubernetes.Semver", "isSemver": "bool", "isInteger": "bool", "asInteger": "int",
    "asApproximateFloat": "double", "sign": "int", "add": "kubernetes.Quantity",
    "sub": "kubernetes.Quantity", "compareTo": "int", "isLessThan": "bool",
    "isGreaterThan": "bool", "major": "int", "minor": "int", "patch": "int", "find": "string",
    "findAll": "list(string)", "includes": "bool", "charAt": "string", "indexOf": "int",
    "lastIndexOf": "int", "lowerAscii": "string", "upperAscii": "string", "replace": "string",
    "split": "list(string)", "substring": "string", "trim": "string", "join": "string",
    "strings.quote": "string", "lists.range": "list(int)", "isSorted": "bool",
    "sets.contains": "bool", "sets.equivalent": "bool", "sets.intersects": "bool",
    "hasValue": "bool", "optional.of": "optional_type", "optional.none": "optional_type",
    "optional.ofNonZeroValue": "optional_type",
    **RETURNS,
}


def _err(node: Node, msg: str) -> CELCompileError:
    return CELCompileError(f"ERROR: <input>:{node.line}:{node.col}: {msg}")


def check(node: Node, scope: dict[str, str] | None = None) -> str:
    return _Checker().visit(node, scope or {})


def _elem(t: str) -> str:
    if t.startswith("list(") and t.endswith(")"):
        return t[5:-1]
    if t.startswith("map("):
        return t[4:].split(", ", 1)[1][:-1] if ", " in t else "dyn"
    return "dyn"


def _lit_type(v: Any) -> str:
    return "null_type" if v is None else type_name(v)


class _Checker:
    def visit(self, node: Node, scope: dict[str, str]) -> str:
        if isinstance(node, Lit):
            if isinstance(node.value, int) and not isinstance(node.value, bool):
                hi = UINT64_MAX if type_name(node.value) == "uint" else INT64_MAX
                if not INT64_MIN <= node.value <= hi:
                    raise _err(node, "invalid int literal")
            return _lit_type(node.value)
        if isinstance(node, Ident):
            return self._ident(node, scope)
        if isinstance(node, Select):
            return self._select(node, scope)
        if isinstance(node, Index):
            t = self.visit(node.operand, scope)
            self.visit(node.index, scope)
            return "optional_type" if node.optional else _elem(t)
        if isinstance(node, ListLit):
            types = {self.visit(i, scope) for i in node.items}
            return f"list({types.pop()})" if len(types) == 1 else "list(dyn)"
        if isinstance(node, MapLit):
            for k, v in node.entries:
                self.visit(k, scope)
                self.visit(v, scope)
            return "map(dyn, dyn)"
        assert isinstance(node, Call)
        return self._call(node, scope)

    def _ident(self, node: Ident, scope: dict[str, str]) -> str:
        if node.name in scope:
            return scope[node.name]
        if node.name == "device":
            return "device"
        if node.name in TYPE_NAMES:
            return "type"
        raise _err(node, f"undeclared reference to '{node.name}' (in container '')")

    def _select(self, node: Select, scope: dict[str, str]) -> str:
        t = self.visit(node.operand, scope)
        if t == "device":
            if node.field not in DEVICE_FIELDS:
                raise _err(node, f"undefined field '{node.field}'")
            return DEVICE_FIELDS[node.field]
        if t in _PRIMS or t.startswith("list("):
            raise _err(node, f"type '{t}' does not support field selection")
        return "optional_type" if node.optional else _elem(t)

    def _call(self, node: Call, scope: dict[str, str]) -> str:
        fn, target = node.fn, node.target
        if target is None and fn in OPERATORS:
            return self._operator(node, [self.visit(a, scope) for a in node.args])
        if target is None and fn == "has":
            if len(node.args) != 1 or not isinstance(node.args[0], Select):
                raise _err(node, "invalid argument to has() macro")
            self.visit(node.args[0], scope)
            return "bool"
        if is_macro(node):
            return self._macro(node, scope)
        if isinstance(target, Ident) and target.name in NAMESPACES and target.name not in scope:
            if target.name == "cel" and fn == "bind" and len(node.args) == 3 and isinstance(node.args[0], Ident):
                inner = dict(scope, **{node.args[0].name: self.visit(node.args[1], scope)})
                return self.visit(node.args[2], inner)
            return self._function(node, f"{target.name}.{fn}", GLOBAL, node.args, scope)
        if target is None:
            return self._function(node, fn, GLOBAL, node.args, scope)
        return self._function(node, fn, MEMBER, (target, *node.args), scope)

    def _function(self, node: Call, name: str, table: dict[str, Any], args: tuple[Node, ...],
                  scope: dict[str, str]) -> str:
        if name not in table and not (table is MEMBER and name in GLOBAL or table is GLOBAL and name in MEMBER):
            if table is MEMBER:   # cel-go reports the errors by place: the receiver's, then the call's (at its "(")
                self.visit(args[0], scope)
            raise _err(node, f"undeclared reference to '{name}' (in container '')")
        types = [self.visit(a, scope) for a in args]
        if name not in table:
            if table is MEMBER and name in GLOBAL or table is GLOBAL and name in MEMBER:
                sig = ", ".join(types)
                raise _err(node, f"found no matching overload for '{name}' applied to '({sig})'")
            raise _err(node, f"undeclared reference to '{name}' (in container '')")
        if name in ("orValue", "value") and types[0] == "optional_type":
            return "dyn"
        return _RET.get(name, "dyn")

    def _macro(self, node: Call, scope: dict[str, str]) -> str:
        assert node.target is not None
        t = self.visit(node.target, scope)
        try:
            names = [v.name for v in macro_vars(node)]
        except CELRuntimeError as e:
            raise CELCompileError(str(e)) from None
        two = len(names) == 2
        inner = dict(scope)
        for n in names:
            inner[n] = "dyn"
        if not two and t.startswith("list("):
            inner[names[0]] = _elem(t)
        body = [self.visit(a, inner) for a in node.args[len(names):]]
        if node.fn in ("all", "exists", "exists_one", "existsOne"):
            return "bool"
        if node.fn in ("optMap", "optFlatMap"):
            return "optional_type"
        if node.fn == "filter" or node.fn == "sortBy":
            return t
        if node.fn == "transformMap":
            return "map(dyn, dyn)"
        return f"list({body[-1]})" if body else "list(dyn)"

    def _operator(self, node: Call, types: list[str]) -> str:
        fn = node.fn
        known = [t for t in types if t != "dyn"]
        if fn in ("_&&_", "_||_", "!_"):
            if any(t != "bool" for t in known):
                raise _err(node, f"found no matching overload for '{fn}' applied to '({', '.join(types)})'")
            return "bool"
        if fn == "_?_:_":
            if types[0] not in ("bool", "dyn"):
                raise _err(node, f"found no matching overload for '_?_:_' applied to '({', '.join(types)})'")
            return types[1] if types[1] == types[2] else "dyn"
        if fn in ("_==_", "_!=_", "@in"):
            if fn != "@in" and len(known) == 2 and known[0] != known[1] and set(known) <= _PRIMS:
                if not set(known) <= _NUMERIC:
                    raise _err(node, f"found no matching overload for '{fn}' applied to '({', '.join(types)})'")
            return "bool"
        if fn in ("_<_", "_<=_", "_>_", "_>=_"):
            ordered = _NUMERIC | {"string", "bytes", "bool", _TS, _DUR}
            bad = any(t not in ordered and t != "dyn" for t in types) or (
                len(known) == 2 and known[0] != known[1] and not set(known) <= _NUMERIC)
            if bad:
                raise _err(node, f"found no matching overload for '{fn}' applied to '({', '.join(types)})'")
            return "bool"
        if fn == "-_":
            return types[0]
        if fn in ("_+_", "_-_") and (_TS in known or _DUR in known):
            return _time_arith(node, fn, types)
        if len(known) == 2 and known[0] != known[1]:
            raise _err(node, f"found no matching overload for '{fn}' applied to '({', '.join(types)})'")
        return known[0] if known else "dyn"


_TS, _DUR = "google.protobuf.Timestamp", "google.protobuf.Duration"
_TIME_ARITH = {("_+_", _TS, _DUR): _TS, ("_+_", _DUR, _TS): _TS, ("_+_", _DUR, _DUR): _DUR,
               ("_-_", _TS, _TS): _DUR, ("_-_", _TS, _DUR): _TS, ("_-_", _DUR, _DUR): _DUR}


def _time_arith(node: Call, fn: str, types: list[str]) -> str:
    if "dyn" in types:
        return "dyn"
    out = _TIME_ARITH.get((fn, types[0], types[1]))
    if out is None:
        raise _err(node, f"found no matching overload for '{fn}' applied to '({', '.join(types)})'")
    return out


def result_type_ok(t: str) -> bool:
    return t in ("bool", "dyn")


__all__ = ["check", "result_type_ok", "CelType"]
