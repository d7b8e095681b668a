"""What the loader says about objects the Kubernetes release answered for
does not serve: an API version it has no longer (or not yet), or a field it
does not have (:data:`dralloc.release.SERVED`, :data:`dralloc.release.FIELDS`).
Such objects are read all the same; each (kind, version) or field gets one
warning line naming the release, the first place and how many objects."""

from __future__ import annotations

from typing import Any

from dralloc.io.parse import RawDocument
from dralloc.models import TypedObject
from dralloc.release import FIELDS, release


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def present(obj: Any, path: str) -> bool:
    """Whether ``obj`` sets the field ``path`` (camelCase parts, ``[]`` for
    every item of a list) anywhere."""
    level = [obj]
    for part in path.split("."):
        many = part.endswith("[]")
        attr = _snake(part.removesuffix("[]"))
        nxt: list[Any] = []
        for o in level:
            v = getattr(o, attr, None)
            if v is None:
                continue
            if many:
                nxt.extend(v)
            else:
                nxt.append(v)
        level = nxt
        if not level:
            return False
    return True


_PATHS: dict[str, list[str]] = {}
for _kind, _path in FIELDS:
    _PATHS.setdefault(_kind, []).append(_path)


class ServedCheck:
    """Collects, while loading, what the release does not serve."""

    def __init__(self, kubernetes_version: str | None = None) -> None:
        self.release = release(kubernetes_version)
        self.found: dict[str, list[Any]] = {}   # why -> [objects, first place]

    def _note(self, why: str, where: str) -> None:
        entry = self.found.setdefault(why, [0, where])
        entry[0] += 1

    def check(self, doc: RawDocument, obj: TypedObject) -> None:
        data = doc.data
        why = self.release.unserved(str(data.get("apiVersion")), str(data.get("kind")))
        if why is not None:
            self._note(why, doc.where)
        for path in _PATHS.get(obj.kind, ()):
            if present(obj, path):
                why = self.release.unserved_field(obj.kind, path)
                if why is not None:
                    self._note(f"{obj.kind} {path}: {why}", doc.where)

    def lines(self) -> list[str]:
        """One warning line per finding, in the order first met."""
        return [f"{where}: {why}; read anyway" + (f" ({n} objects)" if n > 1 else "")
                for why, (n, where) in self.found.items()]
