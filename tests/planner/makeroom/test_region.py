"""The region search (screening floors and caps, proxies for the rest of the
cluster) proves the same minimum as one model of the whole cluster, on
random small clusters: whatever the floors say, they may only under-estimate
and the caps only over-estimate."""

from __future__ import annotations

import random

import pytest

from dralloc.features import DEFAULT_GATES, Features
from dralloc.planner.makeroom.answer import answer_make_room
from dralloc.planner.makeroom.room import Options
from dralloc.planner.makeroom.work import select_work
from tests.planner.makeroom.build import (
    budget,
    claim_spec,
    gpu_class,
    gpu_node,
    objects,
    pending,
    running,
)

FEATS = Features.from_gates(DEFAULT_GATES)


def random_cluster(seed: int) -> tuple[list, str]:
    rng = random.Random(seed)
    docs = [gpu_class()]
    n = rng.randint(4, 7)
    k = 0
    for i in range(n):
        name = f"n{i}"
        docs += gpu_node(name)
        free = list(range(8))
        while len(free) > rng.randint(0, 3):
            size = min(rng.choice((1, 1, 2, 4)), len(free))
            take, free = free[:size], free[size:]
            docs += running(f"p{k}", name, [f"gpu-{j}" for j in take], rng.choice((0, 0, 10, 100)),
                            labels={"app": rng.choice(("a", "b", "c"))})
            k += 1
    if rng.random() < 0.5:
        docs.append(budget("b", {"app": "a"}, minAvailable=rng.randint(0, 3)))
    pods = rng.randint(1, 2)
    gpus = rng.choice((4, 8))
    ann = {"planner.dralloc.dev/gang": "w", "planner.dralloc.dev/gang-min-count": str(pods)}
    docs += pending("w-0", "t", 50, claim_spec(gpus), annotations=ann)
    for j in range(1, pods):
        docs += pending(f"w-{j}", "t", 50, annotations=ann, with_template=False)
    return docs, "default/w"


CASES = [(seed, "evict") for seed in range(8)] + [(0, "move"), (1, "move"), (3, "move")]


@pytest.mark.parametrize("seed,mode", CASES)
def test_region_search_proves_what_the_whole_model_proves(seed, mode):
    docs, gang = random_cluster(seed)
    objs = objects(docs)
    work = select_work(objs, gang=gang)
    whole = answer_make_room(objs, FEATS, work, Options(mode=mode)).data
    region = answer_make_room(objs, FEATS, work, Options(mode=mode, whole=0)).data
    assert whole["status"] == region["status"]
    if whole["status"] == "plan":
        assert whole["proven"] and whole["check"] == "passed" and region["check"] == "passed"
        assert region["cost"] >= whole["cost"] and region["bound"] <= whole["cost"]
        if mode == "evict":
            assert region["proven"] and region["cost"] == whole["cost"]
