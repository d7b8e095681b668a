"""Writing results: the one serializer behind every machine-readable output
(``-o yaml`` and ``-o json`` of every command, the audit report, the planner's
answers), shaped as kubectl prints objects.

Keys are camelCase, as in Kubernetes objects (the producers write them so;
:func:`camel` converts a Python name). Several Kubernetes objects are a YAML
stream (one document each) or, in JSON, one object alone and a
``kind: List`` otherwise, as ``kubectl get -o json`` prints them. YAML lines
are never folded (a message stays on one line), keys keep their order, and a
value that occurs twice is written out twice (never an anchor and alias)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import IO, Any

import yaml

FORMATS = ("yaml", "json")
_BASE = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Dumper(_BASE):  # type: ignore[misc,valid-type]
    """The safe dumper, writing a value that occurs twice twice: never an
    anchor and alias (``&id001`` / ``*id001``), which kubectl never prints
    and many readers of the output do not expect."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


_DUMPER = _Dumper
_WIDTH = 1 << 30  # no folding


def camel(name: str) -> str:
    """``replayed_pods`` -> ``replayedPods`` (a name already in camelCase is kept)."""
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def render(data: Any, fmt: str) -> str:
    """One value (a mapping, a list...) as YAML or JSON text, ending in a newline."""
    if fmt == "json":
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if fmt == "yaml":
        return str(yaml.dump(data, Dumper=_DUMPER, sort_keys=False, width=_WIDTH, allow_unicode=True))
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")


def as_list(items: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Objects as the ``kind: List`` kubectl prints for several objects."""
    return {"apiVersion": "v1", "kind": "List", "items": list(items)}


def render_objects(docs: list[dict[str, Any]], fmt: str) -> str:
    """Kubernetes objects: a YAML stream, or JSON (one object, else a List).
    No object is an empty string in YAML and an empty List in JSON."""
    if fmt == "json":
        return render(docs[0] if len(docs) == 1 else as_list(docs), "json")
    if fmt == "yaml":
        if not docs:
            return ""
        return str(yaml.dump_all(docs, Dumper=_DUMPER, sort_keys=False, width=_WIDTH, allow_unicode=True))
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")


def write_objects(docs: list[dict[str, Any]], fmt: str, stream: IO[str]) -> None:
    """:func:`render_objects` written to ``stream`` as it is produced (large
    outputs are never held twice in memory)."""
    if fmt == "json":
        json.dump(docs[0] if len(docs) == 1 else as_list(docs), stream, indent=2, ensure_ascii=False)
        stream.write("\n")
    elif fmt == "yaml":
        yaml.dump_all(docs, stream, Dumper=_DUMPER, sort_keys=False, width=_WIDTH, allow_unicode=True)
    else:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
