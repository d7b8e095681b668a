"""Shared helpers for the format tests: build composite documents, a catch-all
device class, and claims that ask for named devices."""

from __future__ import annotations

from typing import Any

from dralloc.io import parse_object
from dralloc.models import DeviceClass, ResourceClaim

NODE = "node-1"


def any_class(name: str = "any") -> DeviceClass:
    obj = parse_object({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
                        "spec": {}})
    assert isinstance(obj, DeviceClass)
    return obj


def claim_for(names: list[str], name: str = "claim") -> ResourceClaim:
    """A claim with one request per device, each selecting the device whose
    ``id`` attribute (see :func:`composite_device`) is that name."""
    return claim_where([f'device.attributes["gpu.example.com"].id == "{n}"' for n in names], name)


def claim_where(exprs: list[str], name: str = "claim") -> ResourceClaim:
    """A claim with one request per CEL selector."""
    reqs = [{"name": f"r{i}", "exactly": {"deviceClassName": "any", "selectors": [
        {"cel": {"expression": e}}]}} for i, e in enumerate(exprs)]
    obj = parse_object({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                        "metadata": {"name": name, "namespace": "default"},
                        "spec": {"devices": {"requests": reqs}}})
    assert isinstance(obj, ResourceClaim)
    return obj


def composite_slice(devices: list[dict[str, Any]], mixins: list[dict[str, Any]] | None = None,
                    name: str = "slice-1", pool: str = "pool-1") -> dict[str, Any]:
    spec: dict[str, Any] = {"driver": "gpu.example.com", "nodeName": NODE,
                            "pool": {"name": pool, "generation": 1, "resourceSliceCount": 1},
                            "devices": devices}
    if mixins is not None:
        spec["deviceMixins"] = mixins
    return {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "ResourceSlice", "metadata": {"name": name},
            "spec": spec}


def composite_device(name: str, source: str | None = None, caps: dict[str, int] | None = None,
                     includes: list[str] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"attributes": {"id": {"string": name}}}
    if caps:
        body["capacity"] = {k: {"quantity": str(v)} for k, v in caps.items()}
    if source:
        body["consumesCapacityFrom"] = [{"name": source}]
    if includes:
        body["includes"] = [{"name": m} for m in includes]
    return {"name": name, "composite": body}
