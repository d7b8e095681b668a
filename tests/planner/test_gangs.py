"""Gangs: read from PodGroups (v1alpha2), Workloads (v1alpha1) and the
planner annotation; placed whole or not at all, Kubernetes' way (pod by pod,
first-fit devices, no revisit) and exactly; PodGroup-level claims allocated
once for the group."""

from __future__ import annotations

from typing import Any

import pytest

from dralloc.checker.rules import verify_allocation
from dralloc.errors import InputError
from dralloc.features import Features
from dralloc.planner.api import Options, answer
from dralloc.planner.generate import clusters as gen
from dralloc.planner.generate.dranet import RDMA_CLASS
from dralloc.planner.questions.general import general_fit
from dralloc.planner.simulate.podsim import simulate_pods
from dralloc.planner.view.cluster import DEFAULT_GATES
from dralloc.planner.view.pods import pods_demand
from tests.planner.aicluster import (
    aligned,
    gpu_nic_node,
    member,
    partitionable,
    pod,
    pod_group,
    prefer_whole,
)

F = Features.from_gates(DEFAULT_GATES)
CLASSES = gen.device_classes()


def objects(docs: list[dict[str, Any]]) -> Any:
    return gen.objects(docs)


def test_kubernetes_refuses_a_gang_the_exact_answer_places() -> None:
    """kubernetes/kubernetes#138765: the first pod takes the whole device
    (firstAvailable prefers it), the second finds nothing, the gang is
    refused; both halves would have served both pods."""
    objs = objects(partitionable("n1") + [prefer_whole("t"), pod("p", ["t"], replicas=2, gang="job", min_count=2)])
    ans = answer("fit", objs, Options(workers=1))
    assert ans.first_fit["pods"] == 0 and ans.first_fit["gangs"] == 0
    assert ans.optimal["pods"] == 2 and ans.optimal["gangs"] == 1 and ans.optimal["proven"]
    assert ans.detail["gangsKubernetesRefusesThatFit"] == ["default/job"]
    demand = pods_demand(objs)
    _, opt = general_fit(objs, demand, F, workers=1)
    claims = opt.claims["n1"]
    devices = sorted(r.device for c in claims for r in c.status.allocation.devices.results)  # type: ignore[union-attr]
    assert devices == ["half-1", "half-2"]
    node = objs.nodes[0]
    bare = [c.model_copy(update={"status": None}) for c in claims]
    assert not [f for f in verify_allocation(objs.slices, objs.classes, node, bare,
                                             [c.status.allocation for c in claims], [], F) if f.level == "error"]


def test_without_a_gang_kubernetes_places_one_pod() -> None:
    """The same two pods without a gang: first-fit keeps the first (1 pod)."""
    objs = objects(partitionable("n1") + [prefer_whole("t"), pod("p", ["t"], replicas=2)])
    sim = simulate_pods(objs, pods_demand(objs), F)
    assert sim.served == {"default/p": 1}


def test_a_gang_that_cannot_reach_its_minimum_is_placed_nowhere_and_frees_its_devices() -> None:
    """Three 8-GPU pods in a gang on two 8-GPU nodes: the simulation places
    two, misses the minimum, undoes them; the pods after it get the GPUs."""
    docs = [*CLASSES, *gpu_nic_node("a"), *gpu_nic_node("b"), aligned("train", 8), aligned("one", 1),
            pod("job", ["train"], replicas=3, gang="job"), pod("small", ["one"], replicas=16)]
    objs = objects(docs)
    ans = answer("fit", objs, Options(workers=1))
    assert ans.first_fit["perWorkload"] == {"default/job": 0, "default/small": 16}
    assert ans.optimal["perWorkload"] == {"default/job": 0, "default/small": 16}
    assert ans.first_fit["gangs"] == ans.optimal["gangs"] == 0


