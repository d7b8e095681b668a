"""verify's pending-gang verdicts, written from the rules (issue 22):

* a gang's minimum met by running pods: a pending member is scheduled on its
  own (the gang plugin's Permit counts assigned pods), so it gets the verdict
  of a lone pod -- never "the gang fits now" when nothing is free;
* a PodGroup-level claim on a device several nodes reach: allocated once,
  the pods on the nodes its allocation admits (not all on one node);
* a pod whose gang link is broken is a finding about that pod; the other
  gangs are analysed as usual;
* fewer pods than minCount: the gang waits for pods, not for devices;
* Kubernetes' gang cycle picks among equally-scored nodes at random: a gang
  placed under some draws and refused under others is reported as such."""

from __future__ import annotations

from typing import Any

from dralloc.audit.analysis import Budget, PendingAnalysis
from dralloc.audit.core import verify_state
from dralloc.audit.gangs import exactly, read_gangs
from dralloc.audit.state import ClusterState
from dralloc.features import Features
from dralloc.planner.generate import clusters as gen
from dralloc.validation.admission import admit
from tests.planner.aicluster import GPU, gpu_nic_node, member, pod_group

F = Features.from_gates(["DRAPartitionableDevices", "DRAPrioritizedList"])
Doc = dict[str, Any]


def template(name: str, gpus: int) -> Doc:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"spec": {"devices": {"requests": [
                {"name": "g", "exactly": {"deviceClassName": "gpu.nvidia.com", "count": gpus}}]}}}}


def pin(node: str) -> Doc:
    return {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}]}


def running(name: str, group: str, node: str, devices: list[str]) -> list[Doc]:
    """A pod of ``group`` running on ``node`` with its GPUs allocated."""
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": f"{name}-gpu", "namespace": "default"},
             "spec": {"devices": {"requests": [
                 {"name": "g", "exactly": {"deviceClassName": "gpu.nvidia.com", "count": len(devices)}}]}},
             "status": {"allocation": {"devices": {"results": [
                 {"request": "g", "driver": GPU, "pool": node, "device": d} for d in devices]},
                 "nodeSelector": pin(node)}}}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
           "spec": {"nodeName": node, "schedulingGroup": {"podGroupName": group}, "containers": [{"name": "main"}],
                    "resourceClaims": [{"name": "gpu", "resourceClaimName": f"{name}-gpu"}]}}
    return [claim, pod]


def report(docs: list[Doc], budget: int = 400) -> tuple[dict[str, dict[str, Any]], list[str]]:
    rep = verify_state(gen.objects(docs), F, compare=False, budget=budget)
    entries = {e.get("gang") or e["pod"]: e for e in rep.pending}
    return entries, [f.message for f in rep.findings]


def test_a_member_after_the_minimum_is_met_by_running_pods_is_a_lone_pod() -> None:
    base = [*gen.device_classes(), pod_group("pg", 2), template("one", 1), member("m", "pg", ["one"]),
            *running("r1", "pg", "a", ["gpu-0"]), *running("r2", "pg", "a", ["gpu-1"])]
    full, _ = report([*gpu_nic_node("a", gpus=2), *base])           # both GPUs held by the running pods
    assert list(full) == ["default/m"]
    assert full["default/m"]["verdict"] == "does-not-fit" and full["default/m"]["inGang"] == "default/pg"
    assert "minimum is met by running pods" in full["default/m"]["message"]
    free, _ = report([*gpu_nic_node("a", gpus=3), *base])           # one GPU free: it fits alone
    assert free["default/m"]["verdict"] == "fits-now" and free["default/m"]["nodes"] == ["a"]


def rack(nodes: list[str]) -> list[Doc]:
    """Nodes of 8 GPUs in rack r1 and one fabric device every node of the rack reaches."""
    docs: list[Doc] = []
    for n in nodes:
        node, *slices = gpu_nic_node(n)
        node["metadata"]["labels"] = {"rack": "r1", "kubernetes.io/hostname": n}
        docs += [node, *slices]
    sel = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "rack", "operator": "In", "values": ["r1"]}]}]}
    docs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "rack-r1"},
                 "spec": {"driver": "fabric.example.com", "nodeSelector": sel,
                          "pool": {"name": "rack-r1", "generation": 1, "resourceSliceCount": 1},
                          "devices": [{"name": "domain-0"}]}})
    docs.append({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "fabric"},
                 "spec": {"selectors": [{"cel": {"expression": 'device.driver == "fabric.example.com"'}}]}})
    docs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                 "metadata": {"name": "fabric", "namespace": "default"},
                 "spec": {"spec": {"devices": {"requests": [{"name": "f", "exactly": {"deviceClassName": "fabric"}}]}}}})
    return docs


