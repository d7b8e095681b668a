"""``dralloc availability``'s answer: the ResourcePoolStatusRequest objects
and the PoolHeadroom object (``-o yaml|json``), and the tables: the pools
(what a ResourcePoolStatusRequest reports), their partition and shareable
summaries, and how many more of each shape fit on each node."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dralloc.audit.headroom import NONE, PROVEN, Fit, Shape
from dralloc.audit.poolstatus import StatusRequest, status_object

HEADROOM_API = "dralloc.io/v1alpha1"


@dataclass
class Report:
    requests: list[tuple[StatusRequest, dict[str, Any]]]
    shapes: list[Shape]
    fits: list[Fit]
    time_limit: float

    def objects(self) -> list[dict[str, Any]]:
        docs = [status_object(req, status) for req, status in self.requests]
        if self.shapes:
            docs.append(self.headroom_object())
        return docs

    def headroom_object(self) -> dict[str, Any]:
        nodes: dict[str, list[dict[str, Any]]] = {}
        for f in self.fits:
            if f.status == NONE:
                continue
            entry: dict[str, Any] = {"name": f.shape, "pools": f.pools, "fits": f.fits, "status": f.status}
            if f.bound is not None and f.bound != f.fits:
                entry["bound"] = f.bound
            if f.capped:
                entry["capped"] = True
            if f.note:
                entry["note"] = f.note
            if f.kubernetes is not None:
                entry["kubernetes"] = f.kubernetes
                entry["kubernetesStatus"] = "not decided" if f.kubernetes_stopped else "decided"
                if f.kubernetes_note:
                    entry["kubernetesNote"] = f.kubernetes_note
            nodes.setdefault(f.node, []).append(entry)
        return {"apiVersion": HEADROOM_API, "kind": "PoolHeadroom", "metadata": {"name": "dralloc-headroom"},
                "spec": {"timeLimitSeconds": self.time_limit,
                         "shapes": [{"name": s.name, "source": s.source, "claim": {"spec": s.claim.spec.dump()}}
                                    for s in self.shapes]},
                "status": {"nodes": [{"nodeName": n, "shapes": e} for n, e in nodes.items()]}}

    def table(self, wide: bool = False) -> str:
        return "\n".join(_pools(self) + _partitions(self) + _shareable(self) + _headroom(self, wide))




def _table(header: list[str], rows: list[list[str]]) -> str:
    allrows = [header, *rows]
    widths = [max(len(r[i]) for r in allrows) for i in range(len(header))]
    return "\n".join("   ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip() for r in allrows)


def _count(p: dict[str, Any], key: str) -> str:
    return str(p[key]) if key in p else "-"


def _pools(rep: Report) -> list[str]:
    rows = []
    for _, status in rep.requests:
        for p in status.get("pools", []):
            rows.append([p["driver"], p["poolName"], p.get("nodeName", "-"), str(p["generation"]),
                         _count(p, "resourceSliceCount"), _count(p, "totalDevices"), _count(p, "allocatedDevices"),
                         _count(p, "availableDevices"), _count(p, "unavailableDevices"), p.get("validationError", "")])
    out = ["POOLS (ResourcePoolStatusRequest status, resource.k8s.io/v1alpha3)"]
    if not rows:
        return [*out, "no pools"]
    out.append(_table(["DRIVER", "POOL", "NODE", "GENERATION", "SLICES", "DEVICES", "ALLOCATED", "AVAILABLE",
                       "UNAVAILABLE", "VALIDATION ERROR"], rows))
    shown = sum(len(s.get("pools", [])) for _, s in rep.requests)
    matched = sum(s["poolCount"] for _, s in rep.requests)
    if shown < matched:
        out.append(f"{matched - shown} more pool(s) match; raise --limit to see them")
    return out


def _partitions(rep: Report) -> list[str]:
    rows = [[p["driver"], p["poolName"], e["attribute"], e["type"], str(e["total"]), str(e["allocatable"])]
            for _, s in rep.requests for p in s.get("pools", []) for e in p.get("partitionSummary", [])]
    if not rows:
        return []
    return ["", "PARTITIONS (partitionSummary: each type on its own, the controller's greedy count)",
            _table(["DRIVER", "POOL", "ATTRIBUTE", "TYPE", "TOTAL", "ALLOCATABLE"], rows)]


def _shareable(rep: Report) -> list[str]:
    rows = []
    for _, s in rep.requests:
        for p in s.get("pools", []):
            sh = p.get("shareableSummary")
            if sh is None:
                continue
            caps = sh.get("capacity") or [{"name": "-", "total": "-", "consumed": "-", "available": "-"}]
            for c in caps:
                rows.append([p["driver"], p["poolName"], str(sh["fullyAvailableDevices"]),
                             str(sh["partiallyAvailableDevices"]), c["name"], c["total"], c["consumed"],
                             c["available"]])
    if not rows:
        return []
    return ["", "SHAREABLE (shareableSummary: devices that allow multiple allocations)",
            _table(["DRIVER", "POOL", "UNUSED", "PARTLY USED", "CAPACITY", "TOTAL", "CONSUMED", "AVAILABLE"], rows)]


def _headroom(rep: Report, wide: bool) -> list[str]:
    if not rep.shapes:
        return []
    rows = []
    for f in rep.fits:
        if f.status == NONE:
            continue
        more, how = (f.text(), "proven") if f.status == PROVEN else ("?", f.text())
        k8s = "-" if f.kubernetes is None else f"at least {f.kubernetes}" if f.kubernetes_stopped else str(f.kubernetes)
        if f.kubernetes_note:
            how += f"; Kubernetes: {f.kubernetes_note}"
        row = [f.node, ",".join(f.pools) or "-", f.shape, more, k8s, how]
        if wide:
            row.insert(4, "-" if f.bound is None else str(f.bound))
        rows.append(row)
    out = ["", f"MORE THAT FIT (exact, every counter, partition and constraint together; CP-SAT, "
           f"{rep.time_limit:g} s per node and shape; KUBERNETES: its allocator, one claim after another)"]
    if not rows:
        return [*out, "no node offers a device of any shape"]
    header = ["NODE", "POOLS", "SHAPE", "MORE", "KUBERNETES", "HOW"]
    if wide:
        header.insert(4, "BOUND")
    out.append(_table(header, rows))
    if wide:
        out += ["", "SHAPES", _table(["SHAPE", "WHAT"], [[s.name, s.source] for s in rep.shapes])]
    return out
