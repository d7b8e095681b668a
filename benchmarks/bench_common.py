"""Inputs shared by the benchmarks: a generated cluster copied node by node
(parsing 1,000 nodes of 208 devices costs minutes that say nothing about the
engines; ``bench_load.py`` measures loading) and MIG claims."""

from __future__ import annotations

from dralloc.io import ObjectSet, parse_object
from dralloc.models import ResourceClaim
from dralloc.planner.generate import clusters as gen

GPU = "a100-40gb"


def replicated_cluster(nodes: int, gpus: int = 8) -> ObjectSet:
    """``nodes`` copies of one generated node, each with its own name and pools."""
    base = gen.objects(gen.cluster(1, GPU, gpus))
    out = ObjectSet()
    for c in base.classes:
        out.add(c)
    node, slices = base.nodes[0], base.slices
    for i in range(nodes):
        name = f"node-{i:04d}"
        out.add(node.model_copy(update={"metadata": node.metadata.model_copy(update={"name": name})}))
        for s in slices:
            pool = s.spec.pool.model_copy(update={"name": s.spec.pool.name.replace("node-0000", name)})
            spec = s.spec.model_copy(update={"node_name": name, "pool": pool})
            meta = s.metadata.model_copy(update={"name": s.name.replace("node-0000", name)})
            out.add(s.model_copy(update={"metadata": meta, "spec": spec}))
    return out


def mig_claim(profile: str, name: str = "claim", namespace: str = "default") -> ResourceClaim:
    obj = parse_object({
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"devices": {"requests": [{"name": "mig", "exactly": {
            "deviceClassName": "mig.nvidia.com", "allocationMode": "ExactCount", "count": 1,
            "selectors": [{"cel": {"expression": f'device.attributes["gpu.nvidia.com"].profile == "{profile}"'}}]}}]}}})
    assert isinstance(obj, ResourceClaim)
    return obj
