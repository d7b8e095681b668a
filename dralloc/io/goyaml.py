"""YAML as Kubernetes reads it: go-yaml v2's YAML 1.1 resolution and alias
budget, then sigs.k8s.io/yaml's conversion to JSON values.

This is the *exact* path of :mod:`dralloc.io.parse`: libyaml's event parser
(iterative C, so no input can crash it) with a composer and resolver written
here to follow ``go.yaml.in/yaml/v2`` (``resolve.go``, ``decode.go``) and
``sigs.k8s.io/yaml`` (``yaml.go``, ``YAMLToJSON``) rule by rule:

* plain scalars resolve as YAML 1.1 does in go-yaml: ``y/Y/yes/on/n/no/off``
  (and their capitalisations) are booleans; integers take Go's base prefixes
  (``0x``, ``0o``, ``0b``, a leading ``0`` for octal) and underscores;
  integers beyond int64 become unsigned, beyond uint64 floats; timestamps stay
  strings; ``.inf``/``.nan`` are floats, which JSON cannot hold (an error);
  a float value that is a whole number below 1e21 becomes an integer, as Go's
  ``json.Marshal`` writes it (``1.0`` and ``1e3`` -> ``1`` and ``1000``;
  :func:`json_number`), so an integer field takes it as the API server does;
* quoted and block scalars are strings; ``!!str``, ``!!int``, ``!!float``,
  ``!!bool``, ``!!null``, ``!!timestamp`` and ``!!binary`` force their type (a
  value that does not fit is an error); other tags are ignored;
* ``<<`` merge keys merge a mapping or a list of mappings (earlier ones win,
  merged keys overwrite keys set before them, as go-yaml v2 does);
* a key set twice in one mapping (written twice, or merged where already
  set) is an error naming the line of its second value, as go-yaml v2's
  strict mode reports it (Kubernetes' strict decoding; :mod:`dralloc.io.dupkeys`);
* mapping keys become strings (``1`` -> ``"1"``, ``true`` -> ``"true"``); a null,
  list or mapping key is an error;
* aliases are expanded (copies, as Go decodes them) under go-yaml's budget:
  once more than 100 of over 1,000 decode steps come from aliases, their share
  may be at most 99 % up to 400,000 steps, falling linearly to 10 % at
  4,000,000 steps; beyond it the document "contains excessive aliasing";
* nesting (aliases expanded) is limited to :data:`MAX_DEPTH` levels.

:func:`dralloc.io.route.needs_exact` tells whether a document's text may mean
something else here than under the fast parser's YAML 1.2 core schema; only
such documents take this (slower) path."""

from __future__ import annotations

import base64
import math
import re
import struct
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import yaml

from dralloc.io.dupkeys import go_key, yaml_message

MAX_DEPTH = 100

_INT_TAG, _FLOAT_TAG, _BOOL_TAG = "tag:yaml.org,2002:int", "tag:yaml.org,2002:float", "tag:yaml.org,2002:bool"
_STR_TAG, _NULL_TAG = "tag:yaml.org,2002:str", "tag:yaml.org,2002:null"
_TIMESTAMP_TAG, _BINARY_TAG = "tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:binary"
_MERGE_TAG = "tag:yaml.org,2002:merge"
_RESOLVABLE = {None, "", _STR_TAG, _BOOL_TAG, _INT_TAG, _FLOAT_TAG, _NULL_TAG, _TIMESTAMP_TAG}

_WORDS: dict[str, tuple[str, Any]] = {}
for _value, _tag, _texts in (
    (True, _BOOL_TAG, "y Y yes Yes YES true True TRUE on On ON"),
    (False, _BOOL_TAG, "n N no No NO false False FALSE off Off OFF"),
    (None, _NULL_TAG, "~ null Null NULL"),
    (math.nan, _FLOAT_TAG, ".nan .NaN .NAN"),
    (math.inf, _FLOAT_TAG, ".inf .Inf .INF +.inf +.Inf +.INF"),
    (-math.inf, _FLOAT_TAG, "-.inf -.Inf -.INF"),
    ("<<", _MERGE_TAG, "<<"),
):
    for _text in _texts.split():
        _WORDS[_text] = (_tag, _value)
_WORDS[""] = (_NULL_TAG, None)

_YAML_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")
_GO_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+\.?[0-9]*)([eE][-+]?[0-9]+)?\Z")  # what strconv.ParseFloat reads
_TIMESTAMP = re.compile(
    r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}"
    r"(?:(?:[Tt]|[ ])[0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]{1,9})?"
    r"(?:Z|[-+][0-9]{2}:[0-9]{2})?)?\Z")
