"""fragmentation for mixed demand: the pending pods and gangs the current
allocations strand, against a re-pack of everything allocated."""

from __future__ import annotations

from typing import Any

from dralloc.features import Features
from dralloc.models import ObjectMeta, ResourceClaim
from dralloc.planner.api import Options, answer
from dralloc.planner.generate import clusters as gen
from dralloc.planner.simulate.podsim import done
from dralloc.planner.view.cluster import DEFAULT_GATES
from dralloc.solver import allocate
from tests.planner.aicluster import aligned, gpu_nic_node, pod

F = Features.from_gates(DEFAULT_GATES)


def fragmented() -> list[Any]:
    """Nodes a and b with 8 GPUs each, four 1-GPU claims allocated on each."""
    objs = gen.objects([*gen.device_classes(), *gpu_nic_node("a"), *gpu_nic_node("b"), aligned("one", 1),
                        aligned("train", 8)])
    spec = objs.templates[0].spec.spec
    held: list[ResourceClaim] = []
    for i in range(8):
        c = ResourceClaim(metadata=ObjectMeta(name=f"run-{i}", namespace="default"), spec=spec)
        node = objs.nodes[i % 2]
        res = allocate(objs, node, [c], allocated=held, features=F)
        assert res.ok and res.allocations
        held.append(done(c, res.allocations[0]))
    return [*objs.all(), *held]


def test_a_re_pack_frees_a_node_for_the_big_pod() -> None:
    objs = gen.objects([])
    for o in fragmented():
        objs.add(o)
    objs.add(gen.objects([pod("big", ["train"], gang="job", replicas=1)]).pods[0])
    ans = answer("fragmentation", objs, Options(workers=1))
    assert ans.first_fit["pods"] == 0 and ans.optimal["pods"] == 0
    assert ans.optimal["podsAfterRepack"] == 1 and ans.optimal["replaced"] == 8 == ans.optimal["allocatedClaims"]
    assert ans.optimal["gangs"] == 0 and ans.optimal["gangsAfterRepack"] == 1
    assert ans.optimal["moved"] == 4 and ans.gap == 1
    assert len(set(ans.detail["placementAfterRepack"].values())) == 1
