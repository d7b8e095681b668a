"""Reading objects: YAML and JSON files, multi-document streams, ``kubectl get -o
yaml`` List objects, directories and stdin.

Every problem is reported as an :class:`~dralloc.errors.InputError` naming the
file, the document, the object and the field. ``load`` reads everything and
then raises all problems at once (:class:`~dralloc.errors.InputErrors`), or
returns them in ``ObjectSet.errors`` when asked to collect them.

What ``load`` does besides parsing, as the API server would see the input:
documents of kinds dralloc does not read are skipped with a warning line each
(``ObjectSet.skipped``; errors with ``strict``); two objects of one kind and
key (namespace/name, or name for cluster-scoped kinds) are an error naming both
places (with ``last_wins`` the later one replaces the earlier, with a warning
line in ``ObjectSet.replaced``); a namespaced object without a namespace lands
in ``default``, as kubectl puts it there; an object in an API version (or
with a field) the Kubernetes release answered for does not serve is read,
with one warning line per kind and version naming the release
(``ObjectSet.unserved``; :mod:`dralloc.release`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from dralloc.errors import InputError, InputErrors
from dralloc.io import build, registry, share
from dralloc.io.defaults import default_claim, default_namespace, default_template
from dralloc.io.mixins import flatten_slice
from dralloc.io.parse import RawDocument, UnreadableError, read_documents
from dralloc.io.progress import LoadProgress
from dralloc.io.served import SeenMap, merge, record, unserved
from dralloc.io.sources import SUFFIXES, Input, documents, expand, iter_files, release, size
from dralloc.models import (
    CompositePodGroup,
    DeviceClass,
    DeviceTaintRule,
    Node,
    Pod,
    PodDisruptionBudget,
    PodGroup,
    PriorityClass,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
    TypedObject,
    Workload,
)
from dralloc.models.base import json_kind

# UnreadableError, read_documents and RawDocument live in dralloc.io.parse;
# they are still importable from here, where they used to be.
__all__ = ["SUFFIXES", "ObjectSet", "RawDocument", "UnreadableError", "describe_key", "iter_files", "load",
           "object_key", "parse_object", "read_documents"]

Key = tuple[str, str, str]  # kind, namespace ("" for cluster-scoped kinds), name


def object_key(obj: TypedObject) -> Key:
    """What the API server keys an object by: kind and name, plus the
    namespace for namespaced kinds."""
    ns = (obj.metadata.namespace or "") if registry.namespaced(obj.kind) else ""
    return obj.kind, ns, obj.metadata.name


# metadata the API server sets: two dumps of one object taken at different
# times differ in these only
SERVER_METADATA = ("resourceVersion", "uid", "creationTimestamp", "generation", "managedFields")


def same_object(a: TypedObject, b: TypedObject) -> bool:
    """Whether ``a`` and ``b`` are one object: equal in everything but the
    metadata the API server sets."""
    if type(a) is not type(b):
        return False

    def content(o: TypedObject) -> dict[str, Any]:
        d = o.model_dump(by_alias=True, exclude_none=True)
        meta = d.get("metadata") or {}
        d["metadata"] = {k: v for k, v in meta.items() if k not in SERVER_METADATA}
        return d

    return content(a) == content(b)


def describe_key(key: Key) -> str:
    kind, ns, name = key
    return f"{kind} {ns}/{name}" if ns else f"{kind} {name}"


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
    composite_pod_groups: list[CompositePodGroup] = field(default_factory=list)
    budgets: list[PodDisruptionBudget] = field(default_factory=list)
    priority_classes: list[PriorityClass] = field(default_factory=list)
    taint_rules: list[DeviceTaintRule] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)    # documents of kinds dralloc does not read
    replaced: list[str] = field(default_factory=list)   # duplicates replaced (last_wins)
    unserved: list[str] = field(default_factory=list)   # API versions / fields the release does not serve
    notes: list[str] = field(default_factory=list)      # what a source says of itself (a cluster's scope)
    api_seen: SeenMap = field(default_factory=dict)     # every (apiVersion, kind) and release field read
    origin: dict[int, str] = field(default_factory=dict)  # id(obj) -> where
    admitted: bool = False  # every object defaulted and validated as the API server does
    # id(slice) -> (slice, how its devices were built from an earlier slice's): admission checks what changed
    derived: dict[int, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of(cls, objects: Iterable[TypedObject]) -> ObjectSet:
        """A set of objects built in Python, in the given order; messages name
        each by its place in ``objects`` ("object #3")."""
        out = cls()
        for i, o in enumerate(objects):
            out.add(o, f"object #{i}")
        return out

    def _bucket(self, obj: TypedObject) -> list[Any]:
        return {  # type: ignore[return-value]
            ResourceSlice: self.slices, DeviceClass: self.classes, ResourceClaim: self.claims,
            ResourceClaimTemplate: self.templates, Node: self.nodes, Pod: self.pods,
            Workload: self.workloads, PodGroup: self.pod_groups, CompositePodGroup: self.composite_pod_groups,
            PodDisruptionBudget: self.budgets, PriorityClass: self.priority_classes, DeviceTaintRule: self.taint_rules,
        }[type(obj)]

    def add(self, obj: TypedObject, where: str = "") -> None:
        self._bucket(obj).append(obj)
        if where:
            self.origin[id(obj)] = where

    def replace(self, old: TypedObject, new: TypedObject, where: str | None = None) -> None:
        """Put ``new`` where ``old`` is (same kind), keeping its place in input
        order; ``new`` takes ``where``, or else ``old``'s origin."""
        bucket = self._bucket(old)
        bucket[next(i for i, o in enumerate(bucket) if o is old)] = new
        here = self.origin.pop(id(old), "")
        if where is not None:
            here = where
        if here:
            self.origin[id(new)] = here

    def extend(self, other: ObjectSet) -> None:
        for obj in other.all():
            self.add(obj, other.origin.get(id(obj), ""))
        self.errors.extend(other.errors)
        self.skipped.extend(other.skipped)
        self.replaced.extend(other.replaced)
        self.unserved.extend(other.unserved)
        self.notes.extend(other.notes)
        merge(self.api_seen, other.api_seen)
        self.derived.update(other.derived)
        self.admitted = False

    def all(self) -> Iterator[TypedObject]:
        yield from self.slices
        yield from self.classes
        yield from self.claims
        yield from self.templates
        yield from self.nodes
        yield from self.pods
        yield from self.workloads
        yield from self.pod_groups
        yield from self.composite_pod_groups
        yield from self.budgets
        yield from self.priority_classes
        yield from self.taint_rules

    @property
    def warnings(self) -> list[str]:
        """Every warning line: what a source says of itself, skipped
        documents, replaced duplicates, API versions and fields the release
        does not serve."""
        return [*self.notes, *self.skipped, *self.replaced, *self.unserved]

    def where(self, obj: TypedObject) -> str:
        return self.origin.get(id(obj), "")

    def class_by_name(self) -> dict[str, DeviceClass]:
        return {c.name: c for c in self.classes}

    def node(self, name: str) -> Node | None:
        return next((n for n in self.nodes if n.name == name), None)

    def claim(self, key: str) -> ResourceClaim | None:
        """The claim ``namespace/name``; a bare name means the ``default``
        namespace, as for kubectl (or no namespace, in a scenario file)."""
        ns, _, name = key.rpartition("/")
        spaces = (ns,) if ns else ("default", "")
        return next((c for c in self.claims if c.name == name and c.namespace in spaces), None)


