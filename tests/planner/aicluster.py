"""Small AI-cluster pieces for tests: hand-written GPU+NIC nodes whose
devices carry the PCIe root as dranet and the NVIDIA driver publish it
(``resource.kubernetes.io/pcieRoot``; NICs as EFA adapters, so the
generator's classes select them), claims pairing each GPU with a NIC on its
root, gangs (PodGroup, Workload, annotation), the partitionable device of
kubernetes/kubernetes#138765, and driver-shaped clusters from the generator
(:func:`ai_cluster`)."""

from __future__ import annotations

from typing import Any

from dralloc.planner.generate import clusters as gen
from dralloc.planner.generate.dranet import RDMA_CLASS

Doc = dict[str, Any]
ROOT = "resource.kubernetes.io/pcieRoot"
GPU, NIC = "gpu.nvidia.com", "dra.net"


def gpu_nic_node(name: str, gpus: int = 8, roots: int = 8) -> list[Doc]:
    """A node with ``gpus`` whole GPUs and as many NICs, GPU i and NIC i on
    PCIe root i * roots / gpus."""
    gdevs, ndevs = [], []
    for i in range(gpus):
        root = {"string": f"pci0000:{i * roots // gpus:02x}"}
        gdevs.append({"name": f"gpu-{i}", "attributes": {"type": {"string": "gpu"}, "index": {"int": i},
                                                         ROOT: root}})
        ndevs.append({"name": f"nic-{i}", "attributes": {"rdma": {"bool": True}, ROOT: root,
                                                         "pciDevice": {"string": "Elastic Fabric Adapter (EFA)"}}})
    pool = {"name": name, "generation": 1, "resourceSliceCount": 1}
    return [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}},
            {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{name}-gpu"},
             "spec": {"driver": GPU, "nodeName": name, "pool": pool, "devices": gdevs}},
            {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{name}-nic"},
             "spec": {"driver": NIC, "nodeName": name, "pool": pool, "devices": ndevs}}]


def aligned(name: str, pairs: int) -> Doc:
    """A template: ``pairs`` GPUs, each with a NIC on its PCIe root."""
    reqs, cons = [], []
    for i in range(pairs):
        reqs += [{"name": f"gpu{i}", "exactly": {"deviceClassName": "gpu.nvidia.com"}},
                 {"name": f"nic{i}", "exactly": {"deviceClassName": RDMA_CLASS}}]
        cons.append({"requests": [f"gpu{i}", f"nic{i}"], "matchAttribute": ROOT})
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"spec": {"devices": {"requests": reqs, "constraints": cons}}}}


def pod(name: str, templates: list[str], replicas: int = 1, priority: int = 0, gang: str | None = None,
        min_count: int | None = None) -> Doc:
    """A pod (``replicas`` of them), in a gang by annotation when ``gang`` is set."""
    p = gen.workload(name, templates, replicas, priority)
    if gang is not None:
        p["metadata"]["annotations"]["planner.dralloc.dev/gang"] = gang
        if min_count is not None:
            p["metadata"]["annotations"]["planner.dralloc.dev/gang-min-count"] = str(min_count)
    return p


def pod_group(name: str, min_count: int | None, claims: list[tuple[str, str]] = ()) -> Doc:  # type: ignore[assignment]
    """A PodGroup (v1alpha2): gang policy with ``min_count`` (basic when None),
    group claims (name, template)."""
    policy = {"gang": {"minCount": min_count}} if min_count is not None else {"basic": {}}
    spec: Doc = {"schedulingPolicy": policy}
    if claims:
        spec["resourceClaims"] = [{"name": n, "resourceClaimTemplateName": t} for n, t in claims]
    return {"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def member(name: str, group: str, templates: list[str], group_claims: list[tuple[str, str]] = (),  # type: ignore[assignment]
           replicas: int = 1) -> Doc:
    """A pod of PodGroup ``group`` with its own template claims and the
    group's claims (name, template) referenced like the group does."""
    p = gen.workload(name, templates, replicas)
    p["spec"]["schedulingGroup"] = {"podGroupName": group}
    p["spec"]["resourceClaims"] += [{"name": n, "resourceClaimTemplateName": t} for n, t in group_claims]
    return p


def partitionable(name: str) -> list[Doc]:
    """kubernetes/kubernetes#138765: one device as ``whole`` or as two halves
    sharing its counter; a class for it."""
    drv = "part.example.com"
    pool = {"name": name, "generation": 1, "resourceSliceCount": 2}
    dev = [{"name": "whole", "attributes": {"size": {"string": "whole"}},
            "consumesCounters": [{"counterSet": "mem", "counters": {"mem": {"value": "2"}}}]}]
    dev += [{"name": f"half-{i}", "attributes": {"size": {"string": "half"}},
             "consumesCounters": [{"counterSet": "mem", "counters": {"mem": {"value": "1"}}}]} for i in (1, 2)]
    return [{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "part"},
             "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{drv}"'}}]}},
            {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}},
            {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{name}-counters"},
             "spec": {"driver": drv, "nodeName": name, "pool": pool,
                      "sharedCounters": [{"name": "mem", "counters": {"mem": {"value": "2"}}}]}},
            {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{name}-part"},
             "spec": {"driver": drv, "nodeName": name, "pool": pool, "devices": dev}}]


def prefer_whole(name: str) -> Doc:
    """A template asking for the whole device, else a half (firstAvailable)."""
    def sub(n: str, size: str) -> Doc:
        return {"name": n, "deviceClassName": "part",
                "selectors": [{"cel": {"expression": f'device.attributes["part.example.com"].size == "{size}"'}}]}
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"spec": {"devices": {"requests": [{"name": "dev", "firstAvailable": [
                sub("whole", "whole"), sub("half", "half")]}]}}}}


def ai_cluster(gpu_nodes: int, mig_nodes: int, gpus: int = 8, seed: int = 0) -> list[Doc]:
    """The drivers' classes, whole-GPU nodes with one RDMA NIC per GPU on its
    PCIe root (``gpu-0000``...), and A100-40GB nodes under DynamicMIG
    (``mig-0000``...), as ``dralloc generate cluster --types gpu=N,mig=M``
    writes them."""
    types = [(gen.NodeType("gpu", gpus=gpus, nics=gpus), gpu_nodes), (gen.NodeType("mig", gpus=gpus), mig_nodes)]
    return gen.mixed_cluster([(t, n) for t, n in types if n], seed=seed)