_INT64 = 2**63
_UINT64 = 2**64


class YAMLMeaningError(ValueError):
    """A document Kubernetes' YAML decoder refuses (or dralloc's limits)."""


class DuplicateKeys(YAMLMeaningError):
    """A mapping of the document holds a key twice (strict decoding refuses it)."""


_MAX_DIGITS = {2: 64, 8: 22, 10: 20, 16: 16}
_DIGITS = {2: frozenset("01"), 8: frozenset("01234567"), 10: frozenset("0123456789"),
           16: frozenset("0123456789abcdefABCDEF")}


def _go_int(text: str) -> int | None:
    """``strconv.ParseInt(text, 0, 64)``, then ``ParseUint``: a sign (signed
    only), a base prefix ``0x``/``0o``/``0b`` or a leading ``0`` for octal,
    else decimal; None when neither reads it."""
    s = text
    sign = s[:1] if s[:1] in ("+", "-") else ""
    s = s[len(sign):]
    base, digits = 10, s
    if len(s) > 1 and s[0] == "0":
        base, digits = {"x": (16, s[2:]), "o": (8, s[2:]), "b": (2, s[2:])}.get(s[1].lower(), (8, s[1:]))
    if not digits or not set(digits) <= _DIGITS[base]:
        return None
    if len(digits.lstrip("0")) > _MAX_DIGITS[base]:   # beyond 64 bits (and Python's 4300-digit limit)
        return None
    value = int(digits, base) * (-1 if sign == "-" else 1)
    if -_INT64 <= value < _INT64 or (not sign and value < _UINT64):
        return value
    return None


def _resolve_plain(text: str) -> tuple[str, Any]:
    """go-yaml v2's ``resolve("", text)``: the tag and value of a plain scalar."""
    word = _WORDS.get(text)
    if word is not None:
        return word
    head = text[0]
    if head == ".":
        if _GO_FLOAT.match(text):
            return _FLOAT_TAG, float(text)
        return _STR_TAG, text
    if not (head.isdigit() and head.isascii()) and head not in "+-":
        return _STR_TAG, text
    if _TIMESTAMP.match(text):
        return _TIMESTAMP_TAG, text  # go-yaml v2 keeps timestamps as strings in untyped values
    plain = text.replace("_", "")
    value = _go_int(plain)
    if value is not None:
        return _INT_TAG, value
    if _YAML_FLOAT.match(plain):
        return _FLOAT_TAG, float(plain)
    return _STR_TAG, text


def resolve_scalar(tag: str | None, plain: bool, text: str) -> Any:
    """The value of one scalar: its explicit tag, or its plain form resolved."""
    if tag is None and not plain:
        return text
    if tag not in _RESOLVABLE and tag != _BINARY_TAG:
        return text  # "!", "!foo" and other tags: go-yaml keeps the text
    if tag in (_STR_TAG, _BINARY_TAG):
        if tag == _BINARY_TAG:
            try:
                return base64.b64decode("".join(text.split()), validate=True).decode("utf-8", "replace")
            except ValueError:
                raise YAMLMeaningError("!!binary value contains invalid base64 data") from None
        return text
    rtag, value = _resolve_plain(text)
    if tag in (None, "", rtag):
        if rtag == _MERGE_TAG:
            return "<<"
        return value
    if tag == _FLOAT_TAG and rtag == _INT_TAG:
        return float(value)
    short = {t: "!!" + t.rsplit(":", 1)[1] for t in (rtag, tag)}
    raise YAMLMeaningError(f"cannot decode {short[rtag]} `{text}` as a {short[tag]}")


# ---------------------------------------------------------------- composing


@dataclass(eq=False)
class Node:
    kind: str                     # "scalar", "map", "seq", "alias"
    value: Any = None             # scalar value; alias target Node
    items: list[Any] = field(default_factory=list)  # seq: nodes; map: key, value, key, value...
    merge_keys: set[int] = field(default_factory=set)  # map: indices of "<<" keys
    line: int = 0


def _problem(e: yaml.YAMLError, line_offset: int) -> str:
    mark = getattr(e, "problem_mark", None)
    what = " ".join(str(getattr(e, "problem", None) or e).split())
    if mark is None:
        return what
    return f"{what} (line {mark.line + 1 + line_offset}, column {mark.column + 1})"