def _field_path(loc: tuple[Any, ...]) -> str:
    s = ""
    for part in loc:
        if isinstance(part, int):
            s += f"[{part}]"
        else:
            s += ("." if s else "") + str(part)
    return s


# errors of a value of the wrong JSON type: the message says what the document held
_TYPE_ERRORS = frozenset(("int_type", "bool_type", "string_type", "list_type", "dict_type", "model_type",
                          "literal_error", "float_type"))


def _message(err: Any) -> str:
    msg: str = err["msg"]
    return f"{msg}, not {json_kind(err['input'])}" if err["type"] in _TYPE_ERRORS else msg


def describe_validation_error(e: ValidationError, limit: int = 5) -> list[tuple[str, str]]:
    """(field path, message) pairs, camelCase paths as the user wrote them."""
    out = []
    for err in e.errors()[:limit]:
        loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-")))
        out.append((_field_path(loc), _message(err)))
    return out


def parse_object(data: Any, where: str = "", skip_unknown: bool = False) -> TypedObject | None:
    """Turn one raw document into a model (converting older API versions and
    applying API-server defaults). Unknown kinds raise unless ``skip_unknown``."""
    if not isinstance(data, dict):
        raise InputError(f"expected a Kubernetes object (a mapping), got {type(data).__name__}", source=where)
    api_version, kind = data.get("apiVersion"), data.get("kind")
    name = (data.get("metadata") or {}).get("name", "") if isinstance(data.get("metadata"), dict) else ""
    obj_ref = f"{kind if isinstance(kind, str) else ''} {name if isinstance(name, str) else ''}".strip()
    if not isinstance(api_version, str) or not isinstance(kind, str):
        keys = ", ".join(sorted(map(str, data))[:6]) or "none"
        hint = ("; it looks like a scenario file, which dralloc check, allocate, explain and encode read"
                if {"objects", "claims"} <= set(data) else "")
        raise InputError(f"not a Kubernetes object: apiVersion and kind must be strings (top-level keys: {keys})"
                         + hint, source=where, obj=obj_ref)
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
        except RecursionError:
            raise InputError("object is nested too deeply", source=where, obj=obj_ref) from None
    try:
        obj = build.validate(model, data)
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


