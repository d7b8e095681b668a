"""Small clusters and demands built with the generator (no files needed)."""

from __future__ import annotations

from typing import Any

from dralloc.io import ObjectSet
from dralloc.planner.generate import clusters as gen
from dralloc.planner.view.cluster import Cluster, build_cluster
from dralloc.planner.view.demand import demand_from

A100 = "a100-40gb"


def workloads(spec: list[tuple[str, int, int]], gpu: str = A100) -> list[dict[str, Any]]:
    """(profile, replicas, priority) in queue order of equal priority."""
    model = gen.gpu_model(gpu)
    docs: list[dict[str, Any]] = [gen.mig_template(model.profile(p)) for p in sorted({p for p, _, _ in spec})]
    for i, (p, n, prio) in enumerate(spec):
        docs.append(gen.workload(f"w{i}-{model.profile(p).label}", [f"mig-{model.profile(p).label}"], n, prio))
    return docs


def objects(nodes: int, gpus: int, spec: list[tuple[str, int, int]], profiles: list[str] | None = None,
            gpu: str = A100) -> ObjectSet:
    return gen.objects(gen.cluster(nodes, gpu, gpus, profiles=profiles) + workloads(spec, gpu))


def cluster(nodes: int, gpus: int, spec: list[tuple[str, int, int]], profiles: list[str] | None = None,
            gpu: str = A100) -> tuple[ObjectSet, Cluster]:
    objs = objects(nodes, gpus, spec, profiles, gpu)
    return objs, build_cluster(objs, demand_from(objs))