def test_min_count_below_the_size_places_what_fits() -> None:
    docs = [*CLASSES, *gpu_nic_node("a"), *gpu_nic_node("b"), aligned("train", 8),
            pod("job", ["train"], replicas=3, gang="job", min_count=2)]
    ans = answer("fit", objects(docs), Options(workers=1))
    assert ans.first_fit["pods"] == ans.optimal["pods"] == 2
    assert ans.first_fit["gangs"] == ans.optimal["gangs"] == 1


def test_pod_group_claim_is_allocated_once_and_pins_the_group_to_its_node() -> None:
    """A PodGroup-level claim for one NIC: the group's three 2-GPU pods run
    where that NIC is, so on one node; the NIC is allocated once."""
    docs = [*CLASSES, *gpu_nic_node("a", gpus=4), *gpu_nic_node("b", gpus=8), aligned("nic", 0),
            {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
             "metadata": {"name": "fabric", "namespace": "default"},
             "spec": {"spec": {"devices": {"requests": [{"name": "nic", "exactly": {"deviceClassName": RDMA_CLASS}}]}}}},
            {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
             "metadata": {"name": "two", "namespace": "default"},
             "spec": {"spec": {"devices": {"requests": [
                 {"name": "g", "exactly": {"deviceClassName": "gpu.nvidia.com", "count": 2}}]}}}},
            pod_group("train", 3, [("fabric", "fabric")]),
            member("worker", "train", ["two"], [("fabric", "fabric")], replicas=3)]
    objs = objects(docs)
    demand = pods_demand(objs)
    assert list(demand.shared) == ["default/train-fabric"]
    greedy, opt = general_fit(objs, demand, F, workers=1)
    # first-fit: worker 0 on node a allocates the group NIC there, a holds only 2 of the 3 pods
    assert greedy.served == {"default/worker": 0}
    assert opt.served == {"default/worker": 3} and set(opt.placed.values()) == {"b"}
    nics = [r.device for c in opt.claims["b"] for r in c.status.allocation.devices.results  # type: ignore[union-attr]
            if r.driver == "dra.net"]
    assert len(nics) == 1


def test_workload_v1alpha1_and_pod_group_v1alpha2_gangs_are_read() -> None:
    wl = {"apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload",
          "metadata": {"name": "job", "namespace": "default"},
          "spec": {"podGroups": [{"name": "workers", "policy": {"gang": {"minCount": 3}}}]}}
    p1 = pod("w", ["one"], replicas=4)
    p1["spec"]["workloadRef"] = {"name": "job", "podGroup": "workers", "podGroupReplicaKey": "0"}
    p2 = member("m", "pg", ["one"], replicas=2)
    docs = [*CLASSES, aligned("one", 1), wl, p1, pod_group("pg", None), p2]
    demand = pods_demand(objects(docs))
    assert {k: (g.min_count, g.size, g.source) for k, g in demand.gangs.items()} == {
        "default/job/workers/0": (3, 4, "Workload")}   # a basic PodGroup is not a gang
    assert {p.name: p.gang for p in demand.pods} == {"default/w": "default/job/workers/0", "default/m": None}


@pytest.mark.parametrize(("obj", "message"), [
    (pod_group("pg", 0), "spec.schedulingPolicy.gang.minCount: must be a positive integer"),
    ({**pod_group("pg", 2), "spec": {"schedulingPolicy": {"gang": {"minCount": 2}, "basic": {}}}},
     "exactly one of basic, gang is required"),
    ({**pod_group("pg", 2), "spec": {"schedulingPolicy": {"gang": {"minCount": 2}},
                                     "resourceClaims": [{"name": "x"}]}},
     "exactly one of resourceClaimName and resourceClaimTemplateName"),
])
def test_gang_objects_the_api_server_rejects_are_input_errors(obj: dict[str, Any], message: str) -> None:
    docs = [*CLASSES, aligned("one", 1), obj, member("m", "pg", ["one"])]
    with pytest.raises(InputError, match=message) as e:
        pods_demand(objects(docs))
    assert "PodGroup default/pg" in str(e.value)


