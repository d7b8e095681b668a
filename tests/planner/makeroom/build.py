"""Small clusters written by hand for the make-room tests: nodes of plain
GPUs, running pods with allocated claims on named devices, pending pods."""

from __future__ import annotations

from typing import Any

from dralloc.io import ObjectSet
from dralloc.planner.generate import clusters as gen
from dralloc.validation.admission import admit

Obj = dict[str, Any]
D = "gpu.example.com"


def gpu_class() -> Obj:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": D},
            "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{D}"'}}]}}


def gpu_node(name: str, gpus: int = 8) -> list[Obj]:
    return [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}}},
            {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{name}-gpus"},
             "spec": {"driver": D, "nodeName": name, "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                      "devices": [{"name": f"gpu-{i}"} for i in range(gpus)]}}]


def claim_spec(count: int = 1, cls: str = D, selector: str | None = None) -> Obj:
    exactly: Obj = {"deviceClassName": cls, "count": count}
    if selector:
        exactly["selectors"] = [{"cel": {"expression": selector}}]
    return {"devices": {"requests": [{"name": "gpu", "exactly": exactly}]}}


def running(name: str, node: str, devices: list[str], priority: int = 0, spec: Obj | None = None,
            labels: dict[str, str] | None = None, driver: str = D, pool: str | None = None,
            annotations: dict[str, str] | None = None, claim: str | None = None) -> list[Obj]:
    """A pod bound to ``node`` with one claim allocated on ``devices``."""
    cname = claim or f"{name}-gpus"
    out: list[Obj] = []
    if claim is None:
        out.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                    "metadata": {"name": cname, "namespace": "default"},
                    "spec": spec or claim_spec(len(devices)),
                    "status": {"allocation": {
                        "devices": {"results": [{"request": "gpu", "driver": driver, "pool": pool or node, "device": d}
                                                for d in devices]},
                        "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                            {"key": "metadata.name", "operator": "In", "values": [node]}]}]}},
                        "reservedFor": [{"resource": "pods", "name": name, "uid": f"uid-{name}"}]}})
    meta: Obj = {"name": name, "namespace": "default", "labels": labels or {"app": name}}
    if annotations:
        meta["annotations"] = annotations
    out.append({"apiVersion": "v1", "kind": "Pod", "metadata": meta,
                "spec": {"nodeName": node, "priority": priority,
                         "containers": [{"name": "main", "resources": {"claims": [{"name": "gpus"}]}}],
                         "resourceClaims": [{"name": "gpus", "resourceClaimName": cname}]}})
    return out


def pending(name: str, template: str, priority: int, spec: Obj | None = None,
            annotations: dict[str, str] | None = None, with_template: bool = True) -> list[Obj]:
    out: list[Obj] = []
    if with_template:
        out.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                    "metadata": {"name": template, "namespace": "default"}, "spec": {"spec": spec or claim_spec(8)}})
    meta: Obj = {"name": name, "namespace": "default"}
    if annotations:
        meta["annotations"] = annotations
    out.append({"apiVersion": "v1", "kind": "Pod", "metadata": meta,
                "spec": {"priority": priority,
                         "containers": [{"name": "main", "resources": {"claims": [{"name": "gpus"}]}}],
                         "resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": template}]}})
    return out


def budget(name: str, selector: dict[str, str], **spec: Any) -> Obj:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name, "namespace": "default"},
            "spec": {"selector": {"matchLabels": selector}, **spec}}


def objects(docs: list[Obj]) -> ObjectSet:
    return admit(gen.objects(docs))


def issue_cluster() -> list[Obj]:
    """Issue 24 (a): node-a runs three 1-GPU pods of priority 0, node-b a
    2-GPU pod of priority 100 and a 1-GPU pod of priority 0; a pending
    8-GPU pod of priority 50."""
    docs = [gpu_class(), *gpu_node("node-a"), *gpu_node("node-b")]
    for i, n in enumerate(("a1", "a2", "a3")):
        docs += running(n, "node-a", [f"gpu-{i}"], 0, labels={"app": "batch"})
    docs += running("b-big", "node-b", ["gpu-0", "gpu-1"], 100)
    docs += running("b-small", "node-b", ["gpu-2"], 0)
    docs += pending("big", "eight-gpus", 50)
    return docs
