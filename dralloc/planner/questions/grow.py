"""Adding capacity: k copies of a *unit* -- one node with its node-local
slices, or a multi-host block (several nodes and the pools they share, e.g.
a KEP-4815 TPU block: a pool published for all nodes whose devices select
the block's hosts).

Copy j renames every node ``N`` of the unit to ``N-added-jjjj`` wherever the
name appears as a whole word (node names, hostname labels, slice and
per-device ``nodeName``, node selectors, counter names such as
``tpus-<host>``), and gives pools and slices the suffix ``-added-jjjj``
(pools named after a node follow the node). Everything else is kept."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from dralloc.errors import InputError
from dralloc.io import ObjectSet, parse_object
from dralloc.models import Node, ResourceSlice, TypedObject

SUFFIX = "added-{j:04d}"


class Unit:
    """What one added copy brings: nodes and slices."""

    def __init__(self, nodes: Sequence[Node], slices: Sequence[ResourceSlice]) -> None:
        self.nodes, self.slices = list(nodes), list(slices)
        names = sorted((n.name for n in self.nodes), key=len, reverse=True)
        self._names = re.compile("|".join(rf"(?<![a-z0-9.]){re.escape(n)}(?![a-z0-9.])" for n in names))

    @property
    def name(self) -> str:
        return self.nodes[0].name if len(self.nodes) == 1 else f"block of {len(self.nodes)} nodes ({self.nodes[0].name}, ...)"

    def copy_name(self, j: int) -> str:
        """The name copy ``j`` of the unit's first node gets."""
        return f"{self.nodes[0].name}-{SUFFIX.format(j=j)}"

    def _rename(self, value: Any, suffix: str) -> Any:
        if isinstance(value, str):
            return self._names.sub(lambda m: f"{m.group(0)}-{suffix}", value)
        if isinstance(value, dict):
            return {self._rename(k, suffix): self._rename(v, suffix) for k, v in value.items()}
        if isinstance(value, list):
            return [self._rename(v, suffix) for v in value]
        return value

    def copy(self, j: int) -> list[TypedObject]:
        suffix = SUFFIX.format(j=j)
        out: list[TypedObject] = []
        for obj in [*self.nodes, *self.slices]:
            data = self._rename(obj.model_dump(by_alias=True, exclude_none=True, mode="json"), suffix)
            if isinstance(obj, ResourceSlice):
                data["metadata"]["name"] = f"{obj.name}-{suffix}"
                pool = data["spec"]["pool"]
                if pool["name"] == obj.spec.pool.name:   # not named after a node
                    pool["name"] = f"{pool['name']}-{suffix}"
            got = parse_object(data, f"added copy {j} of {obj.ref}")
            assert got is not None
            out.append(got)
        return out


def unit_from(objs: ObjectSet, template: ObjectSet | None, name: str | None) -> Unit:
    """The unit to add: node ``name`` of the cluster (or of the template
    file) with its node-local slices; a template file with several nodes is
    a block: all its nodes and slices."""
    src = template if template is not None else objs
    if template is not None and len(template.nodes) > 1 and name in (None, template.nodes[0].name):
        return Unit(template.nodes, template.slices)
    node = next((n for n in src.nodes if n.name == name), None)
    if node is None:
        raise InputError(f"add-nodes: template node {name!r} not found among the nodes")
    slices = [s for s in src.slices if s.spec.node_name == node.name]
    if not slices:
        raise InputError(f"add-nodes: template node {node.name!r} has no ResourceSlice with nodeName {node.name!r}")
    return Unit([node], slices)


class Grower:
    """The cluster plus k copies of a unit."""

    def __init__(self, objs: ObjectSet, unit: Unit) -> None:
        self.objs, self.unit = objs, unit

    def with_k(self, k: int) -> ObjectSet:
        out = ObjectSet()
        for o in self.objs.all():
            out.add(o)
        for j in range(k):
            for o in self.unit.copy(j):
                out.add(o)
        return out
