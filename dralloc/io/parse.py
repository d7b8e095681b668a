"""Raw parsing: files and streams into plain documents, the way Kubernetes
reads them. Every reader in dralloc (object files, stdin, kubectl Lists,
scenario files) goes through here.

* **Documents** are split as Kubernetes' YAML reader splits them: at lines
  starting with ``---`` followed by nothing but spaces or a comment (any other
  text after ``---`` is an error). Files are read in blocks and handed on one
  document at a time, so nothing caps a file's size; only one document's text
  is held at once.
* **JSON** (a document whose first character is ``{``) is parsed by orjson;
  objects written one after another in one document are read in turn, as
  Kubernetes' JSON stream decoder does.
* **YAML** is parsed by fast-yaml (a Rust parser, YAML 1.2 core schema) unless
  the document may mean something else to Kubernetes (go-yaml v2's YAML 1.1:
  ``yes``/``no``/``on``/``off``, Go's integer forms, anchors, tags, merge
  keys...; see :mod:`dralloc.io.goyaml`), in which case the exact path reads it.
* **Guards**, each refusing the document (not the process) with one line naming
  file and document: YAML nested deeper than :data:`MAX_DEPTH` levels (measured
  by the parser, aliases expanded), JSON deeper than :data:`MAX_JSON_DEPTH`
  (orjson's own limit), alias expansion beyond Kubernetes' YAML decoder budget,
  a second document hidden in one (after ``...`` or ``--- text``)."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import fast_yaml
import orjson

from dralloc.errors import InputError
from dralloc.io import jsonlist
from dralloc.io.dupkeys import json_duplicate, may_hide_duplicates
from dralloc.io.goyaml import MAX_DEPTH, DuplicateKeys, YAMLMeaningError, load_exact
from dralloc.io.lists import SPLIT_ABOVE, ListCut, cut_json, cut_yaml, is_list_envelope
from dralloc.io.route import needs_exact

MAX_JSON_DEPTH = 1024          # orjson's limit, not configurable
READ_BLOCK = 4 * 1024 * 1024   # bytes read at a time
_SMALL = 4096                  # documents shorter than this are checked without de-duplicating lines
_SCAN_AHEAD_MIN, _SCAN_AHEAD_MAX = 4 * 1024 * 1024, 1 << 30
_LINE_REF = re.compile(r"\bline (\d+)")

Progress = Callable[[int], None]  # told the bytes read so far


class UnreadableError(InputError):
    """A file or document that cannot be read or parsed at all (as opposed to
    an object in it that is wrong)."""


class DuplicateKeyError(UnreadableError):
    """A mapping that holds a key twice (:mod:`dralloc.io.dupkeys`)."""


@dataclass
class RawDocument:
    source: str          # file name (or <stdin>)
    index: int           # document number in the file, from 0
    data: Any
    item: int | None = None  # index inside a List object

    @property
    def where(self) -> str:
        w = f"{self.source}#{self.index}"
        return w if self.item is None else f"{w} items[{self.item}]"


@dataclass
class Chunk:
    """One document's bytes as Kubernetes' reader cuts them."""

    index: int
    data: bytes
    line: int          # line number of its first line, from 1
    error: str = ""    # a separator line Kubernetes refuses


# ---------------------------------------------------------------- splitting


def _blocks(stream: BinaryIO, progress: Progress | None) -> Iterator[bytes]:
    """The stream in blocks that end at a line end (the last may not)."""
    rest = b""
    done = 0
    while True:
        block = stream.read(READ_BLOCK)
        if not block:
            if rest:
                yield rest
            return
        done += len(block)
        if progress is not None:
            progress(done)
        block = rest + block
        cut = block.rfind(b"\n") + 1
        if cut == 0:
            rest = block
            continue
        rest = block[cut:]
        yield block[:cut]


def _separators(block: bytes) -> Iterator[int]:
    """Offsets of the lines of ``block`` that start with ``---``."""
    if block.startswith(b"---"):
        yield 0
    at = block.find(b"\n---")
    while at >= 0:
        yield at + 1
        at = block.find(b"\n---", at + 1)


def split_documents(stream: BinaryIO, progress: Progress | None = None) -> Iterator[Chunk]:
    """The documents of ``stream``, cut at ``---`` lines (Kubernetes' rule:
    nothing but spaces or a comment may follow; an empty buffer is no
    document)."""
    parts: list[bytes] = []
    size = 0
    index = 0
    line = 1          # line of the current document's first line
    seen = 0          # lines before the current block
    first = True
    for block in _blocks(stream, progress):
        if first and block.startswith(b"\xef\xbb\xbf"):
            block = block[3:]
        first = False
        start = counted = 0
        lines = seen      # lines before ``counted`` in this block
        for at in _separators(block):
            end = block.find(b"\n", at + 3)
            end = len(block) if end < 0 else end + 1
            rest = block[at + 3:end].strip()
            parts.append(block[start:at])
            size += at - start
            lines += block.count(b"\n", counted, at)
            counted = at
            sep_line = lines + 1
            if size:
                yield Chunk(index, b"".join(parts), line)
                index += 1
            parts, size = [], 0
            if rest and not rest.startswith(b"#"):
                text = rest.decode("utf-8", "replace")
                yield Chunk(index, b"", sep_line, f"invalid YAML document separator: {text} (line {sep_line})")
                index += 1
            start, line = end, sep_line + 1
        parts.append(block[start:])
        size += len(block) - start
        seen += block.count(b"\n")
    if size:
        yield Chunk(index, b"".join(parts), line)


# ---------------------------------------------------------------- parsing


def _parse_json(data: bytes, line: int) -> list[Any]:
    """Every JSON value in ``data``, one after another (Kubernetes' JSON
    stream); a key twice in one object is an error (:mod:`.dupkeys`)."""
    values = _json_values(data, line)
    if may_hide_duplicates(data, values, str_keys=True):
        problem = json_duplicate(data, line)
        if problem is not None:
            raise DuplicateKeyError(problem)
    return values


def _json_values(data: bytes, line: int) -> list[Any]:
    out: list[Any] = []
    rest = data
    while rest and not rest.isspace():
        try:
            out.append(orjson.loads(rest))
            return out
        except orjson.JSONDecodeError as e:
            if e.msg.startswith("unexpected content after document") and e.pos > 0:
                out.append(orjson.loads(rest[:e.pos]))
                rest = rest[e.pos:]
                continue
            if "depth limit" in e.msg or "recursion" in e.msg:
                raise UnreadableError(f"document is nested too deeply (more than {MAX_JSON_DEPTH} levels, "
                                      f"line {e.lineno + line - 1})") from None
            raise UnreadableError(f"not valid JSON: {e.msg} (line {e.lineno + line - 1}, "
                                  f"column {e.colno})") from None
    return out


def _parse_yaml(text: str, line: int) -> list[Any]:
    """The fast parser when the router allows it; the exact path otherwise,
    and for anything the fast parser refuses other than for its limits (its
    YAML 1.2 grammar refuses a few things go-yaml reads, such as a plain ``-``
    in a flow list), so every error comes from the exact path's reading --
    and when the fast parser may have dropped a duplicated key
    (:mod:`.dupkeys`), which the exact path refuses naming it."""
    if not _needs_exact(text):
        scan = min(max(len(text) + 1, _SCAN_AHEAD_MIN), _SCAN_AHEAD_MAX)
        try:
            docs = list(fast_yaml.safe_load_all(text, max_depth=MAX_DEPTH, max_scan_ahead=scan,
                                                max_documents=2))
            if not may_hide_duplicates(text, docs):
                return docs
        except (ValueError, fast_yaml.YAMLError) as e:
            _limits(str(e), line)
    try:
        return load_exact(text, line - 1)
    except DuplicateKeys as e:
        raise DuplicateKeyError(str(e)) from None
    except YAMLMeaningError as e:
        raise UnreadableError(str(e)) from None


def _limits(msg: str, line: int) -> None:
    """Raise the fast parser's refusals that are about dralloc's limits."""
    if "nesting" in msg and "exceeds" in msg:
        found = _LINE_REF.search(msg)
        where = f", line {int(found.group(1)) + line - 1}" if found else ""
        raise UnreadableError(f"document is nested too deeply (more than {MAX_DEPTH} levels{where})")
    if "document count exceeds" in msg:
        raise UnreadableError(_SECOND_DOCUMENT)


_SECOND_DOCUMENT = ("a second document follows in the same document (after '...' or a '---' with text); "
                    "Kubernetes would read only the first: separate documents with a '---' line")


def _needs_exact(text: str) -> bool:
    """:func:`needs_exact`, on the distinct lines only (every rule it checks is
    about one line, and a cluster dump repeats the same few hundred lines)."""
    if len(text) < _SMALL:
        return needs_exact(text)
    return needs_exact("\n".join(set(text.split("\n"))))


def parse_chunk(chunk: Chunk, json_file: bool = False) -> list[Any]:
    """The values in one document (none for an empty one; more than one only
    for concatenated JSON objects). Raises :class:`UnreadableError`."""
    if chunk.error:
        raise UnreadableError(chunk.error)
    head = chunk.data.lstrip()
    if not head:
        return []
    if head[:1] == b"{":
        try:
            return _parse_json(chunk.data, chunk.line)
        except UnreadableError as e:   # (a YAML flow mapping may start with "{" too)
            if json_file or isinstance(e, DuplicateKeyError) or "nested too deeply" in e.message \
                    or head[:2] == b'{"':
                raise
    try:
        text = chunk.data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise UnreadableError(f"not UTF-8 text: {e.reason} at byte {e.start}") from None
    docs = _parse_yaml(text, chunk.line)
    docs = [d for d in docs if d is not None] if len(docs) > 1 else docs
    if len(docs) > 1:
        raise UnreadableError(_SECOND_DOCUMENT)
    return [d for d in docs if d is not None]


def parse_text(text: str, source: str = "<text>") -> list[Any]:
    """Every value in ``text`` (a YAML or JSON stream), as Kubernetes reads
    it; problems raise :class:`UnreadableError` naming ``source``."""
    out: list[Any] = []
    for doc in iter_raw(_BytesStream(text.encode("utf-8")), source):
        if isinstance(doc, InputError):
            raise doc
        out.append(doc.data)
    return out


class _BytesStream:
    def __init__(self, data: bytes) -> None:
        self._data, self._pos = data, 0

    def read(self, n: int) -> bytes:
        out = self._data[self._pos:self._pos + n]
        self._pos += len(out)
        return out


def iter_raw(stream: BinaryIO | _BytesStream, source: str, json_file: bool = False,
             progress: Progress | None = None, lists: bool = False) -> Iterator[RawDocument | UnreadableError]:
    """Each document of ``stream`` (Lists flattened into their items when
    ``lists``), or the error that made one unreadable; reading goes on."""
    for chunk in split_documents(stream, progress):  # type: ignore[arg-type]
        yield from _documents(chunk, source, json_file, lists)


def _documents(chunk: Chunk, source: str, json_file: bool, lists: bool) -> Iterator[RawDocument | UnreadableError]:
    cut = _cut(chunk) if lists else None
    if cut is not None:
        yield from _list_items(chunk, cut, source)
        return
    try:
        values = parse_chunk(chunk, json_file)
    except UnreadableError as e:
        yield UnreadableError(e.message, source=f"{source}#{chunk.index}")
        return
    for value in values:
        if lists and _is_list(value):
            for j, item in enumerate(value.get("items") or []):
                yield RawDocument(source, chunk.index, item, j)
        else:
            yield RawDocument(source, chunk.index, value)


def _json_file(stream: BinaryIO, progress: Progress | None) -> Chunk | None:
    """A seekable file that holds JSON (its first character is ``{``), read at
    once into one buffer: Kubernetes reads such a stream as JSON, without
    cutting it at ``---`` lines, and the parser needs it whole anyway."""
    if not stream.seekable():
        return None
    head = stream.read(1 << 12).lstrip(b"\xef\xbb\xbf \t\r\n")
    stream.seek(0)
    if head[:1] != b"{":
        return None
    data = stream.read()
    if progress is not None:
        progress(len(data))
    return Chunk(0, data, 1)


def _cut(chunk: Chunk) -> ListCut | None:
    """A large List document cut into its items, when its layout allows and
    its envelope (the List without items) reads as a List."""
    if chunk.error or len(chunk.data) < SPLIT_ABOVE:
        return None
    json = chunk.data.lstrip()[:1] == b"{"
    cut = cut_json(chunk.data, chunk.line) if json else cut_yaml(chunk.data, chunk.line)
    if cut is None:
        return None
    try:
        values = parse_chunk(Chunk(chunk.index, cut.envelope, chunk.line))
    except UnreadableError:
        return None
    return cut if len(values) == 1 and is_list_envelope(values[0]) else None


def _list_items(chunk: Chunk, cut: ListCut, source: str) -> Iterator[RawDocument | UnreadableError]:
    """The items of a cut List, each parsed on its own; if one does not
    parse, the whole document is read again and the rest comes from it."""
    json = chunk.data.lstrip()[:1] == b"{"
    for j, (start, end, line) in enumerate(cut.items):
        piece = Chunk(chunk.index, chunk.data[start:end], line)
        try:
            values = parse_chunk(piece)
            item = values[0] if json else values[0][0]
        except DuplicateKeyError as e:   # the whole List is refused; its line is the item's
            yield UnreadableError(e.message, source=f"{source}#{chunk.index}")
            return
        except (UnreadableError, IndexError, KeyError, TypeError):
            break
        yield RawDocument(source, chunk.index, item, j)
    else:
        return
    try:
        whole = parse_chunk(chunk)
    except UnreadableError as e:
        yield UnreadableError(e.message, source=f"{source}#{chunk.index}")
        return
    items = whole[0].get("items") if len(whole) == 1 and _is_list(whole[0]) else None
    for k, item in enumerate(items or [], ):
        if k >= j:
            yield RawDocument(source, chunk.index, item, k)


def _parse_item(data: bytes, line: int) -> Any:
    """One item of a JSON List, as JSON."""
    values = _parse_json(data, line)
    if len(values) != 1:
        raise UnreadableError("not one JSON value")
    return values[0]


def _json_list(stream: BinaryIO, env: jsonlist.Envelope, source: str, json_file: bool,
               progress: Progress | None) -> Iterator[RawDocument | UnreadableError]:
    """The items of a large JSON List file, read in blocks (:mod:`.jsonlist`);
    from the first item its layout does not delimit on, the document is read
    as before it was streamed (whole, then cut if it can be)."""
    reader = jsonlist.ItemReader(stream, env, _parse_item, progress)
    for j, item in enumerate(reader):
        yield RawDocument(source, 0, item, j)
    if not reader.complete:
        stream.seek(0)
        data = stream.read()
        if progress is not None:
            progress(len(data))
        for doc in _documents(Chunk(0, data, 1), source, json_file, True):
            if not isinstance(doc, RawDocument) or doc.item is None or doc.item >= reader.count:
                yield doc


def _is_list(d: Any) -> bool:
    return (isinstance(d, dict) and isinstance(d.get("kind"), str) and d["kind"].endswith("List")
            and "items" in d)


def iter_documents(path: Path | None, progress: Progress | None = None,
                   lists: bool = True) -> Iterator[RawDocument | InputError]:
    """The documents of one file (None: stdin), Lists flattened into their
    items (unless not ``lists``), in order; an unreadable file or document is
    yielded as an error and reading goes on with the next document."""
    source = "<stdin>" if path is None else str(path)
    try:
        stream = sys.stdin.buffer if path is None else path.open("rb")
    except OSError as e:
        yield UnreadableError(f"cannot read: {e.strerror or e}", source=source)
        return
    json_file = path is not None and path.suffix == ".json"
    try:
        env = jsonlist.envelope(stream) if path is not None and lists else None
        whole = _json_file(stream, progress) if path is not None and env is None else None
        if env is not None:
            yield from _json_list(stream, env, source, json_file, progress)
        elif whole is not None:
            yield from _documents(whole, source, json_file, lists)
        else:
            yield from iter_raw(stream, source, json_file=json_file, progress=progress, lists=lists)
    except OSError as e:
        yield UnreadableError(f"cannot read: {e.strerror or e}", source=source)
    finally:
        if path is not None:
            stream.close()


def read_documents(path: Path | None) -> tuple[list[RawDocument], list[InputError]]:
    """Every document of one file (None: stdin) and the problems, apart."""
    docs: list[RawDocument] = []
    errors: list[InputError] = []
    for d in iter_documents(path):
        (errors if isinstance(d, InputError) else docs).append(d)  # type: ignore[arg-type]
    return docs, errors
