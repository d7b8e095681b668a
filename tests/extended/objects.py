"""Objects for the extended-resource tests: pods asking for extended
resources the way workloads written for device plugins do, classes that
serve them, nodes with DRA GPUs or a device plugin."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from dralloc.models import DeviceClass, Node, Pod

GPU = "nvidia.com/gpu"


def container(name: str, requests: dict[str, Any] | None = None, limits: dict[str, Any] | None = None,
              sidecar: bool = False) -> dict[str, Any]:
    res: dict[str, Any] = {}
    if requests is not None:
        res["requests"] = requests
    if limits is not None:
        res["limits"] = limits
    out: dict[str, Any] = {"name": name, "image": "busybox", "resources": res}
    if sidecar:
        out["restartPolicy"] = "Always"
    return out


def pod(name: str, containers: list[dict[str, Any]], init: list[dict[str, Any]] | None = None,
        node: str | None = None, ns: str = "default", claims: list[dict[str, Any]] | None = None,
        status: dict[str, Any] | None = None, priority: int | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": containers}
    if init:
        spec["initContainers"] = init
    if node:
        spec["nodeName"] = node
    if claims:
        spec["resourceClaims"] = claims
    if priority is not None:
        spec["priority"] = priority
    out: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
                           "spec": spec}
    if status:
        out["status"] = status
    return out


def gpu_pod(name: str, n: int = 1, **kw: Any) -> dict[str, Any]:
    return pod(name, [container("main", limits={GPU: n})], **kw)


def device_class(name: str, extended: str | None = None, created: str | None = None,
                 driver: str = "gpu.nvidia.com") -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if created:
        meta["creationTimestamp"] = created
    spec: dict[str, Any] = {"selectors": [{"cel": {"expression": f'device.driver == "{driver}"'}}]}
    if extended:
        spec["extendedResourceName"] = extended
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": meta, "spec": spec}


def node(name: str, allocatable: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"apiVersion": "v1", "kind": "Node",
                           "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}}}
    if allocatable is not None:
        out["status"] = {"allocatable": allocatable}
    return out


def gpus(node_name: str, n: int, driver: str = "gpu.nvidia.com") -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": f"{node_name}-{driver}"},
            "spec": {"driver": driver, "nodeName": node_name,
                     "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": f"gpu-{i}"} for i in range(n)]}}


def as_pod(d: dict[str, Any]) -> Pod:
    return Pod.model_validate(d)


def as_class(d: dict[str, Any]) -> DeviceClass:
    return DeviceClass.model_validate(d)


def as_node(d: dict[str, Any]) -> Node:
    return Node.model_validate(d)


def write(tmp_path: Path, docs: list[dict[str, Any]], name: str = "cluster.yaml") -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    return str(path)


def cluster_docs(dp_free: int = 2) -> list[dict[str, Any]]:
    """Two DRA nodes (4 and 2 GPUs) and one node on the device plugin."""
    return [device_class("gpu.nvidia.com", GPU), node("dra-1"), gpus("dra-1", 4), node("dra-2"), gpus("dra-2", 2),
            node("plugin-1", {"cpu": "8", GPU: str(dp_free)})]


def extended_claim(pod_name: str, node_name: str, devices: list[str], ns: str = "default") -> dict[str, Any]:
    """The claim kube-scheduler made for a running pod's ``nvidia.com/gpu``
    (one container asking ``len(devices)``), allocated on ``node_name``."""
    req = "container-0-request-0"
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": f"{pod_name}-extended-resources-x1", "namespace": ns,
                         "annotations": {"resource.kubernetes.io/extended-resource-claim": "true"},
                         "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pod_name,
                                              "uid": f"uid-{pod_name}", "controller": True}]},
            "spec": {"devices": {"requests": [{"name": req, "exactly": {
                "deviceClassName": "gpu.nvidia.com", "allocationMode": "ExactCount", "count": len(devices)}}]}},
            "status": {"allocation": {"devices": {"results": [
                {"request": req, "driver": "gpu.nvidia.com", "pool": node_name, "device": d} for d in devices]},
                "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                    {"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}},
                "reservedFor": [{"resource": "pods", "name": pod_name, "uid": f"uid-{pod_name}"}]}}


def running_gpu_pod(name: str, node_name: str, devices: list[str], priority: int = 0,
                    ns: str = "default") -> list[dict[str, Any]]:
    """A running pod asking ``nvidia.com/gpu`` the device-plugin way, served
    by DRA: the pod (its status naming the claim) and its claim."""
    p = gpu_pod(name, len(devices), node=node_name, ns=ns, priority=priority, status={
        "phase": "Running", "extendedResourceClaimStatus": {
            "resourceClaimName": f"{name}-extended-resources-x1",
            "requestMappings": [{"containerName": "main", "resourceName": GPU,
                                 "requestName": "container-0-request-0"}]}})
    p["metadata"]["uid"] = f"uid-{name}"
    return [p, extended_claim(name, node_name, devices, ns)]