def compose(text: str, line_offset: int = 0) -> list[Node]:
    """The documents of ``text`` as node graphs (aliases point at their
    anchor's node). Depth is limited while parsing: nothing here recurses."""
    loader = yaml.CSafeLoader(text) if hasattr(yaml, "CSafeLoader") else yaml.SafeLoader(text)
    docs: list[Node] = []
    stack: list[Node] = []
    anchors: dict[str, Node] = {}
    try:
        while loader.check_event():
            ev = loader.get_event()
            if isinstance(ev, yaml.DocumentStartEvent):
                anchors = {}
                continue
            if isinstance(ev, yaml.CollectionEndEvent):
                done = stack.pop()
                if not stack:
                    docs.append(done)
                continue
            node = _node(ev, anchors, line_offset) if ev is not None else None
            if node is None:
                continue
            if stack:
                parent = stack[-1]
                if parent.kind == "map" and len(parent.items) % 2 == 0 and _is_merge(node):
                    parent.merge_keys.add(len(parent.items))
                parent.items.append(node)
            if node.kind in ("map", "seq"):
                if len(stack) >= MAX_DEPTH:
                    raise YAMLMeaningError(f"document is nested too deeply (more than {MAX_DEPTH} levels, "
                                           f"line {node.line})")
                stack.append(node)
            elif not stack:
                docs.append(node)
    except yaml.YAMLError as e:
        raise YAMLMeaningError("not valid YAML: " + _problem(e, line_offset)) from None
    finally:
        loader.dispose()
    return docs


def _is_merge(node: Node) -> bool:
    return node.kind == "scalar" and node.value is _MERGE


_MERGE = object()


def _node(ev: yaml.Event, anchors: dict[str, Node], line_offset: int) -> Node | None:
    line = ev.start_mark.line + 1 + line_offset if ev.start_mark else 0
    if isinstance(ev, yaml.AliasEvent):
        target = anchors.get(str(ev.anchor))
        if target is None:
            raise YAMLMeaningError(f"unknown anchor '{ev.anchor}' referenced (line {line})")
        return Node("alias", target, line=line)
    if isinstance(ev, yaml.ScalarEvent):
        try:
            value = resolve_scalar(ev.tag, ev.implicit[0] and ev.style in ("", None), ev.value)
        except YAMLMeaningError as e:
            raise YAMLMeaningError(f"{e} (line {line})") from None
        node = Node("scalar", _MERGE if value == "<<" and ev.tag is None and ev.implicit[0] else value, line=line)
    elif isinstance(ev, yaml.MappingStartEvent):
        node = Node("map", line=line)
    elif isinstance(ev, yaml.SequenceStartEvent):
        node = Node("seq", line=line)
    else:
        return None
    if getattr(ev, "anchor", None):
        anchors[str(ev.anchor)] = node
    return node


# ---------------------------------------------------------------- decoding


def allowed_alias_ratio(decodes: int) -> float:
    """go-yaml v2's ``allowedAliasRatio``: the share of decode steps that may
    come from aliases, given the steps so far."""
    if decodes <= 400_000:
        return 0.99
    if decodes >= 4_000_000:
        return 0.10
    return 0.99 - 0.89 * (decodes - 400_000) / 3_600_000


