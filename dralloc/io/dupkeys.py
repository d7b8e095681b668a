"""Duplicate keys in a mapping: an input error, as Kubernetes' strict
decoding (kubectl's default field validation) reports them.

A mapping that holds a key twice is refused, naming the line and the key:
in YAML with go-yaml v2's strict words (``line 12: key "kind" already set in
map``, the line of the second value), in JSON with the strict JSON decoder's
(``duplicate field "metadata.name"``, with the line). The usual cause is two
files concatenated without a ``---`` line between them: the last object of
the first and the first of the second become one mapping, the later keys
silently winning where a lenient reader is used.

The exact YAML path (:mod:`dralloc.io.goyaml`) sees every key as it composes
a mapping. The fast parsers (orjson, fast-yaml) keep the last value of a
duplicated key without a word; what they lose is found by counting: every
member of a mapping is written with one ``:`` in the text and one in the
compact JSON of what was parsed, and so is every ``:`` inside a string, so
when nothing was lost both counts are equal. The text can only hold more
(comments, keys lost); it cannot hold fewer unless an escape writes a colon
(``\\u003a``, ``\\x3a``), which sends the document to the exact check. A
document whose counts differ is read again by the exact path (YAML) or
checked key by key (JSON), which finds the duplicate or clears it."""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

# an escape that writes a colon: the text then holds fewer ':' than the values
_COLON_ESCAPE = re.compile(r"\\(?:x3[aA]|u003[aA]|U0000003[aA])")
_COLON_ESCAPE_BYTES = re.compile(rb"\\(?:x3[aA]|u003[aA]|U0000003[aA])")
CONCATENATED = ("two objects in one document: were files concatenated without a '---' line between them? "
                "Kubernetes' strict decoding refuses a mapping that holds a key twice")


def may_hide_duplicates(text: str | bytes, values: list[Any], str_keys: bool = False) -> bool:
    """Whether a fast parser may have dropped a duplicated key of ``text``
    to give ``values`` (False: it dropped none, proven by counting).
    ``str_keys``: every key is a string (JSON), so the values are written
    without orjson's slower path for other keys."""
    if isinstance(text, bytes):
        colons = text.count(b":")
        if b"\\" in text and _COLON_ESCAPE_BYTES.search(text):
            return True
    else:
        colons = text.count(":")
        if "\\" in text and _COLON_ESCAPE.search(text):
            return True
    try:
        dumped = orjson.dumps(values) if str_keys else orjson.dumps(values, option=orjson.OPT_NON_STR_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        return True
    return dumped.count(b":") != colons


def go_key(key: Any) -> str:
    """A key as go-yaml's ``%#v`` prints it in its strict errors."""
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, str):
        return json.dumps(key, ensure_ascii=False)
    return repr(key)


def yaml_message(problems: list[tuple[int, str, bool]]) -> str:
    """One line for a document's duplicate keys: ``(line, key as %#v, at the
    top level)`` each, as go-yaml's strict decoding lists them."""
    shown = "; ".join(f"line {line}: key {key} already set in map" for line, key, _ in problems[:3])
    more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
    why = CONCATENATED if any(top for _, _, top in problems) else \
        "a mapping holds each key once: Kubernetes' strict decoding refuses the document"
    return f"{shown}{more} ({why})"


class _Duplicate(Exception):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _Duplicate
    return out


def json_duplicate(data: bytes, first_line: int) -> str | None:
    """The strict JSON decoder's error for the first duplicated key of the
    JSON values in ``data`` (with its line), or None when there is none."""
    text = data.decode("utf-8", "replace")
    try:
        dec = json.JSONDecoder(object_pairs_hook=_no_duplicates)
        at = 0
        while at < len(text):
            while at < len(text) and text[at] in " \t\r\n":
                at += 1
            if at < len(text):
                at = dec.raw_decode(text, at)[1]
        return None
    except _Duplicate:
        found = _locate(text)
    except (ValueError, RecursionError):
        # orjson read it; the standard decoder may refuse what orjson takes, or
        # recurse past Python's limit on a deep document (orjson allows 1,024
        # levels): the token walk below is iterative, look with it
        found = _locate(text)
    if found is None:
        return None
    offset, path = found
    line = first_line + text.count("\n", 0, offset)
    top = "." not in path and "[" not in path
    why = f"; {CONCATENATED}" if top else ""
    return f'duplicate field "{path}" (line {line}){why}'


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+')


def _locate(text: str) -> tuple[int, str] | None:
    """Where the first duplicated key is (its offset) and its path, by a walk
    over the tokens (only for a document known or suspected to hold one)."""
    frames: list[dict[str, Any]] = []      # {"keys": set | None, "path": str, "key": str | None, "index": int}
    for m in _TOKEN.finditer(text):
        tok = m.group()
        top = frames[-1] if frames else None
        if tok in ("{", "["):
            frames.append({"keys": set() if tok == "{" else None, "path": _child(top), "key": None, "index": 0,
                           "want_key": tok == "{"})
        elif tok in ("}", "]"):
            if frames:
                frames.pop()
        elif tok == ",":
            if top is not None:
                top["index"] += 1
                top["want_key"] = top["keys"] is not None
        elif tok == ":":
            if top is not None:
                top["want_key"] = False
        elif top is not None and top["keys"] is not None and top["want_key"] and tok.startswith('"'):
            key = json.loads(tok)
            top["key"] = key
            if key in top["keys"]:
                return m.start(), _join(top["path"], key)
            top["keys"].add(key)
    return None


def _child(frame: dict[str, Any] | None) -> str:
    """The path of a value opened inside ``frame``."""
    if frame is None:
        return ""
    if frame["keys"] is None:
        return f"{frame['path']}[{frame['index']}]"
    return _join(frame["path"], frame["key"] or "")


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key
