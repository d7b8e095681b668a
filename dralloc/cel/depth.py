"""Nesting limits, as cel-go's parser enforces them (Kubernetes keeps its
default of 250), and room on the Python stack for what is within them.

cel-go refuses an expression in two ways, both counted here on the parse
tree, without recursion, before anything else looks at it:

* ``expression recursion limit exceeded: 250`` — one grammar rule nested more
  than 250 times along a path (parentheses, list and map literals, call
  arguments, chains like ``1 + 1 + …`` or ``a.b.c…``); chains of ``||``,
  ``&&`` and of unary ``!``/``-`` count once (cel-go's grammar lists them);
* ``max recursion depth exceeded`` — more than 250 operators, field
  selections, method calls and index operations nested in one another.

Within those limits dralloc's own passes (building the syntax tree, the
checker, the closures, evaluation) recurse a few Python frames per level;
:func:`room` makes sure the interpreter's recursion limit leaves space for
them, wherever the caller's stack already is."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import lark

from dralloc.cel.errors import CELCompileError

MAX_DEPTH = 250
FRAMES_PER_LEVEL = 8            # the most any pass uses per nesting level (measured: 4-6)
SHALLOW = 30                    # nesting that always fits: no room needed
_LISTENER = {"expr": "expr", "conditionalor": "or", "conditionaland": "and", "relation": "relation",
             "addition": "calc", "multiplication": "calc", "unary": "unary", "member": "member",
             "primary": "primary", "exprlist": "exprlist", "mapinits": "mapinits"}
_ONCE_PER_CHAIN = {"or", "and", "unary"}
_VISITED = {"member_dot", "member_dot_arg", "member_index", "member_dot_opt", "member_index_opt"}


def _rule(t: lark.Tree, parent: lark.Tree | None) -> str | None:
    """The cel-go grammar rule ``t`` enters (None: no new rule)."""
    kind = _LISTENER.get(t.data)  # type: ignore[arg-type]
    if kind is None or parent is None:
        return kind
    pkind = _LISTENER.get(parent.data)  # type: ignore[arg-type]
    if kind in _ONCE_PER_CHAIN and pkind == kind:
        return None
    if kind == "calc" and pkind == "calc" and len(t.children) == 1:
        return None   # a pass-through (1 child) inside an addition is the same calc rule
    return kind


def _visited(t: lark.Tree) -> bool:
    """Whether cel-go's visitor counts ``t`` towards its depth."""
    if t.data in _VISITED:
        return True
    return t.data in ("expr", "relation", "addition", "multiplication") and len(t.children) > 1


def check_tree(tree: lark.Tree) -> int:
    """Refuse a parse tree beyond cel-go's limits; return its height."""
    counts: dict[str, int] = {}
    visited = height = 0
    stack: list[tuple[Any, Any, int]] = [(tree, None, 0)]
    while stack:
        node, parent, level = stack.pop()
        if level < 0:          # leaving ``node``: undo what entering it counted
            kind, v = parent
            if kind:
                counts[kind] -= 1
            visited -= v
            continue
        kind = _rule(node, parent)
        v = int(_visited(node))
        if kind:
            counts[kind] = counts.get(kind, 0) + 1
            if counts[kind] > MAX_DEPTH:
                raise CELCompileError(f"ERROR: <input>:-1:0: expression recursion limit exceeded: {MAX_DEPTH}")
        visited += v
        if visited > MAX_DEPTH:
            raise CELCompileError("ERROR: <input>:-1:0: max recursion depth exceeded")
        height = max(height, level + 1)
        stack.append((node, (kind, v), -1))
        stack.extend((c, node, level + 1) for c in reversed(node.children) if isinstance(c, lark.Tree))
    return height


def frame_depth() -> int:
    """Python frames on the stack now."""
    f = sys._getframe(1)
    n = 0
    while f is not None:
        n += 1
        f = f.f_back  # type: ignore[assignment]
    return n


_limit_lock = threading.Lock()
_needs: list[int] = []        # the limits asked for by the blocks inside room() now, in any thread
_outside = [0]                # the limit before the first of them


@contextmanager
def room(levels: int) -> Iterator[None]:
    """Make sure ``levels`` nesting levels of recursion fit on the stack from
    here, for the duration of the block. The recursion limit is one for the
    process: while blocks of several threads are open it is the largest any
    of them needs, and after the last one it is back to what it was (unless
    something else raised it meanwhile)."""
    if levels <= SHALLOW:
        yield
        return
    need = frame_depth() + FRAMES_PER_LEVEL * levels + 200
    with _limit_lock:
        if not _needs:
            _outside[0] = sys.getrecursionlimit()
        _needs.append(need)
        if need > sys.getrecursionlimit():
            sys.setrecursionlimit(need)
    try:
        yield
    finally:
        with _limit_lock:
            _needs.remove(need)
            target = max([_outside[0], *_needs])
            if sys.getrecursionlimit() == max(target, need) and target < need:
                sys.setrecursionlimit(target)
