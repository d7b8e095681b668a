"""Printing Kubernetes objects (flatten, convert, generate): YAML or JSON as
kubectl prints them, or a table of one row per object, as ``kubectl get``
lists them (wide: the device names of slices and the selectors of classes
and requests too). Works on the objects' dictionaries (camelCase)."""

from __future__ import annotations

from typing import Any

from dralloc.cli import common

OUTPUTS = ("yaml", "json", "table", "wide")


def _slice(spec: dict[str, Any], wide: bool) -> str:
    pool = spec.get("pool") or {}
    devices = spec.get("devices") or []
    where = spec.get("nodeName") or ("all nodes" if spec.get("allNodes") else
                                     "node selector" if spec.get("nodeSelector") else "per device")
    text = (f"driver {spec.get('driver')}, pool {pool.get('name')} (generation {pool.get('generation', 0)}, "
            f"{pool.get('resourceSliceCount', 0)} slice(s)), {where}, {len(devices)} device(s)")
    if spec.get("sharedCounters"):
        text += f", {len(spec['sharedCounters'])} counter set(s)"
    if wide and devices:
        text += ": " + ", ".join(str(d.get("name")) for d in devices)
    return text


def _requests(spec: dict[str, Any], wide: bool) -> str:
    reqs = (spec.get("devices") or {}).get("requests") or []
    parts = []
    for r in reqs:
        body = r.get("exactly") or {}
        if r.get("firstAvailable"):
            alts = [f"{s.get('deviceClassName')}" for s in r["firstAvailable"]]
            parts.append(f"{r.get('name')}: first of {' | '.join(alts)}")
            continue
        count = "all" if body.get("allocationMode") == "All" else body.get("count", 1)
        text = f"{r.get('name')}: {count} x {body.get('deviceClassName')}"
        if wide and body.get("selectors"):
            text += " where " + " && ".join(str((s.get("cel") or {}).get("expression")) for s in body["selectors"])
        parts.append(text)
    return "; ".join(parts) or "no requests"


def summary(doc: dict[str, Any], wide: bool = False) -> str:
    """One line about an object: what a reader looks for first."""
    kind, spec = doc.get("kind"), doc.get("spec") or {}
    if kind == "ResourceSlice":
        return _slice(spec, wide)
    if kind == "DeviceClass":
        sel = spec.get("selectors") or []
        text = f"{len(sel)} selector(s)"
        if wide and sel:
            text += ": " + " && ".join(str((s.get("cel") or {}).get("expression")) for s in sel)
        return text
    if kind == "ResourceClaim":
        return _requests(spec, wide)
    if kind == "ResourceClaimTemplate":
        return "template: " + _requests(spec.get("spec") or {}, wide)
    if kind == "Pod":
        claims = [c.get("name") for c in spec.get("resourceClaims") or []]
        return f"node {spec.get('nodeName') or '-'}, claims: {', '.join(map(str, claims)) or '-'}"
    if kind == "Node":
        return f"{len((doc.get('metadata') or {}).get('labels') or {})} label(s)"
    return "-"


def table(docs: list[dict[str, Any]], wide: bool = False) -> str:
    rows = []
    for d in docs:
        meta = d.get("metadata") or {}
        name = f"{meta['namespace']}/{meta.get('name')}" if meta.get("namespace") else str(meta.get("name"))
        rows.append([str(d.get("kind")), name, summary(d, wide)])
    return common.format_table(["KIND", "NAME", "SUMMARY"], rows)


def emit(docs: list[dict[str, Any]], fmt: str) -> None:
    """The objects on standard output in ``fmt``."""
    if fmt in ("table", "wide"):
        if docs:
            common.emit(table(docs, fmt == "wide"))
    else:
        common.emit_objects(docs, fmt)
