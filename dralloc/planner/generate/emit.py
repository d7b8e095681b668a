"""Writing generated documents fast: a block-style YAML writer for plain data
(maps with string keys, lists, strings, integers, booleans), over ten times
faster than PyYAML's C emitter on generated clusters because the maps a
generator shares between devices (capacities, counter consumption, the
attributes of a GPU's MIG devices) are written once per node and reused.
Strings that YAML 1.1 could read as anything else (numbers, booleans, null,
addresses with colons) are double-quoted as JSON quotes them, which YAML
reads back unchanged; so does ``yaml.safe_load`` (tests/planner check it).

:func:`write_dir` writes a cluster into a directory, ``per_file`` nodes per
file, with progress on stderr."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TextIO

from dralloc.errors import InputError

PLAIN = re.compile(r"^[A-Za-z][A-Za-z0-9_./-]*$")
RESERVED = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}
FORMATS = ("yaml", "json")
Progress = Callable[[int, int], None]


_STRINGS: dict[str, str] = {}   # written form of each string seen (they repeat a lot)
_STRINGS_MAX = 1 << 16


def scalar(v: Any) -> str:
    if isinstance(v, str):
        got = _STRINGS.get(v)
        if got is None:
            got = v if PLAIN.match(v) and v.lower() not in RESERVED else json.dumps(v)
            if len(_STRINGS) < _STRINGS_MAX:
                _STRINGS[v] = got
        return got
    if v is True:
        return "true"
    if v is False:
        return "false"
    if v is None:
        return "null"
    if isinstance(v, int):
        return str(v)
    raise InputError(f"generate: cannot write a {type(v).__name__} value")


class YamlWriter:
    """Block-style YAML; a map or list met twice while the memo lives is
    written once (``reset`` between independent groups of documents)."""

    def __init__(self) -> None:
        self.memo: dict[tuple[int, int], tuple[object, str]] = {}

    def reset(self) -> None:
        self.memo.clear()

    def document(self, doc: dict[str, Any]) -> str:
        return "---\n" + self.block(doc, 0)

    def block(self, obj: dict[str, Any] | list[Any], indent: int) -> str:
        key = (id(obj), indent)
        hit = self.memo.get(key)
        if hit is not None and hit[0] is obj:
            return hit[1]
        text = self._map(obj, indent) if isinstance(obj, dict) else self._list(obj, indent)
        self.memo[key] = (obj, text)   # holding obj keeps its id from being reused
        return text

    def _map(self, m: dict[str, Any], indent: int) -> str:
        pad = " " * indent
        parts = []
        for k, v in m.items():
            head = f"{pad}{scalar(k)}:"
            if type(v) is dict and len(v) == 1:   # {"string": ...}, {"value": ...}: most maps written
                ((k2, v2),) = v.items()
                if not isinstance(v2, (dict, list)):
                    parts.append(f"{head}\n{pad}  {scalar(k2)}: {scalar(v2)}\n")
                    continue
            if isinstance(v, dict):
                parts.append(f"{head}\n{self.block(v, indent + 2)}" if v else f"{head} {{}}\n")
            elif isinstance(v, list):
                parts.append(f"{head}\n{self.block(v, indent)}" if v else f"{head} []\n")
            else:
                parts.append(f"{head} {scalar(v)}\n")
        return "".join(parts)

    def _list(self, items: list[Any], indent: int) -> str:
        pad = " " * indent
        parts = []
        for item in items:
            if isinstance(item, dict) and item:
                inner = self.block(item, indent + 2)
                parts.append(f"{pad}- {inner[indent + 2:]}")
            elif isinstance(item, (dict, list)):
                parts.append(f"{pad}- {json.dumps(item)}\n")
            else:
                parts.append(f"{pad}- {scalar(item)}\n")
        return "".join(parts)


def write_groups(groups: Iterable[list[dict[str, Any]]], out: TextIO, fmt: str = "yaml") -> int:
    """Write groups of documents to ``out``: a YAML stream, or one JSON
    ``List`` (as ``kubectl get -o json`` writes); returns the number of
    documents."""
    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    writer = YamlWriter()
    n = 0
    if fmt == "json":
        out.write('{"apiVersion": "v1", "kind": "List", "items": [')
    for group in groups:
        for doc in group:
            if fmt == "yaml":
                out.write(writer.document(doc))
            else:
                out.write(("," if n else "") + "\n" + json.dumps(doc))
            n += 1
        writer.reset()
    if fmt == "json":
        out.write("\n]}\n")
    return n


def write_dir(classes: list[dict[str, Any]], nodes: Iterable[list[dict[str, Any]]], root: Path, per_file: int,
              total: int, fmt: str = "yaml", progress: Progress | None = None) -> list[Path]:
    """``classes.<fmt>`` and ``nodes-0000.<fmt>``... of ``per_file`` node
    groups each (a TPU block is one group of four hosts)."""
    if per_file < 1:
        raise InputError("--per-file must be at least 1")
    try:
        root.mkdir(parents=True, exist_ok=True)
        paths = [root / f"classes.{fmt}"]
        with paths[0].open("w", encoding="utf-8") as f:
            write_groups([classes], f, fmt)
        done = 0
        chunk: list[list[dict[str, Any]]] = []
        for group in nodes:
            chunk.append(group)
            done += sum(1 for d in group if d.get("kind") == "Node")
            if len(chunk) == per_file:
                paths.append(_chunk(root, len(paths) - 1, chunk, fmt))
                chunk = []
                if progress:
                    progress(done, total)
        if chunk:
            paths.append(_chunk(root, len(paths) - 1, chunk, fmt))
            if progress:
                progress(done, total)
    except OSError as e:
        raise InputError(f"cannot write {root}: {e}") from None
    return paths


def _chunk(root: Path, n: int, groups: list[list[dict[str, Any]]], fmt: str) -> Path:
    path = root / f"nodes-{n:04d}.{fmt}"
    with path.open("w", encoding="utf-8") as f:
        write_groups(groups, f, fmt)
    return path
