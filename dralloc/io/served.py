"""What the loader says about objects the Kubernetes release answered for
does not serve: an API version it has no longer (or not yet), or a field it
does not have (:data:`dralloc.release.SERVED`, :data:`dralloc.release.FIELDS`).
Such objects are read all the same; each (kind, version) or field gets one
warning line naming the release, the first place and how many objects.

While loading, :class:`Seen` records every (apiVersion, kind) and every
release-dependent field met (``ObjectSet.api_seen``), so the lines can be
had for any release afterwards (``compare-versions`` asks two)."""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from dralloc.io.parse import RawDocument
from dralloc.models import TypedObject
from dralloc.release import FIELDS, Release, release

# ("api", apiVersion, kind) or ("field", kind, path) -> [objects, first place]
SeenMap = dict[tuple[str, str, str], list[Any]]


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def _steps(path: str) -> list[tuple[str, Any, bool]]:
    """``path``'s parts: (field name, its getter, every item of a list), worked out once."""
    got = _STEPS.get(path)
    if got is None:
        got = _STEPS[path] = [(attr, attrgetter(attr), part.endswith("[]"))
                              for part in path.split(".") for attr in (_snake(part.removesuffix("[]")),)]
    return got


_STEPS: dict[str, list[tuple[str, Any, bool]]] = {}


def present(obj: Any, path: str) -> bool:
    """Whether ``obj`` sets the field ``path`` (camelCase parts, ``[]`` for
    every item of a list) anywhere."""
    level = [obj]
    for attr, get, many in _steps(path):
        try:   # a slice's devices: one C-level pass (the loader pays this per slice)
            values = list(map(get, level))
        except AttributeError:
            values = [getattr(o, attr, None) for o in level]
        if values.count(None) == len(values):
            return False
        level = [x for v in values if v is not None for x in v] if many else [v for v in values if v is not None]
        if not level:
            return False
    return True


_PATHS: dict[str, list[str]] = {}
for _kind, _path in FIELDS:
    _PATHS.setdefault(_kind, []).append(_path)


def record(seen: SeenMap, doc: RawDocument, obj: TypedObject) -> None:
    """Note the document's (apiVersion, kind) and its release-dependent fields."""
    data = doc.data
    keys = [("api", str(data.get("apiVersion")), str(data.get("kind")))]
    keys += [("field", obj.kind, p) for p in _PATHS.get(obj.kind, ()) if present(obj, p)]
    for key in keys:
        entry = seen.get(key)
        if entry is None:
            seen[key] = [1, doc.where]
        else:
            entry[0] += 1


def merge(into: SeenMap, other: SeenMap) -> None:
    for key, (n, where) in other.items():
        entry = into.setdefault(key, [0, where])
        entry[0] += n


def unserved(seen: SeenMap, kubernetes_version: str | Release | None = None) -> list[str]:
    """One warning line per (kind, version) or field the release does not
    serve, in the order first met."""
    rel = release(kubernetes_version)
    out = []
    for (what, a, b), (n, where) in seen.items():
        why = rel.unserved(a, b) if what == "api" else rel.unserved_field(a, b)
        if why is None:
            continue
        if what == "field":
            why = f"{a} {b}: {why}"
        out.append(f"{where}: {why}; read anyway" + (f" ({n} objects)" if n > 1 else ""))
    return out
