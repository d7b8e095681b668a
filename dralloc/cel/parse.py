"""Parsing: cel-python's Lark grammar, extended with CEL optional syntax
(``x.?f``, ``x[?k]``), turned into a small immutable AST."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import celpy
import lark
from celpy.evaluation import celbytes, celstr

from dralloc.cel import tables
from dralloc.cel.depth import check_tree, room
from dralloc.cel.errors import CELCompileError
from dralloc.cel.values import UInt


@dataclass(frozen=True, slots=True)
class Node:
    line: int
    col: int


@dataclass(frozen=True, slots=True)
class Lit(Node):
    value: Any


@dataclass(frozen=True, slots=True)
class Ident(Node):
    name: str


@dataclass(frozen=True, slots=True)
class Select(Node):
    operand: Node
    field: str
    optional: bool = False


@dataclass(frozen=True, slots=True)
class Index(Node):
    operand: Node
    index: Node
    optional: bool = False


@dataclass(frozen=True, slots=True)
class Call(Node):
    """Function call; ``target`` is the receiver of ``x.f(...)``, else None.
    Operators are calls too, named ``_&&_``, ``_==_``, ``!_``, ``-_`` ..."""

    fn: str
    target: Node | None
    args: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class ListLit(Node):
    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class MapLit(Node):
    entries: tuple[tuple[Node, Node], ...]


_OPS = {
    "relation_lt": "_<_", "relation_le": "_<=_", "relation_gt": "_>_", "relation_ge": "_>=_",
    "relation_eq": "_==_", "relation_ne": "_!=_", "relation_in": "@in",
    "addition_add": "_+_", "addition_sub": "_-_",
    "multiplication_mul": "_*_", "multiplication_div": "_/_", "multiplication_mod": "_%_",
}

_PASS = frozenset({"expr", "conditionalor", "conditionaland", "relation", "addition",
                   "multiplication", "unary", "member", "primary", "paren_expr"})
_PARSER: lark.Lark | None = None


def _grammar() -> str:
    text = (Path(celpy.__file__).parent / "cel.lark").read_text()
    text = text.replace(
        "member         : member_dot | member_dot_arg | member_index | member_object | primary",
        "member         : member_dot | member_dot_arg | member_index | member_object | primary\n"
        "               | member_dot_opt | member_index_opt\n"
        'member_dot_opt : member ".?" IDENT\n'
        'member_index_opt : member "[" "?" expr "]"',
    )
    if "member_dot_opt" not in text:  # pragma: no cover - grammar changed upstream
        raise RuntimeError("unexpected cel-python grammar; cannot add optional syntax")
    return text


def _literal_callback(t: lark.Token) -> lark.Token:
    if t.value in ("true", "false"):
        return lark.Token("BOOL_LIT", t.value)
    return t


def parser() -> lark.Lark:
    global _PARSER
    if _PARSER is None:
        _PARSER = tables.parser(  # the LALR tables kept between processes
            _grammar(), {"IDENT": _literal_callback}, parser="lalr", start="expr", g_regex_flags=re.M,
            propagate_positions=True, maybe_placeholders=False, priority="invert",
        )
    return _PARSER


def parse(text: str) -> Node:
    """Parse ``text``; raise :class:`CELCompileError` on a syntax error."""
    try:
        tree = parser().parse(text)
    except lark.exceptions.UnexpectedInput as e:
        tok = getattr(e, "token", None)
        what = f"mismatched input {str(tok)!r}" if tok is not None else "token recognition error"
        if tok is not None and getattr(tok, "type", "") == "$END":
            what = "mismatched input '<EOF>'"
        raise CELCompileError(f"ERROR: <input>:{e.line}:{e.column}: Syntax error: {what}") from None
    except lark.exceptions.LarkError as e:
        raise CELCompileError(f"ERROR: <input>:1:1: Syntax error: {e}") from None
    except RecursionError:  # pragma: no cover - the LALR parser does not recurse
        raise CELCompileError("ERROR: <input>:1:1: expression nested too deeply") from None
    height = check_tree(tree)   # cel-go's nesting limits, before anything recurses
    with room(height):
        return _Builder(text).build(tree)


def _pos(t: Any) -> tuple[int, int]:
    meta = getattr(t, "meta", None)
    if meta is not None and not meta.empty:
        return meta.line, meta.column
    return getattr(t, "line", 1) or 1, getattr(t, "column", 1) or 1


class _Builder:
    def __init__(self, text: str = "") -> None:
        self.lines = text.split("\n")

    def _open(self, name: Any) -> tuple[int, int]:
        """Where the ``(`` after the function name ``name`` (a token) is: cel-go
        places a call there (so do its errors)."""
        line, col = getattr(name, "end_line", None), getattr(name, "end_column", None)
        if line is None or col is None:
            return _pos(name)
        while line <= len(self.lines):
            text = self.lines[line - 1]
            while col <= len(text) and text[col - 1] in " \t\r\f":
                col += 1
            if col <= len(text):
                return line, col
            line, col = line + 1, 1
        return _pos(name)

    def build(self, t: Any) -> Node:
        while t.data in _PASS and len(t.children) == 1:
            t = t.children[0]
        return getattr(self, "_" + t.data)(t)  # type: ignore[no-any-return]

    def _chain(self, t: lark.Tree, op: str) -> Node:
        if len(t.children) == 1:
            return self.build(t.children[0])
        left, right = self.build(t.children[0]), self.build(t.children[1])
        return Call(*_pos(t), op, None, (left, right))

    def _expr(self, t: lark.Tree) -> Node:
        if len(t.children) == 1:
            return self.build(t.children[0])
        c, a, b = (self.build(x) for x in t.children)
        return Call(*_pos(t), "_?_:_", None, (c, a, b))

    def _logic(self, t: lark.Tree, op: str) -> Node:
        """A chain ``a || b || c`` (or ``&&``) as cel-go builds it: a balanced
        tree of calls, so a long chain is not a deep one."""
        operands = []
        node = t
        while len(node.children) == 2 and getattr(node.children[0], "data", None) == t.data:
            operands.append(node.children[1])
            node = node.children[0]
        operands.extend(reversed(node.children))
        terms = [self.build(o) for o in reversed(operands)]
        return _balanced(terms, op, *_pos(t))

    def _conditionalor(self, t: lark.Tree) -> Node:
        return self._logic(t, "_||_")

    def _conditionaland(self, t: lark.Tree) -> Node:
        return self._logic(t, "_&&_")

    def _binary(self, t: lark.Tree) -> Node:
        if len(t.children) == 1:
            return self.build(t.children[0])
        op_tree, right = t.children
        op = _OPS[op_tree.data]
        left = self.build(op_tree.children[0])
        r = self.build(right)
        if op == "@in":
            return Call(*_pos(op_tree), "@in", None, (left, r))
        return Call(*_pos(op_tree), op, None, (left, r))

    _relation = _addition = _multiplication = _binary

    def _unary(self, t: lark.Tree) -> Node:
        """``!!x`` is ``x`` and ``--x`` is ``x`` (cel-go counts the operators);
        ``-`` directly before a number literal makes a negative literal."""
        ops: list[str] = []
        node = t
        while len(node.children) == 2 and getattr(node.children[1], "data", None) == "unary":
            ops.append(node.children[0].data)
            node = node.children[1]
        inner = self.build(node.children[0] if len(node.children) == 1 else node)
        for op, n in reversed([(k, len(list(g))) for k, g in itertools.groupby(ops)]):
            if n % 2 == 0:
                continue
            if op == "unary_neg" and isinstance(inner, Lit) and type(inner.value) in (int, float) \
                    and _direct_literal(node):
                inner = Lit(inner.line, inner.col, -inner.value)
            else:
                inner = Call(*_pos(t), "!_" if op == "unary_not" else "-_", None, (inner,))
        return inner

    def _member(self, t: lark.Tree) -> Node:
        return self.build(t.children[0])

    _primary = _member

    def _member_dot(self, t: lark.Tree) -> Node:
        return Select(*_pos(t), self.build(t.children[0]), str(t.children[1]))

    def _member_dot_opt(self, t: lark.Tree) -> Node:
        return Select(*_pos(t), self.build(t.children[0]), str(t.children[1]), True)

    def _member_dot_arg(self, t: lark.Tree) -> Node:
        args = self._args(t.children[2]) if len(t.children) > 2 else ()
        return Call(*self._open(t.children[1]), str(t.children[1]), self.build(t.children[0]), args)

    def _member_index(self, t: lark.Tree) -> Node:
        return Index(*_pos(t), self.build(t.children[0]), self.build(t.children[1]))

    def _member_index_opt(self, t: lark.Tree) -> Node:
        return Index(*_pos(t), self.build(t.children[0]), self.build(t.children[1]), True)

    def _member_object(self, t: lark.Tree) -> Node:
        raise CELCompileError(f"ERROR: <input>:{_pos(t)[0]}:{_pos(t)[1]}: message construction is not supported")

    def _args(self, t: lark.Tree) -> tuple[Node, ...]:
        return tuple(self.build(c) for c in t.children)

    def _ident_arg(self, t: lark.Tree) -> Node:
        args = self._args(t.children[1]) if len(t.children) > 1 else ()
        return Call(*self._open(t.children[0]), str(t.children[0]), None, args)

    def _dot_ident_arg(self, t: lark.Tree) -> Node:
        return self._ident_arg(t)

    def _dot_ident(self, t: lark.Tree) -> Node:
        return Ident(*_pos(t), str(t.children[0]))

    def _ident(self, t: lark.Tree) -> Node:
        name = str(t.children[0])
        if name == "null":
            return Lit(*_pos(t), None)
        return Ident(*_pos(t), name)

    def _paren_expr(self, t: lark.Tree) -> Node:
        return self.build(t.children[0])

    def _list_lit(self, t: lark.Tree) -> Node:
        items = self._args(t.children[0]) if t.children else ()
        return ListLit(*_pos(t), items)

    def _map_lit(self, t: lark.Tree) -> Node:
        flat = self._args(t.children[0]) if t.children else ()
        return MapLit(*_pos(t), tuple(zip(flat[::2], flat[1::2], strict=True)))

    def _literal(self, t: lark.Tree) -> Node:
        tok = t.children[0]
        assert isinstance(tok, lark.Token)
        return Lit(*_pos(tok), _literal_value(tok))


def _balanced(terms: list[Node], op: str, line: int, col: int) -> Node:
    """cel-go's balancer: the middle operator at the root, halves below it."""
    def tree(lo: int, hi: int) -> Node:   # operators lo..hi join terms lo..hi+1
        mid = (lo + hi + 1) // 2
        left = terms[mid] if mid == lo else tree(lo, mid - 1)
        right = terms[mid + 1] if mid == hi else tree(mid + 1, hi)
        return Call(line, col, op, None, (left, right))
    return terms[0] if len(terms) == 1 else tree(0, len(terms) - 2)


def _direct_literal(t: Any) -> bool:
    """Whether ``t`` (a pass-through unary) is a literal token, not a
    parenthesised expression."""
    while isinstance(t, lark.Tree):
        if t.data == "literal":
            return True
        if len(t.children) != 1 or t.data == "paren_expr":
            return False
        t = t.children[0]
    return False


# cel-go writes each escaped code point as UTF-8 (Go's utf8.EncodeRune), and a
# surrogate, which UTF-8 cannot hold, as U+FFFD: "\uD800" == "\uFFFD" in Kubernetes
_SURROGATE = re.compile("[\ud800-\udfff]")


def _literal_value(tok: lark.Token) -> Any:
    kind, text = tok.type, tok.value
    try:
        if kind == "BOOL_LIT":
            return text == "true"
        if kind == "NULL_LIT":
            return None
        if kind == "INT_LIT":
            return int(text, 0) if "x" in text else int(text)
        if kind == "UINT_LIT":
            return UInt(int(text[:-1], 0) if "x" in text else int(text[:-1]))
        if kind == "FLOAT_LIT":
            return float(text)
        if kind in ("STRING_LIT", "MLSTRING_LIT"):
            return _SURROGATE.sub("\ufffd", str(celstr(tok)))
        if kind == "BYTES_LIT":
            return bytes(celbytes(tok))
    except ValueError as e:
        raise CELCompileError(f"ERROR: <input>:{tok.line}:{tok.column}: invalid literal: {e}") from None
    raise CELCompileError(f"ERROR: <input>:{tok.line}:{tok.column}: unsupported literal {text!r}")
