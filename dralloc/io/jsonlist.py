"""Large JSON Lists read from a file item by item, in blocks.

``kubectl get -o json`` writes a whole cluster as one List document, and
``dralloc generate -o json`` writes one too (an item per line). Parsed at
once, the raw items of 5,000 nodes take many gigabytes before a single model
is built; read here, only one block of the file and one raw item live at a
time, whatever the layout: an item per line, kubectl's indented items, or
everything on one line.

How an item is found without a JSON tokenizer: the item starting at offset
``s`` (a ``{``) is the one JSON value that starts there, so a piece
``data[s:e]`` that parses as one value *is* the item (a proper prefix of an
object never parses, a piece running past the item holds the ``,`` that
follows it). Candidate ends come from the layout -- the end of the line,
kubectl's closing brace at the item's indentation, a ``}`` followed by
``,{"apiVersion"`` or ``,{"kind"`` -- and are tried in turn, each checked
by parsing. The List's envelope (everything but the items) is checked first,
from the file's head and tail: ``"items"`` must be a key of the top-level
object and the envelope a List. Anything else -- an item no candidate
delimits, an item over :data:`MAX_ITEM` bytes -- stops the reader, and the
caller reads the document whole (:mod:`dralloc.io.parse`), as before."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

import orjson

from dralloc.errors import InputError
from dralloc.io.lists import SPLIT_ABOVE, is_list_envelope

HEAD = TAIL = 1 << 16        # bytes read to check the envelope
BLOCK = 4 << 20              # bytes read at a time
MAX_ITEM = 256 << 20         # an item larger than this is left to the whole-document path
MAX_TRIES = 64               # candidate ends tried for one item
WINDOW = 16 << 20            # bytes searched for the end of a line or kubectl's closing brace
_ITEMS = re.compile(rb'"items"[ \t\r\n]*:[ \t\r\n]*\[')
_NEXT = re.compile(rb'\}[ \t\r\n]*,[ \t\r\n]*\{[ \t\r\n]*"(?:apiVersion|kind)"[ \t\r\n]*:')
_WS = b" \t\r\n"

Parse = Callable[[bytes, int], Any]   # one item's bytes and first line -> its value; raises if not one value


@dataclass
class Envelope:
    start: int    # offset just after the items' "["
    end: int      # offset of the items' closing "]"
    line: int     # line of ``start``, from 1


def envelope(stream: BinaryIO) -> Envelope | None:
    """Where the items of the JSON List in ``stream`` are, or None (not a
    file, too small, not a List, or a layout this reader does not know)."""
    if not stream.seekable():
        return None
    size = stream.seek(0, 2)
    if size < SPLIT_ABOVE:
        stream.seek(0)
        return None
    stream.seek(0)
    head = stream.read(HEAD)
    skip = len(head) - len(head.lstrip(b"\xef\xbb\xbf" + _WS))
    m = _ITEMS.search(head, skip)
    if m is None or head[skip:skip + 1] != b"{" or not _opens_top_level(head[skip:m.end()]):
        stream.seek(0)
        return None
    at = max(size - TAIL, m.end())
    stream.seek(at)
    tail = stream.read()
    stream.seek(0)
    end = _items_end(head[skip:m.end()], tail)
    if end is None:
        return None
    return Envelope(m.end(), at + end, 1 + head.count(b"\n", 0, m.end()))


def _opens_top_level(prefix: bytes) -> bool:
    """``prefix`` (ending in ``"items": [``) opens the items of the top-level object."""
    try:
        top = orjson.loads(prefix + b"]}")
    except orjson.JSONDecodeError:
        return False
    return isinstance(top, dict) and top.get("items") == []


def _items_end(prefix: bytes, tail: bytes) -> int | None:
    """Offset in ``tail`` of the ``]`` closing the items: the last one after
    which the rest of the file completes ``prefix`` into a List envelope."""
    at = len(tail)
    for _ in range(MAX_TRIES):
        at = tail.rfind(b"]", 0, at)
        if at < 0:
            return None
        try:
            value = orjson.loads(prefix + tail[at:])
        except orjson.JSONDecodeError:
            continue
        return at if is_list_envelope(value) else None
    return None


class ItemReader:
    """The List's items in order; ``complete`` tells afterwards whether every
    item was read (else the caller reads the document whole, from item
    ``count`` on)."""

    def __init__(self, stream: BinaryIO, env: Envelope, parse: Parse,
                 progress: Callable[[int], None] | None = None) -> None:
        self.stream, self.env, self.parse, self.progress = stream, env, parse, progress
        self.buf = b""
        self.read_to = env.start   # file offset read so far
        self.line, self.counted = env.line, 0
        self.count = 0
        self.complete = False
        self.absent: dict[bytes, int] = {}   # pattern -> offset before which it was not found

    def __iter__(self) -> Iterator[Any]:
        self.stream.seek(self.env.start)
        pos = self._skip(0)
        while not self._at_end(pos):
            if self.buf[pos:pos + 1] != b"{":
                return
            found = self._item(pos)
            if found is None:
                return
            value, end = found
            yield value
            self.count += 1
            pos = self._skip(end)
            if self._at_end(pos):
                break
            if self.buf[pos:pos + 1] != b",":
                return
            pos = self._skip(self._drop(pos + 1))
        self.complete = True

    # -- buffer

    def _more(self, s: int, limit: int) -> bool:
        """Read another block, unless the item at ``s`` would grow past
        ``limit`` bytes (False at the end of the items too)."""
        left = self.env.end - self.read_to
        if left <= 0 or len(self.buf) - s > limit:
            return False
        block = self.stream.read(min(BLOCK, left))
        if not block:
            return False
        self.read_to += len(block)
        self.buf += block
        if self.progress is not None:
            self.progress(self.read_to)
        return True

    def _drop(self, pos: int) -> int:
        """Forget the bytes before ``pos`` (counting their lines) once they
        are a block's worth; the new offset of ``pos``."""
        if pos < BLOCK:
            return pos
        self._line_at(pos)
        self.buf = self.buf[pos:]
        self.counted = 0
        self.absent = {k: max(0, v - pos) for k, v in self.absent.items()}
        return 0

    def _line_at(self, pos: int) -> int:
        self.line += self.buf.count(b"\n", self.counted, pos)
        self.counted = pos
        return self.line

    def _skip(self, pos: int) -> int:
        while True:
            while pos < len(self.buf) and self.buf[pos] in _WS:
                pos += 1
            if pos < len(self.buf) or not self._more(pos, MAX_ITEM):
                return pos

    def _at_end(self, pos: int) -> bool:
        return pos >= len(self.buf) and self.read_to >= self.env.end

    # -- one item

    def _item(self, s: int) -> tuple[Any, int] | None:
        for tries, end in enumerate(self._candidates(s)):
            if tries >= MAX_TRIES:
                return None
            try:
                value = self.parse(self.buf[s:end], self._line_at(s))
            except InputError:
                continue   # not this end; if none is, the whole-document path reports the error
            return value, end
        return None

    def _candidates(self, s: int) -> Iterator[int]:
        """Possible ends of the item at ``s``, in the order the layouts make
        likely: the end of its line, kubectl's closing brace, a ``}`` before
        the next item's head, the end of the items."""
        nl = self._find(b"\n", s, WINDOW)
        if nl >= 0:
            piece = self.buf[s:nl].rstrip(_WS)
            if piece.endswith(b","):
                piece = piece[:-1].rstrip(_WS)
            if piece.endswith(b"}"):
                yield s + len(piece)
        if self.buf[s + 1:s + 2] in (b"\n", b"\r"):
            indent = self.buf[self.buf.rfind(b"\n", 0, s) + 1:s]
            close = self._find(b"\n" + indent + b"}", s, WINDOW) if not indent.strip(b" \t") else -1
            if close >= 0:
                yield close + len(indent) + 2
        at = s
        while True:
            m = _NEXT.search(self.buf, at)
            while m is None and self._more(s, MAX_ITEM):
                m = _NEXT.search(self.buf, at)
            if m is None:
                break
            yield m.start() + 1
            at = m.start() + 1
        if self.read_to >= self.env.end:
            yield len(self.buf.rstrip(_WS))   # the last item

    def _find(self, what: bytes, s: int, limit: int) -> int:
        """The first ``what`` at or after ``s``, reading at most ``limit``
        bytes past ``s``; a search is not repeated over bytes already searched."""
        start = max(s, self.absent.get(what, 0))
        at = self.buf.find(what, start)
        while at < 0:
            start = max(s, len(self.buf) - len(what) + 1)
            if not self._more(s, limit):
                self.absent[what] = start
                return -1
            at = self.buf.find(what, start)
        return at
