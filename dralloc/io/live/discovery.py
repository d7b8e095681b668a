"""Which API version to list each kind in: the server's discovery documents
(``/api``, ``/api/v1``, ``/apis``, ``/apis/<group>/<version>``) say which
group versions it serves and which resources (plural names, namespaced,
verbs) each has; of the versions that serve a kind dralloc reads
(:mod:`dralloc.io.registry`), the most stable is taken, in Kubernetes'
version priority (GA, then beta, then alpha; higher numbers first), so a
1.34+ cluster's DRA objects are read in resource.k8s.io/v1 without
conversion, a 1.36 cluster's gangs in scheduling.k8s.io/v1alpha2.

A kind the server serves only in versions dralloc does not read, and a kind
it does not serve at all, get a note (a warning line); an API a cluster may
leave off (the Workload API, off by default; DeviceTaintRule, the
DRADeviceTaints API) is said nothing of when off: the cluster then has none
of its objects."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from dralloc.errors import InputError
from dralloc.io import registry
from dralloc.io.live.connect import Connection

# The kinds of APIs a cluster may leave off (the Workload API's, GenericWorkload;
# DeviceTaintRule, DRADeviceTaints): one not served gets no note.
OPTIONAL_KINDS = frozenset({"Workload", "PodGroup", "CompositePodGroup", "DeviceTaintRule"})


@dataclass(frozen=True)
class Served:
    """One kind as the server serves it in the version chosen."""

    kind: str
    api_version: str      # "v1", "resource.k8s.io/v1"
    plural: str           # "resourceslices"
    namespaced: bool

    def path(self, namespace: str | None) -> str:
        """The list path, at the cluster scope or in ``namespace``."""
        base = f"/api/{self.api_version}" if "/" not in self.api_version else f"/apis/{self.api_version}"
        if namespace is not None and self.namespaced:
            return f"{base}/namespaces/{namespace}/{self.plural}"
        return f"{base}/{self.plural}"

    @property
    def resource(self) -> str:
        """``resourceslices.resource.k8s.io`` (the core group: ``pods``)."""
        group = self.api_version.rpartition("/")[0]
        return f"{self.plural}.{group}" if group else self.plural


_VERSION = re.compile(r"v(\d+)(?:(alpha|beta)(\d+))?")


def priority(version: str) -> tuple[int, int, int, str]:
    """Sort key of Kubernetes' version priority: v1 before v1beta2 before
    v1beta1 before v1alpha3, then versions that are not Kubernetes-like, by
    name."""
    m = _VERSION.fullmatch(version)
    if m is None:
        return (3, 0, 0, version)
    level = {None: 0, "beta": 1, "alpha": 2}[m.group(2)]
    return (level, -int(m.group(1)), -int(m.group(3) or 0), "")


def _group(api_version: str) -> str:
    return api_version.rpartition("/")[0]


def _wanted() -> dict[str, list[str]]:
    """Group -> the kinds dralloc reads in it (the core group is "")."""
    out: dict[str, list[str]] = {}
    for api_version, kind in registry.supported():
        kinds = out.setdefault(_group(api_version), [])
        if kind not in kinds:
            kinds.append(kind)
    return out


def _document(conn: Connection, path: str, kind: str) -> dict[str, Any]:
    """A discovery document, which must be a ``kind`` object."""
    doc = conn.get_json(path)
    if not isinstance(doc, dict):
        raise InputError(f"the API server {conn.server} ({conn.label}) answered GET {path} with something that "
                         f"is not an {kind}")
    return doc


def _resources(doc: dict[str, Any]) -> dict[str, tuple[str, bool]]:
    """kind -> (plural, namespaced) of the listable resources of an
    APIResourceList (subresources such as ``pods/status`` left out)."""
    out: dict[str, tuple[str, bool]] = {}
    for r in doc.get("resources") or []:
        if not isinstance(r, dict):
            continue
        name = str(r.get("name", ""))
        if not name or "/" in name or "list" not in (r.get("verbs") or []):
            continue
        out.setdefault(str(r.get("kind")), (name, bool(r.get("namespaced"))))
    return out


def _group_versions(conn: Connection, groups: set[str]) -> dict[str, list[str]]:
    """Group -> the versions the server serves of each group asked for."""
    out: dict[str, list[str]] = {}
    if "" in groups:
        out[""] = [str(v) for v in _document(conn, "/api", "APIVersions").get("versions") or []]
    for g in _document(conn, "/apis", "APIGroupList").get("groups") or []:
        if isinstance(g, dict) and g.get("name") in groups:
            out[str(g["name"])] = [str(v.get("version")) for v in g.get("versions") or []]
    return out


def discover(conn: Connection) -> tuple[list[Served], list[str]]:
    """The kinds to list (in :data:`dralloc.io.registry.MODELS` order) and
    the notes on kinds that cannot be read."""
    wanted = _wanted()
    versions = _group_versions(conn, set(wanted))
    offered: dict[str, list[tuple[str, str, bool]]] = {}   # kind -> [(apiVersion, plural, namespaced)]
    for group, kinds in wanted.items():
        for version in versions.get(group, []):
            gv = f"{group}/{version}" if group else version
            doc = _document(conn, f"/apis/{gv}" if group else f"/api/{gv}", "APIResourceList")
            for kind, (plural, namespaced) in _resources(doc).items():
                if kind in kinds:
                    offered.setdefault(kind, []).append((gv, plural, namespaced))
    chosen, notes = [], []
    for kind in registry.MODELS:
        found = offered.get(kind, [])
        readable = [f for f in found if registry.lookup(f[0], kind) is not None]
        if readable:
            gv, plural, namespaced = min(readable, key=lambda f: priority(f[0].rpartition("/")[2]))
            chosen.append(Served(kind, gv, plural, namespaced))
        elif found:
            reads = ", ".join(sorted(a for a, k in registry.supported() if k == kind))
            notes.append(f"{conn.label}: the server serves {kind} in {', '.join(sorted(f[0] for f in found))}, "
                         f"which dralloc does not read (it reads {reads}); no {kind} read")
        elif kind not in OPTIONAL_KINDS:
            notes.append(f"{conn.label}: the server does not serve {kind}; none read")
    return chosen, notes
