"""Small builders for the rule-by-rule tests: Kubernetes objects as the
allocator test table writes them (driver-a, pool-1, node-1 in region-1), run
through ``allocate`` in one mode, answers flattened to plain strings."""

from __future__ import annotations

from typing import Any

from dralloc.io.loader import parse_object
from dralloc.models import Node, ResourceClaim, TypedObject
from dralloc.solver.api import allocate
from dralloc.solver.outcome import Outcome, Status

API = "resource.k8s.io/v1"
NODE: dict[str, Any] = {"apiVersion": "v1", "kind": "Node",
                        "metadata": {"name": "node-1", "labels": {"region": "region-1"}}}


def obj(d: dict[str, Any]) -> TypedObject:
    o = parse_object(d)
    assert o is not None
    return o


def node(name: str = "node-1", **labels: str) -> Node:
    n = obj({"apiVersion": "v1", "kind": "Node",
             "metadata": {"name": name, "labels": labels or {"region": "region-1"}}})
    assert isinstance(n, Node)
    return n


def cls(name: str = "class-a", driver: str = "driver-a", *extra: str,
        config: list[dict[str, Any]] | None = None) -> TypedObject:
    sels = [{"cel": {"expression": f'device.driver == "{driver}"'}}]
    sels += [{"cel": {"expression": e}} for e in extra]
    spec: dict[str, Any] = {"selectors": sels}
    if config:
        spec["config"] = config
    return obj({"apiVersion": API, "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec})


def dev(name: str, attrs: dict[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
    d: dict[str, Any] = {"name": name}
    if attrs:
        d["attributes"] = {k: _attr(v) for k, v in attrs.items()}
    d.update(fields)
    return d


def _attr(v: Any) -> dict[str, Any]:
    if isinstance(v, dict):
        return v
    if isinstance(v, bool):
        return {"bool": v}
    if isinstance(v, int):
        return {"int": v}
    return {"string": v}


def slc(name: str, devices: list[dict[str, Any]], *, driver: str = "driver-a", pool: str = "pool-1",
        gen: int = 1, count: int = 1, where: dict[str, Any] | None = None, **spec: Any) -> TypedObject:
    body: dict[str, Any] = {"driver": driver, "pool": {"name": pool, "generation": gen, "resourceSliceCount": count}}
    body.update(where if where is not None else {"nodeName": "node-1"})
    if devices:
        body["devices"] = devices
    body.update(spec)
    return obj({"apiVersion": API, "kind": "ResourceSlice", "metadata": {"name": name}, "spec": body})


def req(name: str, cls_name: str = "class-a", count: int = 1, *selectors: str, **fields: Any) -> dict[str, Any]:
    exactly: dict[str, Any] = {"deviceClassName": cls_name, "allocationMode": "ExactCount", "count": count}
    if fields.get("allocationMode") == "All":
        exactly.pop("count")
    if selectors:
        exactly["selectors"] = [{"cel": {"expression": s}} for s in selectors]
    exactly.update(fields)
    return {"name": name, "exactly": exactly}


def all_req(name: str, cls_name: str = "class-a", **fields: Any) -> dict[str, Any]:
    return req(name, cls_name, 0, allocationMode="All", **fields)


def sub(name: str, cls_name: str = "class-a", count: int = 1, *selectors: str, **fields: Any) -> dict[str, Any]:
    out = req(name, cls_name, count, *selectors, **fields)["exactly"]
    out["name"] = name
    return dict(out)


def prio(name: str, *subs: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "firstAvailable": list(subs)}


def claim(name: str, *requests: dict[str, Any], constraints: list[dict[str, Any]] | None = None,
          config: list[dict[str, Any]] | None = None, namespace: str | None = None,
          allocation: dict[str, Any] | None = None) -> ResourceClaim:
    devices: dict[str, Any] = {"requests": list(requests)}
    if constraints:
        devices["constraints"] = constraints
    if config:
        devices["config"] = config
    meta: dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    d: dict[str, Any] = {"apiVersion": API, "kind": "ResourceClaim", "metadata": meta, "spec": {"devices": devices}}
    if allocation is not None:
        d["status"] = {"allocation": allocation}
    c = obj(d)
    assert isinstance(c, ResourceClaim)
    return c


def held(*devices: str, driver: str = "driver-a", pool: str = "pool-1", **extra: Any) -> ResourceClaim:
    """An already-allocated claim holding ``devices``."""
    results = [{"request": "r", "driver": driver, "pool": pool, "device": d, **extra} for d in devices]
    return claim("old", req("r"), allocation={"devices": {"results": results}}, namespace="default")


def opaque(param: str) -> dict[str, Any]:
    return {"opaque": {"driver": "driver-a", "parameters": {"p": param}}}


def run(objects: list[TypedObject], claims: list[ResourceClaim], features: list[str] | None = None,
        mode: str = "replay", allocated: list[ResourceClaim] | None = None, variant: str | None = None,
        at: Node | None = None) -> Outcome:
    # the allocator's own input, as the spec's rules are stated: objects the API server
    # would refuse are given on purpose (the allocator's errors for them are rules too)
    return allocate(objects, at or node(), claims, allocated=allocated or [], features=features or [],
                    mode=mode, variant=variant, share_ids=lambda: "share", admission=False)


def picked(out: Outcome) -> list[list[str]]:
    """Per claim: ``request=pool/device`` in result order."""
    assert out.status is Status.ALLOCATED, str(out)
    assert out.allocations is not None
    return [[f"{r.request}={r.pool}/{r.device}" for r in a.devices.results or []] if a.devices else []
            for a in out.allocations]


def unsat(out: Outcome) -> bool:
    return out.status is Status.UNSATISFIABLE


def error(out: Outcome) -> str:
    assert out.status is Status.ERROR, str(out)
    assert out.error is not None
    return out.error


def same_in_first_fit(objects: list[TypedObject], claims: list[ResourceClaim],
                      features: list[str] | None = None, **kw: Any) -> Outcome:
    """Replay's answer, after checking that CP-SAT first-fit gives the same."""
    a = run(objects, claims, features, "replay", **kw)
    b = run(objects, claims, features, "first-fit", **kw)
    assert a.status == b.status, f"{a}\n{b}"
    if a.status is Status.ALLOCATED:
        assert picked(a) == picked(b), f"{a}\n{b}"
        assert [x.dump() for x in a.allocations or []] == [x.dump() for x in b.allocations or []]
    if a.status is Status.ERROR:
        assert a.error == b.error
    return a