class _Reader:
    """Adds parsed objects to an ObjectSet, refusing (or, with ``last_wins``,
    replacing) duplicates and reporting unknown documents."""

    def __init__(self, strict: bool, last_wins: bool) -> None:
        self.out = ObjectSet()
        self.strict = strict
        self.last_wins = last_wins
        self.seen: dict[Key, TypedObject] = {}

    def document(self, doc: RawDocument) -> None:
        own = registry.describe_own(doc.data)
        if own is not None:  # one of dralloc's own files among the objects: skipped like an unknown kind
            self.skip(doc, f"{own}, not a Kubernetes object", "")
            return
        try:
            obj = parse_object(doc.data, doc.where, skip_unknown=True)
        except InputError as e:
            self.out.errors.append(e)
            return
        if obj is None:
            self.unknown(doc)
            return
        record(self.out.api_seen, doc, obj)
        self.register(default_namespace(obj), doc.where)

    def unknown(self, doc: RawDocument) -> None:
        data = doc.data
        why = registry.describe_unknown(str(data.get("apiVersion")), str(data.get("kind")))
        name = (data.get("metadata") or {}).get("name") if isinstance(data.get("metadata"), dict) else None
        ref = f"{data.get('kind')} {name}" if isinstance(name, str) and name else ""
        self.skip(doc, why, ref)

    def skip(self, doc: RawDocument, why: str, ref: str) -> None:
        if self.strict:
            self.out.errors.append(InputError(f"{why} (--strict)", source=doc.where, obj=ref))
        else:
            self.out.skipped.append(f"{doc.where}: {why}; skipped")

    def register(self, obj: TypedObject, where: str) -> None:
        key = object_key(obj)
        earlier = self.seen.get(key) if key[2] else None  # generateName-only objects are all distinct
        self.seen[key] = obj
        if earlier is None:
            self.out.add(obj, where)
            return
        if same_object(earlier, obj):
            self.seen[key] = earlier  # the same object twice (overlapping dumps): read once, as apply would
            return
        first = self.out.where(earlier) or "an earlier document"
        if not self.last_wins:
            self.out.errors.append(InputError(f"duplicate {describe_key(key)}: also defined at {first} "
                                              "(give --last-wins to keep the later one)",
                                              source=where, obj=describe_key(key)))
            self.seen[key] = earlier
            return
        self.out.replace(earlier, obj, where)
        self.out.replaced.append(f"{where}: {describe_key(key)} replaces the one at {first}")


def load(inputs: Iterable[Input], *, collect: bool = False, strict: bool = False,
         last_wins: bool = False, progress: bool | None = None,
         kubernetes_version: str | None = None) -> ObjectSet:
    """Load every object from ``inputs`` -- paths (files, folders, ``-`` for
    stdin) and other sources (a live cluster: :class:`dralloc.io.live.LiveSource`;
    :mod:`dralloc.io.sources`) --, in input order.

    Problems (unreadable files, invalid objects, duplicates; documents of
    unknown kinds when ``strict``) are raised together as
    :class:`~dralloc.errors.InputErrors` once everything was read, or, with
    ``collect``, returned in ``.errors``. Documents of kinds dralloc does not
    read are listed in ``.skipped``; with ``last_wins`` a duplicate replaces
    the earlier object and ``.replaced`` says so. A load that takes over 2 s
    shows its progress on stderr when stderr is a terminal (``progress``:
    True always, False never). Objects in an API version, or with a field,
    that Kubernetes ``kubernetes_version`` (default: a cluster's own release,
    else 1.37) does not serve are read, with a warning line in ``.unserved``
    per kind and version; what a source says of itself is in ``.notes``."""
    reader = _Reader(strict, last_wins)
    items = expand(inputs)
    version = release(items, kubernetes_version)  # a cluster's release when none is given: asked first
    meter = LoadProgress(sum(size(i) for i in items), progress)
    with build.quiet_gc(), share.sharing() as tables:   # nodes of one type share their devices' parts
        for doc in documents(items, meter):
            if isinstance(doc, InputError):
                reader.out.errors.append(doc)
            elif isinstance(doc, str):
                reader.out.notes.append(doc)
            else:
                reader.document(doc)
                meter.object()
    meter.finish()
    reader.out.derived.update(tables.derived)
    reader.out.unserved.extend(unserved(reader.out.api_seen, version))
    if reader.out.errors and not collect:
        raise InputErrors(reader.out.errors)
    return reader.out
