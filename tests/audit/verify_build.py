"""Small builders for cluster states in the verifier's tests."""

from __future__ import annotations

from typing import Any

from dralloc.io.loader import ObjectSet, parse_object

DRIVER = "gpu.example.com"


def device(name: str, **attrs: Any) -> dict[str, Any]:
    def val(v: Any) -> dict[str, Any]:
        return {"bool": v} if isinstance(v, bool) else {"int": v} if isinstance(v, int) else {"string": v}
    return {"name": name, "attributes": {k: val(v) for k, v in attrs.items()}}


def rslice(name: str, devices: list[dict[str, Any]], node: str | None = "node-1", pool: str = "pool-1",
           driver: str = DRIVER, count: int = 1, counters: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"driver": driver, "pool": {"name": pool, "generation": 1, "resourceSliceCount": count}}
    if node:
        spec["nodeName"] = node
    else:
        spec["allNodes"] = True
    if devices:
        spec["devices"] = devices
    if counters:
        spec["sharedCounters"] = counters
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name}, "spec": spec}


def dclass(name: str = "gpu", driver: str = DRIVER) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{driver}"'}}]}}


def pin(node: str) -> dict[str, Any]:
    return {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}]}


def claim(name: str, requests: list[dict[str, Any]], results: list[tuple[str, str]] | None = None,
          constraints: list[dict[str, Any]] | None = None, node: str | None = "node-1", pool: str = "pool-1",
          driver: str = DRIVER, ts: str | None = None) -> dict[str, Any]:
    c: dict[str, Any] = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                         "metadata": {"name": name, "namespace": "default"},
                         "spec": {"devices": {"requests": requests}}}
    if constraints:
        c["spec"]["devices"]["constraints"] = constraints
    if results is not None:
        alloc: dict[str, Any] = {"devices": {"results": [
            {"request": r, "driver": driver, "pool": pool, "device": d} for r, d in results]}}
        if node:
            alloc["nodeSelector"] = pin(node)
        if ts:
            alloc["allocationTimestamp"] = ts
        c["status"] = {"allocation": alloc}
    return c


def exact(name: str = "req-0", count: int = 1, cls: str = "gpu", **extra: Any) -> dict[str, Any]:
    body = {"deviceClassName": cls, **extra}
    if extra.get("allocationMode") != "All":  # count goes with ExactCount only
        body["count"] = count
    return {"name": name, "exactly": body}


def node(name: str = "node-1") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}}}


def pod(name: str, claim_name: str | None = None, node_name: str | None = None,
        template: str | None = None) -> dict[str, Any]:
    rc: dict[str, Any] = {"name": "c"}
    if claim_name:
        rc["resourceClaimName"] = claim_name
    if template:
        rc["resourceClaimTemplateName"] = template
    p: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
                         "spec": {"resourceClaims": [rc], "containers": [{"name": "main"}]}}
    if node_name:
        p["spec"]["nodeName"] = node_name
    return p


def state(items: list[dict[str, Any]]) -> ObjectSet:
    objs = ObjectSet()
    for i, it in enumerate(items):
        obj = parse_object(it, f"test#{i}")
        assert obj is not None
        objs.add(obj)
    return objs