def multi_node_gang() -> list[Doc]:
    return [*gen.device_classes(), *rack(["a", "b", "c"]), template("eight", 8),
            pod_group("pg", 3, [("fabric", "fabric")]),
            *(member(f"w{i}", "pg", ["eight"], [("fabric", "fabric")]) for i in range(3))]


def test_a_group_claim_on_a_multi_node_device_is_placed_once_and_its_pods_spread() -> None:
    entries, _ = report(multi_node_gang())
    e = entries["default/pg"]
    assert e["verdict"] == "gang-fits-now" and e["kubernetes"]["answer"] == "placed"
    assert sorted(e["nodes"].values()) == ["a", "b", "c"]     # one 8-GPU pod per node, one fabric domain


def test_the_exact_placement_couples_pods_to_where_the_group_claim_reaches() -> None:
    objs = admit(gen.objects(multi_node_gang()))
    state = ClusterState.build(objs)
    pa = PendingAnalysis(state, F, None, Budget(400))
    [g] = read_gangs(pa, state.pending_pods()).gangs
    placed, proven = exactly(pa, g, state.allocated(), None)
    assert proven and sorted(placed.values()) == ["a", "b", "c"]


def test_a_broken_link_is_a_finding_about_its_pod_and_other_gangs_are_analysed() -> None:
    docs = [*gen.device_classes(), *gpu_nic_node("a", gpus=2), template("one", 1), pod_group("pg", 2),
            member("p1", "pg", ["one"]), member("p2", "pg", ["one"]), member("lost", "nope", ["one"])]
    entries, messages = report(docs)
    assert entries["default/pg"]["verdict"] == "gang-fits-now"
    assert entries["default/lost"]["verdict"] == "gang-link-broken"
    assert "PodGroup default/nope not found" in entries["default/lost"]["message"]
    assert not any("gangs not analysed" in m for m in messages)


def test_a_gang_with_fewer_pods_than_its_minimum_waits_for_pods() -> None:
    docs = [*gen.device_classes(), *gpu_nic_node("a"), template("one", 1), pod_group("pg", 4),
            *(member(f"p{i}", "pg", ["one"]) for i in range(3))]
    entries, _ = report(docs)
    e = entries["default/pg"]
    assert e["verdict"] == "gang-waits-for-pods"
    assert "waits for pods, not for devices: minCount 4, but only 3" in e["message"]


def tie_break_gang() -> list[Doc]:
    """Node a has 2 GPUs, node b 1. p1 (1 GPU) goes first and ties on both:
    on a it leaves p2 (2 GPUs) nowhere, on b p2 takes a."""
    return [*gen.device_classes(), *gpu_nic_node("a", gpus=2), *gpu_nic_node("b", gpus=1), template("one", 1),
            template("two", 2), pod_group("pg", 2), member("p1", "pg", ["one"]), member("p2", "pg", ["two"])]


def test_a_gang_placed_under_some_tie_breaks_and_refused_under_others_says_so() -> None:
    entries, _ = report(tie_break_gang())
    e = entries["default/pg"]
    assert e["verdict"] == "gang-fits-by-tie-break"
    assert e["kubernetes"]["answer"] == "tie-break"
    assert e["kubernetes"]["placedBy"] == {"default/p1": "b", "default/p2": "a"}
    assert e["kubernetes"]["refusedBy"] == {"default/p1": "a"}


def test_a_tiny_budget_gives_not_decided_never_does_not_fit() -> None:
    """issue 21.3: a search ended by its budget says so; with the budget it
    needs, the same pod is proven not to fit (3 GPUs on 2-GPU nodes)."""
    docs = [*gen.device_classes(), *gpu_nic_node("a", gpus=2), *gpu_nic_node("b", gpus=2), template("one", 1),
            template("two", 2), template("three", 3), pod_group("pg", 2), member("p1", "pg", ["one"]),
            member("p2", "pg", ["two"]), member("solo", "none", ["three"])]
    docs[-1]["spec"].pop("schedulingGroup")
    entries, _ = report(docs, budget=1)
    assert entries["default/pg"]["verdict"] == "gang-fits"         # the exact placement needs no budget
    assert entries["default/pg"]["kubernetes"]["answer"] == "not-decided"
    assert "--budget" in entries["default/pg"]["kubernetes"]["why"]
    assert entries["default/solo"]["verdict"] == "not-decided"
    assert "budget of 1 allocation calls was spent (raise it with --budget)" in entries["default/solo"]["message"]
    assert not any(e["verdict"].endswith("does-not-fit") for e in entries.values())
    enough, _ = report(docs)
    assert enough["default/solo"]["verdict"] == "does-not-fit"
    assert enough["default/pg"]["verdict"] == "gang-fits-now"
