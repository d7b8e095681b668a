"""Reading objects: YAML and JSON files, multi-document streams, ``kubectl get -o
yaml`` List objects, directories and stdin.

Every problem is reported as an :class:`~dralloc.errors.InputError` naming the
file, the document, the object and the field; ``load`` keeps going and returns
all problems at once so a batch reports each failure."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from dralloc.errors import InputError
from dralloc.io import registry
from dralloc.io.defaults import default_claim, default_template
from dralloc.io.mixins import flatten_slice
from dralloc.models import (
    DeviceClass,
    Node,
    Pod,
    PodGroup,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
    TypedObject,
    Workload,
)

# libyaml's safe loader when PyYAML has it (about 10x faster on cluster dumps)
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024
SUFFIXES = (".yaml", ".yml", ".json")


class UnreadableError(InputError):
    """A file that cannot be read or parsed at all (as opposed to an object in
    it that is wrong)."""


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
class ObjectSet:
    """Everything read, by kind, in input order."""

    slices: list[ResourceSlice] = field(default_factory=list)
    classes: list[DeviceClass] = field(default_factory=list)
    claims: list[ResourceClaim] = field(default_factory=list)
    templates: list[ResourceClaimTemplate] = field(default_factory=list)
    nodes: list[Node] = field(default_factory=list)
    pods: list[Pod] = field(default_factory=list)
    workloads: list[Workload] = field(default_factory=list)
    pod_groups: list[PodGroup] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    origin: dict[int, str] = field(default_factory=dict)  # id(obj) -> where

    def add(self, obj: TypedObject, where: str = "") -> None:
        bucket: list[Any] = {  # type: ignore[assignment]
            ResourceSlice: self.slices, DeviceClass: self.classes, ResourceClaim: self.claims,
            ResourceClaimTemplate: self.templates, Node: self.nodes, Pod: self.pods,
            Workload: self.workloads, PodGroup: self.pod_groups,
        }[type(obj)]
        bucket.append(obj)
        if where:
            self.origin[id(obj)] = where

    def extend(self, other: ObjectSet) -> None:
        for obj in other.all():
            self.add(obj, other.origin.get(id(obj), ""))
        self.errors.extend(other.errors)
        self.skipped.extend(other.skipped)

    def all(self) -> Iterator[TypedObject]:
        yield from self.slices
        yield from self.classes
        yield from self.claims
        yield from self.templates
        yield from self.nodes
        yield from self.pods
        yield from self.workloads
        yield from self.pod_groups

    def where(self, obj: TypedObject) -> str:
        return self.origin.get(id(obj), "")

    def class_by_name(self) -> dict[str, DeviceClass]:
        return {c.name: c for c in self.classes}

    def node(self, name: str) -> Node | None:
        return next((n for n in self.nodes if n.name == name), None)

    def claim(self, key: str) -> ResourceClaim | None:
        ns, _, name = key.rpartition("/")
        return next((c for c in self.claims if c.name == name and (not ns or c.namespace == ns)), None)


def iter_files(paths: Iterable[str | Path]) -> Iterator[Path | None]:
    """Files named by ``paths`` (directories walked recursively in name order;
    ``-`` yields None for stdin)."""
    for p in paths:
        if str(p) == "-":
            yield None
            continue
        path = Path(p)
        if path.is_dir():
            yield from sorted(f for f in path.rglob("*") if f.is_file() and f.suffix in SUFFIXES)
        else:
            yield path


_DEEP_INDENT = re.compile(r"^ {2000,}", re.MULTILINE)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
MAX_C_DEPTH = 1000


def _shallow(text: str) -> bool:
    """Whether libyaml may parse ``text``: its C parser recurses per nesting
    level and crashes the process on absurd depths, so deep documents go to the
    pure-Python parser, which fails with a clean RecursionError instead."""
    if _DEEP_INDENT.search(text):
        return False
    brackets = _NOT_BRACKET.sub("", text)
    if len(brackets) <= MAX_C_DEPTH:
        return True
    return max(accumulate(1 if c in "[{" else -1 for c in brackets)) <= MAX_C_DEPTH


def read_documents(path: Path | None) -> tuple[list[RawDocument], list[InputError]]:
    """Parse one file (None: stdin) into raw documents; Lists are flattened."""
    source = "<stdin>" if path is None else str(path)
    try:
        text = sys.stdin.read() if path is None else path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        return [], [UnreadableError(f"cannot read: {e}", source=source)]
    if len(text) > MAX_DOCUMENT_BYTES:
        return [], [UnreadableError(f"file is larger than {MAX_DOCUMENT_BYTES} bytes", source=source)]
    try:
        if path is not None and path.suffix == ".json":
            docs = [json.loads(text)]
        else:
            loader = SAFE_LOADER if _shallow(text) else yaml.SafeLoader
            docs = list(yaml.load_all(text, Loader=loader))  # noqa: S506 - a safe loader
    except (yaml.YAMLError, json.JSONDecodeError) as e:
        return [], [UnreadableError("not valid YAML/JSON: " + " ".join(str(e).split()), source=source)]
    except RecursionError:
        return [], [UnreadableError("document is nested too deeply", source=source)]
    out: list[RawDocument] = []
    for i, d in enumerate(docs):
        if d is None:
            continue
        if isinstance(d, dict) and isinstance(d.get("kind"), str) and d["kind"].endswith("List") and "items" in d:
            for j, item in enumerate(d.get("items") or []):
                out.append(RawDocument(source, i, item, j))
        else:
            out.append(RawDocument(source, i, d))
    return out, []


def _field_path(loc: tuple[Any, ...]) -> str:
    s = ""
    for part in loc:
        if isinstance(part, int):
            s += f"[{part}]"
        else:
            s += ("." if s else "") + str(part)
    return s


def describe_validation_error(e: ValidationError, limit: int = 5) -> list[tuple[str, str]]:
    """(field path, message) pairs, camelCase paths as the user wrote them."""
    out = []
    for err in e.errors()[:limit]:
        loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-")))
        out.append((_field_path(loc), err["msg"]))
    return out


def parse_object(data: Any, where: str = "", skip_unknown: bool = False) -> TypedObject | None:
    """Turn one raw document into a model (converting older API versions and
    applying API-server defaults). Unknown kinds raise unless ``skip_unknown``."""
    if not isinstance(data, dict):
        raise InputError(f"expected a Kubernetes object (a mapping), got {type(data).__name__}", source=where)
    api_version, kind = data.get("apiVersion"), data.get("kind")
    name = (data.get("metadata") or {}).get("name", "") if isinstance(data.get("metadata"), dict) else ""
    obj_ref = f"{kind or '?'} {name}".strip()
    if not isinstance(api_version, str) or not isinstance(kind, str):
        keys = ", ".join(sorted(map(str, data))[:6]) or "none"
        raise InputError(f"not a Kubernetes object: apiVersion and kind must be strings (top-level keys: {keys})",
                         source=where, obj=obj_ref)
    found = registry.lookup(api_version, kind)
    if found is None:
        if skip_unknown:
            return None
        raise InputError(f"unsupported kind {kind} in {api_version} (supported: "
                         + ", ".join(f"{a} {k}" for a, k in registry.supported()) + ")",
                         source=where, obj=obj_ref)
    model, converter = found
    note = ""
    if converter is not None:
        note = f" (in the v1 layout, converted from {api_version})"
        try:
            data = converter(data)
        except InputError as e:
            raise InputError(e.message, source=where, obj=obj_ref, field=e.field) from None
    try:
        obj = model.model_validate(data)
    except ValidationError as e:
        problems = describe_validation_error(e)
        fieldp, msg = problems[0]
        more = f" (and {len(e.errors()) - 1} more problem(s))" if len(e.errors()) > 1 else ""
        raise InputError(msg + more + note, source=where, obj=obj_ref, field=fieldp) from None
    except RecursionError:
        raise InputError("object is nested too deeply", source=where, obj=obj_ref) from None
    return _after_validation(obj, where, obj_ref)


def _after_validation(obj: TypedObject, where: str, obj_ref: str) -> TypedObject:
    """API-server defaults for claims; mixins flattened for slices."""
    if isinstance(obj, ResourceClaim):
        return default_claim(obj)
    if isinstance(obj, ResourceClaimTemplate):
        return default_template(obj)
    if isinstance(obj, ResourceSlice):
        try:
            return flatten_slice(obj)
        except InputError as e:
            raise InputError(e.message, source=where, obj=obj_ref, field=e.field) from None
    return obj


def load(paths: Iterable[str | Path], skip_unknown: bool = False) -> ObjectSet:
    """Load every object from ``paths``. Problems are collected in ``.errors``;
    unknown kinds go to ``.skipped`` when ``skip_unknown`` is set."""
    result = ObjectSet()
    for path in iter_files(paths):
        docs, errors = read_documents(path)
        result.errors.extend(errors)
        for doc in docs:
            try:
                obj = parse_object(doc.data, doc.where, skip_unknown)
            except InputError as e:
                result.errors.append(e)
                continue
            if obj is None:
                kind = doc.data.get("kind") if isinstance(doc.data, dict) else "?"
                api = doc.data.get("apiVersion") if isinstance(doc.data, dict) else "?"
                result.skipped.append(f"{doc.where}: {kind} ({api}) is not a kind dralloc reads; skipped")
            else:
                result.add(obj, doc.where)
    return result


def load_strict(paths: Iterable[str | Path], skip_unknown: bool = False) -> ObjectSet:
    """Like :func:`load`, but raise the first problem."""
    objs = load(paths, skip_unknown)
    if objs.errors:
        raise objs.errors[0]
    return objs
