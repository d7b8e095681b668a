"""Clusters to serve from the fake API server, as ``kubectl get -o yaml``
prints their objects: nodes with one slice of whole GPUs each, claims
allocated in order (first GPUs first, as the allocator hands them out, with
allocation timestamps), their pods bound to the nodes, and pending pods
asking for a GPU through a template; namespaces taken in turn."""

from __future__ import annotations

from typing import Any

DRIVER = "gpu.example.com"
NAMESPACES = ("ml", "web", "batch")


def _node(i: int) -> list[dict[str, Any]]:
    name = f"node-{i:03d}"
    node = {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}}}
    devices = [{"name": f"gpu-{g}", "attributes": {f"{DRIVER}/index": {"int": g}},
                "capacity": {f"{DRIVER}/memory": {"value": "40Gi"}}} for g in range(4)]
    slice_ = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
              "metadata": {"name": f"{name}-{DRIVER}"},
              "spec": {"driver": DRIVER, "nodeName": name,
                       "pool": {"name": name, "generation": 1, "resourceSliceCount": 1}, "devices": devices}}
    return [node, slice_]


def _claim(i: int, g: int, ns: str, minute: int) -> list[dict[str, Any]]:
    node, name = f"node-{i:03d}", f"claim-{i:03d}-{g}"
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": name, "namespace": ns},
             "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}},
             "status": {"allocation": {
                 "devices": {"results": [{"request": "gpu", "driver": DRIVER, "pool": node, "device": f"gpu-{g}"}]},
                 "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                     {"key": "metadata.name", "operator": "In", "values": [node]}]}]},
                 "allocationTimestamp": f"2026-10-01T{minute // 60:02d}:{minute % 60:02d}:00Z"},
                 "reservedFor": [{"resource": "pods", "name": f"pod-{i:03d}-{g}", "uid": f"pod-uid-{i}-{g}"}]}}
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": f"pod-{i:03d}-{g}", "namespace": ns, "uid": f"pod-uid-{i}-{g}"},
           "spec": {"nodeName": node, "containers": [{"name": "main", "image": "trainer",
                                                      "resources": {"claims": [{"name": "gpu"}]}}],
                    "resourceClaims": [{"name": "gpu", "resourceClaimName": name}]},
           "status": {"phase": "Running"}}
    return [claim, pod]


def _pending(k: int, ns: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"waiting-{k:03d}", "namespace": ns},
            "spec": {"containers": [{"name": "main", "image": "trainer", "resources": {"claims": [{"name": "gpu"}]}}],
                     "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]},
            "status": {"phase": "Pending"}}


def _plain(k: int, ns: str, node: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"web-{k:04d}", "namespace": ns},
            "spec": {"nodeName": node, "containers": [{"name": "main", "image": "nginx"}]},
            "status": {"phase": "Running"}}


def gpu_cluster(nodes: int, claims_per_node: int = 3, pending: int = 0, plain: int = 0) -> list[dict[str, Any]]:
    """``nodes`` nodes of 4 GPUs, ``claims_per_node`` of them allocated
    (claims and pods in the namespaces in turn), ``pending`` pods waiting for
    one GPU each (a template per namespace), ``plain`` running pods without
    claims (most of a cluster's pods)."""
    out: list[dict[str, Any]] = [{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                                  "metadata": {"name": "gpu"},
                                  "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}}]
    for ns in NAMESPACES:
        out.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                    "metadata": {"name": "one-gpu", "namespace": ns},
                    "spec": {"spec": {"devices": {"requests": [{"name": "gpu",
                                                                "exactly": {"deviceClassName": "gpu"}}]}}}})
    minute = 0
    for i in range(nodes):
        out += _node(i)
        for g in range(claims_per_node):
            out += _claim(i, g, NAMESPACES[(i * claims_per_node + g) % len(NAMESPACES)], minute)
            minute += 1
    out += [_pending(k, NAMESPACES[k % len(NAMESPACES)]) for k in range(pending)]
    out += [_plain(k, NAMESPACES[k % len(NAMESPACES)], f"node-{k % nodes:03d}") for k in range(plain)]
    return out
