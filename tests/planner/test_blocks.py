"""The block-layout pattern model (multi-host TPU blocks, one-device shared
claims): hand-checked optima, equality with the joint model, the fallback,
and the first-fit simulation's shape cache."""

from __future__ import annotations

from typing import Any

import pytest

from dralloc.errors import InputError
from dralloc.features import Features
from dralloc.planner.blocks.model import detect
from dralloc.planner.generate import clusters as gen
from dralloc.planner.generate.tpu import slice_demand, tpu_cluster, tpu_demand
from dralloc.planner.questions.general import general_fit
from dralloc.planner.simulate.podsim import simulate_pods
from dralloc.planner.view.cluster import DEFAULT_GATES
from dralloc.planner.view.pods import pods_demand

F = Features.from_gates(DEFAULT_GATES)


def slices(*topos: str, priorities: tuple[int, ...] = ()) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, t in enumerate(topos):
        out.extend(slice_demand(f"s{i}-{t}", t, priorities[i] if priorities else 0))
    return out


def fit(docs: list[dict[str, Any]], model: str = "auto") -> tuple[Any, Any]:
    objs = gen.objects(docs)
    return general_fit(objs, pods_demand(objs), F, workers=1, model=model)


def block_of(host: str) -> str:
    return host.rpartition("-host-")[0]


def test_layouts_of_a_block_are_the_four_kep_partitionings():
    objs = gen.objects(tpu_cluster(2) + slices("4x4", "2x4", "2x2"))
    bp = detect(objs, pods_demand(objs), F, objs.nodes, [])
    assert not isinstance(bp, str) and len(bp.blocks) == 2
    kinds = {f"s{i}-{t}": (i,) for i, t in enumerate(["4x4", "2x4", "2x2"])}
    k44, k24, k22 = kinds["s0-4x4"], kinds["s1-2x4"], kinds["s2-2x2"]
    got = {tuple(sorted(dict(lay).items())) for lay in bp.blocks[0].layouts}
    assert got == {((k44, 1),), ((k24, 2),), ((k24, 1), (k22, 2)), ((k22, 4),)}


def test_two_blocks_one_4x4_and_three_2x4():
    greedy, opt = fit(tpu_cluster(2) + slices("4x4", "2x4", "2x4", "2x4"))
    # one block holds the 4x4, the other two 2x4: 8 pods; the third 2x4 has no room
    assert sum(greedy.served.values()) == 8
    assert opt.model == "blocks" and opt.proven and opt.value == opt.bound == 8
    assert opt.served == {"default/s0-4x4": 4, "default/s1-2x4": 2, "default/s2-2x4": 2, "default/s3-2x4": 0}
    big = {opt.placed[f"default/s0-4x4#{r}"] for r in range(4)}
    assert len(big) == 4 and len({block_of(h) for h in big}) == 1


def test_first_fit_strands_a_4x4_behind_a_2x2():
    # first-fit puts the 2x2 on block 0, the first 4x4 on block 1: the second 4x4 fits nowhere (5 pods)
    greedy, opt = fit(tpu_cluster(2) + slices("2x2", "4x4", "4x4"))
    assert sum(greedy.served.values()) == 5
    assert opt.served == {"default/s0-2x2": 0, "default/s1-4x4": 4, "default/s2-4x4": 4} and opt.proven


def test_priority_outweighs_more_pods_of_lower_priority():
    # one block: the high-priority 2x2 (1 pod) beats the low-priority 4x4 (4 pods)
    _, opt = fit(tpu_cluster(1) + slices("4x4", "2x2", "2x4", priorities=(0, 1, 0)))
    assert opt.served == {"default/s0-4x4": 0, "default/s1-2x2": 1, "default/s2-2x4": 2} and opt.proven


@pytest.mark.parametrize("mix,count", [({"4x4": 1, "2x4": 2, "2x2": 4}, 8), ({"2x2": 3, "4x4": 1}, 6),
                                       ({"2x4": 1, "2x2": 1}, 7)])
def test_equal_to_the_joint_model_on_small_clusters(mix: dict[str, int], count: int):
    docs = tpu_cluster(2) + tpu_demand(mix, count, priorities=2)
    _, blocks = fit(docs, "blocks")
    _, joint = fit(docs, "joint")
    assert blocks.proven and joint.proven
    assert blocks.value == joint.value and sum(blocks.served.values()) == sum(joint.served.values())


def test_allocated_slices_take_their_counters():
    objs = gen.objects(tpu_cluster(1) + slices("2x4"))
    held = simulate_pods(objs, pods_demand(objs), F).allocated
    assert len(held) == 1
    docs = tpu_cluster(1) + slices("4x4", "2x4", "2x4", "2x2")
    later = gen.objects(docs)
    for c in held:
        later.add(c.model_copy(update={"metadata": c.metadata.model_copy(update={"name": "running"})}))
    _, opt = general_fit(later, pods_demand(later), F, workers=1)
    _, joint = general_fit(later, pods_demand(later), F, workers=1, model="joint")
    # half the block is taken: no 4x4; one 2x4 or two 2x2 in the other half: 2 pods
    assert opt.model == "blocks" and opt.proven and sum(opt.served.values()) == 2 == sum(joint.served.values())
    assert opt.served["default/s0-4x4"] == 0


def test_other_demand_falls_back_to_the_joint_model():
    docs = tpu_cluster(1) + slices("2x2")
    pod = next(d for d in docs if d["kind"] == "Pod")
    pod["spec"]["resourceClaims"].append({"name": "more", "resourceClaimName": "s0-2x2"})
    with pytest.raises(InputError, match="block model does not apply"):
        fit(docs, "blocks")
    _, opt = fit(docs)
    assert opt.model == "joint"


def test_first_fit_shape_cache_keeps_the_answer():
    objs = gen.objects(tpu_cluster(4) + tpu_demand({"4x4": 1, "2x4": 2, "2x2": 4}, 14))
    demand = pods_demand(objs)
    cached = simulate_pods(objs, demand, F)
    plain = simulate_pods(objs, demand, F, cache=False)
    assert [(p.pod, p.replica, p.node) for p in cached.placed] == [(p.pod, p.replica, p.node) for p in plain.placed]
    assert [c.status for c in cached.allocated] == [c.status for c in plain.allocated]
    assert cached.calls < plain.calls
