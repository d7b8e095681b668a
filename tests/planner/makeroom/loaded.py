"""Loaded clusters for the scale tests and benchmarks/bench_makeroom.py:
generated whole-GPU nodes (``dralloc generate``), one GPU model or a mix,
filled by the scheduler simulation and thinned to a load.

Per tenth of the nodes one 8-GPU pod of priority 100 (a node each); the
rest of the GPUs by pods of 1, 2 or 4 GPUs in random order (weights 5, 3,
2), priority 0 or 10 at random, some 4-GPU pods in running gangs of two
(``minCount`` 2); filled first-fit, then 1- and 2-GPU pods removed at
random until ``load`` of the GPUs are in use."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

from dralloc.features import DEFAULT_GATES, Features
from dralloc.io import ObjectSet
from dralloc.planner.generate import clusters as gen
from dralloc.planner.generate.demand import gpu_template, workload
from dralloc.planner.generate.nodes import NodeType
from dralloc.planner.makeroom.fill import fill, thin
from dralloc.validation.admission import admit

Doc = dict[str, Any]
FEATS = Features.from_gates(DEFAULT_GATES)
GANG = "planner.dralloc.dev/gang"
GANG_MIN = "planner.dralloc.dev/gang-min-count"


def small_pods(gpus: int, seed: int) -> list[Doc]:
    rng = random.Random(seed)
    docs: list[Doc] = [gpu_template(f"g{g}", g) for g in (1, 2, 4, 8)]
    left, i = gpus, 0
    while left > 0:
        size = min(rng.choices((1, 2, 4), (5, 3, 2))[0], left)
        size = 2 if size == 3 else size
        pod = workload(f"p{i:05d}", [f"g{size}"], 2 if size == 4 and rng.random() < 0.25 else 1,
                       rng.choice((0, 10)))
        if pod["metadata"]["annotations"]["planner.dralloc.dev/replicas"] == "2":
            pod["metadata"]["annotations"].update({GANG: f"p{i:05d}", GANG_MIN: "2"})
            size *= 2
        docs.append(pod)
        left -= size
        i += 1
    return docs


def loaded_cluster(nodes: int, load: Fraction = Fraction(9, 10), seed: int = 1,
                   types: list[tuple[NodeType, int]] | None = None) -> ObjectSet:
    """``nodes`` whole-GPU A100 nodes of 8 GPUs (or ``types``), running pods at ``load``."""
    docs = gen.mixed_cluster(types, seed) if types else gen.cluster(nodes, gpus=8, kind="gpu", seed=seed)
    big = max(1, nodes // 10)
    docs.append(workload("big", ["g8"], big, 100))
    docs += small_pods(8 * nodes - 8 * big, seed)
    objs = admit(gen.objects(docs))
    return thin(fill(objs, FEATS, policy="first"), load, seed, largest=2)


def pending_gang(name: str, pods: int, gpus: int, priority: int) -> list[Doc]:
    docs: list[Doc] = [gpu_template(f"{name}-t", gpus)]
    for i in range(pods):
        p = workload(f"{name}-{i}", [f"{name}-t"], 1, priority)
        p["metadata"]["annotations"] = {GANG: name, GANG_MIN: str(pods)}
        docs.append(p)
    return docs


def with_docs(objs: ObjectSet, docs: list[Doc]) -> ObjectSet:
    out = ObjectSet()
    for o in objs.all():
        out.add(o)
    for o in gen.objects(docs).all():
        out.add(o)
    return admit(out)
