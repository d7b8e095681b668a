"""Large List documents item by item.

``kubectl get ... -o json`` and ``-o yaml`` write a whole cluster as one
List document. Parsing it at once holds every raw item in memory next to the
models built from them; cut into items, only one raw item lives at a time.

The cut relies on the layout kubectl (and every pretty-printer) writes —
items at one indentation, each starting and ending on its own line — and is
checked: the envelope (the List without its items) must parse and be a List,
the text between items must be only separators, and each item is parsed on
its own (:mod:`dralloc.io.parse` reads the whole document again if an item
does not parse). Anything else (compact JSON, hand-written YAML) is parsed
whole, as before."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

SPLIT_ABOVE = 1 << 20  # documents smaller than this are parsed whole
_JSON_ITEMS = re.compile(rb'\n([ \t]*)"items":[ \t]*\[[ \t]*\r?\n([ \t]*)\{')
_YAML_ITEMS = re.compile(rb"(?:\A|\n)items:[ \t]*\r?\n- ")
_YAML_AFTER = re.compile(rb"\n[^ \-\n\r]")


@dataclass
class ListCut:
    envelope: bytes                        # the List's text without its items ("items: []")
    items: list[tuple[int, int, int]]      # (start, end, line) of each item's text


def _line_at(data: bytes, at: int, base: int, cache: list[int]) -> int:
    """Line number of offset ``at`` (counting on from the previous call)."""
    pos, line = cache
    line += data.count(b"\n", pos, at)
    cache[:] = [at, line]
    return base + line


def cut_json(data: bytes, base_line: int) -> ListCut | None:
    """The items of a pretty-printed JSON List, or None."""
    if len(data) < SPLIT_ABOVE:
        return None
    m = _JSON_ITEMS.search(data, 0, 1 << 16)
    if m is None:
        return None
    top, indent = m.group(1), m.group(2)
    close = b"\n" + indent + b"}"
    items: list[tuple[int, int, int]] = []
    lines = [0, 0]
    start = m.end() - 1
    while True:
        end = data.find(close, start)
        if end < 0:
            return None
        end += len(close)
        items.append((start, end, _line_at(data, start, base_line, lines)))
        sep = data[end:end + 2 + len(indent) + 2]
        if sep.startswith(b",\n" + indent + b"{"):
            start = end + 2 + len(indent)
            continue
        tail = end
        break
    rest = data[tail:].lstrip()
    if not rest.startswith(b"]") or not top:
        return None
    return ListCut(data[:m.end() - 1 - len(indent)].rstrip() + rest, items)


def cut_yaml(data: bytes, base_line: int) -> ListCut | None:
    """The items of a kubectl-style YAML List (``items:`` at column 0, each
    item a ``- `` entry at column 0), or None."""
    if len(data) < SPLIT_ABOVE:
        return None
    m = _YAML_ITEMS.search(data)
    if m is None:
        return None
    first = m.end() - 2
    after = _YAML_AFTER.search(data, first)
    end_all = after.start() + 1 if after else len(data)
    starts = [first]
    at = data.find(b"\n- ", first)
    while 0 <= at < end_all:
        starts.append(at + 1)
        at = data.find(b"\n- ", at + 1)
    lines = [0, 0]
    items = [(s, e, _line_at(data, s, base_line, lines)) for s, e in zip(starts, [*starts[1:], end_all], strict=True)]
    head = data[:m.start()] + (b"\n" if m.start() else b"")
    return ListCut(head + b"items: []\n" + data[end_all:], items)


def is_list_envelope(value: Any) -> bool:
    """Whether ``value`` is a List whose items were cut out."""
    kind = value.get("kind") if isinstance(value, dict) else None
    return isinstance(kind, str) and kind.endswith("List") and value.get("items") == []