def test_dangling_and_conflicting_gang_references_name_the_pod_and_field() -> None:
    with pytest.raises(InputError, match=r"Pod default/m: spec.schedulingGroup.podGroupName: PodGroup default/x"):
        pods_demand(objects([*CLASSES, aligned("one", 1), member("m", "x", ["one"])]))
    bad = pod("w", ["one"], gang="g", min_count=0)
    with pytest.raises(InputError, match=r"gang-min-count\]: '0' is not a positive integer"):
        pods_demand(objects([*CLASSES, aligned("one", 1), bad]))
    a, b = pod("a", ["one"], gang="g", min_count=2), pod("b", ["one"], gang="g", min_count=3)
    with pytest.raises(InputError, match="minimum count 3 disagrees with 2"):
        pods_demand(objects([*CLASSES, aligned("one", 1), a, b]))


def test_running_pods_count_towards_the_minimum() -> None:
    """A gang with minimum 4 of which 2 already run: 2 more are enough."""
    docs = [*CLASSES, *gpu_nic_node("a", gpus=2), aligned("one", 1),
            pod("w", ["one"], replicas=4, gang="g", min_count=4), pod("r", ["one"], replicas=2, gang="g", min_count=4)]
    docs[-1]["spec"]["nodeName"] = "elsewhere"
    demand = pods_demand(objects(docs))
    assert demand.gangs["default/g"].needed == 4 - 2
    ans = answer("fit", objects(docs), Options(workers=1))
    assert ans.first_fit["pods"] == ans.optimal["pods"] == 2 and ans.optimal["gangs"] == 1


def test_a_gang_the_name_order_refuses_but_a_tie_break_places_is_not_said_refused() -> None:
    """kube-scheduler picks among equally-scored nodes at random: node b
    (1 GPU) and a (2 GPUs) tie for p1; name order puts it on a and leaves p2
    (2 GPUs) nowhere, the draw b places both. The gang is listed as placed
    by some tie-breaks, never as refused by Kubernetes."""
    from tests.audit.test_gang_verdicts import tie_break_gang

    ans = answer("fit", objects(tie_break_gang()), Options(workers=1))
    assert ans.first_fit["policy"] == "first" and ans.first_fit["gangs"] == 0   # the stated policy: name order
    assert ans.optimal["gangs"] == 1
    assert ans.detail["gangsKubernetesRefusesThatFit"] == []
    assert ans.detail["gangsKubernetesPlacesByTieBreak"] == ["default/pg"]
    assert ans.detail["kubernetesTieBreak"]["gangs"]["default/pg"]["answer"] == "tieBreak"


def test_a_gang_refused_under_every_tie_break_is_listed_as_refused() -> None:
    objs = objects(partitionable("n1") + partitionable("n2")[1:] +
                   [prefer_whole("t"), pod("p", ["t"], replicas=2, gang="job", min_count=2)])
    ans = answer("fit", objs, Options(workers=1))
    # whichever node p-0 takes, it takes the whole device there and p-1 takes the other whole device
    assert ans.first_fit["gangs"] == 1 and "kubernetesTieBreak" not in ans.detail
    one = answer("fit", objects(partitionable("n1") + [prefer_whole("t"), pod("p", ["t"], replicas=2, gang="job",
                                                                                min_count=2)]), Options(workers=1))
    assert one.detail["gangsKubernetesRefusesThatFit"] == ["default/job"]
    assert one.detail["kubernetesTieBreak"]["gangs"]["default/job"]["answer"] == "refused"


def test_a_multi_node_pod_group_claim_is_placed_by_plan_as_by_verify() -> None:
    from tests.audit.test_gang_verdicts import multi_node_gang

    ans = answer("fit", objects(multi_node_gang()), Options(workers=1))
    assert ans.first_fit["gangs"] == ans.optimal["gangs"] == 1
    assert ans.optimal["pods"] == 3