class _Decoder:
    """go-yaml's decoder for untyped values, then sigs.k8s.io/yaml's JSON
    conversion, counting decode steps as go-yaml does."""

    def __init__(self) -> None:
        self.decodes = 0
        self.aliased = 0
        self.alias_depth = 0
        self.active: set[int] = set()
        self.duplicates: list[tuple[int, str, bool]] = []   # (line, key as go-yaml prints it, top level)

    def document(self, node: Node) -> Any:
        out = self.value(node, 1)
        if self.duplicates:
            raise DuplicateKeys(yaml_message(self.duplicates))
        return out

    def step(self, depth: int, node: Node) -> None:
        self.decodes += 1
        if self.alias_depth:
            self.aliased += 1
        if (self.aliased > 100 and self.decodes > 1000
                and self.aliased / self.decodes > allowed_alias_ratio(self.decodes)):
            raise YAMLMeaningError(f"document contains excessive aliasing ({self.aliased} of {self.decodes} "
                                   "decode steps come from aliases; the budget is Kubernetes' YAML decoder's)")
        if depth > MAX_DEPTH and node.kind in ("map", "seq"):
            raise YAMLMeaningError(f"document is nested too deeply once its aliases are expanded "
                                   f"(more than {MAX_DEPTH} levels, line {node.line})")

    def value(self, node: Node, depth: int, key: bool = False) -> Any:
        self.step(depth, node)
        if node.kind == "alias":
            return self.alias(node, depth, key)
        if node.kind == "scalar":
            v = node.value
            if v is _MERGE:
                return "<<"
            if isinstance(v, float) and not key:
                if not math.isfinite(v):
                    raise YAMLMeaningError(f"{v} cannot be written as JSON, which Kubernetes converts YAML to "
                                           f"(line {node.line})")
                return json_number(v)
            return v
        if node.kind == "seq":
            return [self.value(n, depth + 1) for n in node.items]
        out: dict[str, Any] = {}
        self.into(node, out, set(), depth)
        return out

    def alias(self, node: Node, depth: int, key: bool = False) -> Any:
        if id(node) in self.active:
            raise YAMLMeaningError(f"anchor value contains itself (line {node.line})")
        self.active.add(id(node))
        self.alias_depth += 1
        try:
            return self.value(node.value, depth, key)
        finally:
            self.alias_depth -= 1
            self.active.discard(id(node))

    def into(self, node: Node, out: dict[str, Any], seen: set[tuple[type, Any]], depth: int) -> None:
        """The pairs of mapping ``node`` set into ``out`` in order (merges
        included), as go-yaml's ``mapping`` does; ``seen``: the keys set so
        far, as go-yaml's map holds them (typed: ``1`` is not ``"1"``)."""
        items = node.items
        for i in range(0, len(items), 2):
            if i in node.merge_keys:
                self.merge(items[i + 1], out, seen, depth)
                continue
            key = self.value(items[i], depth + 1, key=True)
            name = json_key(key, items[i].line)
            value = self.value(items[i + 1], depth + 1)
            if (type(key), key) in seen:   # strict mode: the value is not set
                self.duplicates.append((items[i + 1].line, go_key(key), depth == 1))
                continue
            seen.add((type(key), key))
            out[name] = value

    def merge(self, node: Node, out: dict[str, Any], seen: set[tuple[type, Any]], depth: int) -> None:
        sources = [node] if node.kind != "seq" else list(reversed(node.items))
        for src in sources:
            target = src.value if src.kind == "alias" else src
            if target.kind != "map":
                raise YAMLMeaningError(f"map merge requires map or sequence of maps as the value (line {src.line})")
            self.step(depth, src)
            if src.kind == "alias":
                self.alias_depth += 1
                self.step(depth, target)
            try:
                self.into(target, out, seen, depth)
            finally:
                if src.kind == "alias":
                    self.alias_depth -= 1


def json_number(v: float) -> float | int:
    """A (finite) YAML float as the JSON sigs.k8s.io/yaml writes for it reads
    back: Go's ``json.Marshal`` writes a float64 of magnitude below 1e21 in
    plain decimals, so ``1.0`` and ``1e3`` become the JSON integers ``1`` and
    ``1000`` -- which an integer field accepts, as the API server does for
    YAML (while JSON's ``1.0`` is refused). The digits are the shortest that
    read back as the float (Go's and Python's ``repr`` agree)."""
    if v != v // 1 or abs(v) >= 1e21:
        return v
    return int(Decimal(repr(v))) if abs(v) >= 2**53 else int(v)


def go_float32_text(v: float) -> str:
    """``strconv.FormatFloat(v, 'g', -1, 32)``: the shortest digits that read
    back as the same float32, as %e when the exponent is below -4 or at least
    6 (Go's rule for the shortest form), else as plain decimals."""
    if math.isnan(v) or math.isinf(v):
        return ".nan" if math.isnan(v) else (".inf" if v > 0 else "-.inf")
    f32 = struct.unpack("f", struct.pack("f", v))[0]
    text = f"{f32:.8e}"
    for precision in range(9):
        text = f"{f32:.{precision}e}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == f32:
            break
    mantissa, _, exp_text = text.partition("e")
    exp = int(exp_text)
    digits = mantissa.replace(".", "").replace("-", "").rstrip("0") or "0"
    sign = "-" if mantissa.startswith("-") else ""
    if exp < -4 or exp >= 6:
        body = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{body}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    if exp < 0:
        return f"{sign}0.{'0' * (-exp - 1)}{digits}"
    whole, frac = digits[:exp + 1].ljust(exp + 1, "0"), digits[exp + 1:]
    return f"{sign}{whole}" + (f".{frac}" if frac else "")


def json_key(key: Any, line: int) -> str:
    """sigs.k8s.io/yaml's key conversion: strings stay, numbers and booleans
    become their text, anything else is an error."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        if key >= _INT64:
            raise YAMLMeaningError(f"unsupported map key {key} (line {line})")
        return str(key)
    if isinstance(key, float):
        return go_float32_text(key)
    what = "null" if key is None else type(key).__name__
    raise YAMLMeaningError(f"unsupported map key of type {what} (line {line})")


def load_exact(text: str, line_offset: int = 0) -> list[Any]:
    """The documents of ``text`` as Kubernetes' YAML decoder sees them."""
    return [_Decoder().document(doc) for doc in compose(text, line_offset)]
