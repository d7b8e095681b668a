"""Nodes in the order the Kubernetes scheduler lists them.

The scheduler keeps nodes in a tree of zones: a zone is the pair (region,
zone) read from the node's labels (``failure-domain.beta.kubernetes.io/*``
first, then ``topology.kubernetes.io/*``), zones in the order their first node
arrived, nodes in a zone in arrival order. Its node list takes one node from
each zone in turn (the first of every zone, then the second...). Filtering
starts from a rotating index into that list; the cluster object lists from the
start. A node whose labels change zone moves to the end of its new zone, as an
update does in the scheduler's cache."""

from __future__ import annotations

from dataclasses import dataclass, field

from dralloc.models import Node

ZONE = ("failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone")
REGION = ("failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/region")


def _label(labels: dict[str, str], keys: tuple[str, str]) -> str:
    for k in keys:
        if k in labels:
            return labels[k]
    return ""


def zone_key(node: Node) -> tuple[str, str]:
    """(region, zone); ("", "") when neither is set."""
    labels = node.metadata.labels or {}
    return (_label(labels, REGION), _label(labels, ZONE))


@dataclass
class NodeTree:
    zones: dict[tuple[str, str], dict[str, None]] = field(default_factory=dict)   # zone -> names, in arrival order
    zone_of: dict[str, tuple[str, str]] = field(default_factory=dict)
    _listed: list[str] | None = None

    def add(self, node: Node) -> None:
        zone = zone_key(node)
        old = self.zone_of.get(node.name)
        if old == zone:
            return
        if old is not None:
            self.remove(node.name)
        self.zones.setdefault(zone, {})[node.name] = None
        self.zone_of[node.name] = zone
        self._listed = None

    def remove(self, name: str) -> None:
        zone = self.zone_of.pop(name, None)
        if zone is None:
            return
        names = self.zones[zone]
        del names[name]
        if not names:
            del self.zones[zone]
        self._listed = None

    def listed(self) -> list[str]:
        """Node names, one zone after the other in turn."""
        if self._listed is None:
            columns = [list(names) for names in self.zones.values()]
            depth = max((len(c) for c in columns), default=0)
            self._listed = [c[i] for i in range(depth) for c in columns if i < len(c)]
        return self._listed
