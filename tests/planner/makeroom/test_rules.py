"""Issue 24's hand-checkable cases (a)-(e), each written from the rules:
only pods below the work's priority go, budgets hold, a running gang below
its minimum goes whole (and counts whole), a claim frees its devices only
with all its users, and the answer is proven minimal."""

from __future__ import annotations

import pytest

from dralloc.features import DEFAULT_GATES, Features
from dralloc.planner.generate import clusters as gen
from dralloc.planner.makeroom.answer import answer_make_room
from dralloc.planner.makeroom.room import Options
from dralloc.planner.makeroom.work import select_work
from tests.planner.makeroom.build import (
    budget,
    claim_spec,
    gpu_class,
    gpu_node,
    issue_cluster,
    objects,
    pending,
    running,
)

FEATS = Features.from_gates(DEFAULT_GATES)


def ask(docs, mode="evict", cost="count", pod="default/big", gang=None, whole=64):
    objs = objects(docs)
    work = select_work(objs, pod=None if gang else pod, gang=gang)
    return answer_make_room(objs, FEATS, work, Options(mode=mode, cost=cost, whole=whole)).data


@pytest.mark.parametrize("whole", [64, 0])     # one model of the cluster, and the region search
def test_a_evict_exactly_the_three_low_priority_pods(whole):
    """node-b could host the pod only without its priority-100 pod: not allowed."""
    d = ask(issue_cluster(), whole=whole)
    assert d["status"] == "plan" and d["proven"] and d["bound"] == 3
    assert d["evictions"] == ["default/a1", "default/a2", "default/a3"]
    assert d["placed"]["default/big#0"]["node"] == "node-a" and len(d["placed"]["default/big#0"]["devices"]) == 8
    assert d["check"] == "passed" and d["moves"] == {}
    assert [s["action"] for s in d["steps"]] == ["evict"] * 3 + ["place"]


def test_b_a_budget_allowing_one_disruption_blocks_every_plan():
    docs = [*issue_cluster(), budget("batch", {"app": "batch"}, minAvailable=2)]
    d = ask(docs)
    assert d["status"] == "no plan" and d["proven"] and d["evictions"] == [] and d["placed"] == {}
    assert any("PodDisruptionBudget default/batch allows 1 disruption" in b and "3 of its pods" in b
               for b in d["blocked"])


def test_b_budget_through_max_unavailable_of_a_controller():
    """maxUnavailable counts the controller's pods: three pods of one
    ReplicaSet, one may be unavailable."""
    docs = issue_cluster()
    for doc in docs:
        if doc["kind"] == "Pod" and doc["metadata"]["name"] in ("a1", "a2", "a3"):
            doc["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "batch",
                                                   "uid": "rs-1", "controller": True}]
    d = ask([*docs, budget("batch", {"app": "batch"}, maxUnavailable=1)])
    assert d["status"] == "no plan"
    d = ask([*docs, budget("batch", {"app": "batch"}, maxUnavailable="100%")])
    assert d["status"] == "plan" and d["budgets"] == [{"budget": "default/batch", "allowed": 3, "used": 3,
                                                        "pods": ["default/a1", "default/a2", "default/a3"]}]


def test_b_two_budgets_on_a_pod_refuse_its_eviction():
    docs = [*issue_cluster(), budget("one", {"app": "batch"}, maxUnavailable="100%"),
            budget("two", {"app": "batch"}, minAvailable=0)]
    d = ask(docs)
    assert d["status"] == "no plan" and any("more than one" in b or "2 PodDisruptionBudgets" in b for b in d["blocked"])


@pytest.mark.parametrize("whole", [64, 0])
def test_c_move_mode_three_moves_no_eviction(whole):
    d = ask(issue_cluster(), mode="move", whole=whole)
    assert d["status"] == "plan" and d["proven"] and d["evictions"] == []
    assert d["moves"] == {"default/a1": "node-b", "default/a2": "node-b", "default/a3": "node-b"}
    assert d["check"] == "passed"
    assert d["nodes"]["node-b"]["after"] == ["default/a1", "default/a2", "default/a3", "default/b-big",
                                              "default/b-small"]


def test_c_move_mode_without_room_elsewhere_has_no_plan():
    docs = [gpu_class(), *gpu_node("node-a")]
    for i, n in enumerate(("a1", "a2", "a3")):
        docs += running(n, "node-a", [f"gpu-{i}"], 0)
    docs += pending("big", "eight-gpus", 50)
    assert ask(docs)["evictions"] == ["default/a1", "default/a2", "default/a3"]
    assert ask(docs, mode="move")["status"] == "no plan"


def _mig(name: str) -> list:
    return [d for d in gen.node_objects(name, "a100-40gb", 1, kind="mig")]


def _mig_spec(profile: str) -> dict:
    return claim_spec(1, "mig.nvidia.com", f'device.attributes["gpu.nvidia.com"].profile == "{profile}"')


def mig_cluster() -> list:
    """mig-a: a priority-100 3g at memory slices 4-7, two priority-0 1g at
    slices 1 and 2; mig-b: priority-100 3g at 4-7 and 2g at 0-1 (slices 2
    and 3 free: room for two 1g, not for a 3g). A pending 3g of priority 50."""
    docs = [*gen.device_classes(["mig"]), *_mig("mig-a"), *_mig("mig-b")]
    docs += running("high-a", "mig-a", ["gpu-0-mig-3g20gb-9-4"], 100, _mig_spec("3g.20gb"), driver="gpu.nvidia.com")
    docs += running("small-1", "mig-a", ["gpu-0-mig-1g5gb-19-1"], 0, _mig_spec("1g.5gb"), driver="gpu.nvidia.com")
    docs += running("small-2", "mig-a", ["gpu-0-mig-1g5gb-19-2"], 0, _mig_spec("1g.5gb"), driver="gpu.nvidia.com")
    docs += running("high-b", "mig-b", ["gpu-0-mig-3g20gb-9-4"], 100, _mig_spec("3g.20gb"), driver="gpu.nvidia.com")
    docs += running("high-b2", "mig-b", ["gpu-0-mig-2g10gb-14-0"], 100, _mig_spec("2g.10gb"), driver="gpu.nvidia.com")
    docs += pending("big", "three-g", 50, _mig_spec("3g.20gb"))
    return docs


@pytest.mark.parametrize("whole", [64, 0])
def test_d_mig_3g_fits_after_moving_two_1g_pods_to_another_node(whole):
    d = ask(mig_cluster(), mode="move", whole=whole)
    assert d["status"] == "plan" and d["proven"] and d["disruptions"] == 2
    assert d["moves"] == {"default/small-1": "mig-b", "default/small-2": "mig-b"}
    assert d["placed"]["default/big#0"] == {"node": "mig-a", "devices": ["mig-a/gpu-0-mig-3g20gb-9-0"]}
    assert d["check"] == "passed"
    ev = ask(mig_cluster(), whole=whole)
    assert ev["evictions"] == ["default/small-1", "default/small-2"] and ev["proven"]


def test_d_one_1g_pod_in_the_way_costs_one():
    docs = [d for d in mig_cluster() if d["metadata"]["name"] not in ("small-2", "small-2-gpus")]
    d = ask(docs, mode="move")
    assert d["disruptions"] == 1 and d["moves"] == {"default/small-1": "mig-b"} and d["proven"]


def gang_cluster(min_count: int, singles: int) -> list:
    """A running gang of four 2-GPU pods, one per node g0..g3 (g1..g3 also
    run a priority-100 6-GPU pod); node-h runs ``singles`` 1-GPU pods of
    priority 0. A pending 8-GPU pod of priority 50."""
    docs = [gpu_class(), *[x for n in ("g0", "g1", "g2", "g3", "node-h") for x in gpu_node(n)]]
    ann = {"planner.dralloc.dev/gang": "train", "planner.dralloc.dev/gang-min-count": str(min_count)}
    for i in range(4):
        docs += running(f"train-{i}", f"g{i}", ["gpu-0", "gpu-1"], 0, annotations=ann)
        if i:
            docs += running(f"serve-{i}", f"g{i}", [f"gpu-{j}" for j in range(2, 8)], 100)
    docs += [x for i in range(singles) for x in running(f"single-{i}", "node-h", [f"gpu-{i}"], 0)]
    return [*docs, *pending("big", "eight-gpus", 50)]


def test_e_a_gang_below_its_minimum_goes_whole_and_counts_four():
    d = ask(gang_cluster(4, 5))
    assert d["status"] == "plan" and d["proven"] and d["disruptions"] == 4 and d["cost"] == 4
    assert d["evictions"] == [f"default/train-{i}" for i in range(4)] and d["gangsBroken"] == ["default/train"]
    assert d["placed"]["default/big#0"]["node"] == "g0" and d["check"] == "passed"


def test_e_three_single_pods_are_cheaper_than_the_gang():
    d = ask(gang_cluster(4, 3))
    assert d["disruptions"] == 3 and d["placed"]["default/big#0"]["node"] == "node-h" and "gangsBroken" not in d


def test_e_a_gang_with_a_spare_pod_loses_one():
    d = ask(gang_cluster(3, 5))
    assert d["evictions"] == ["default/train-0"] and d["disruptions"] == 1 and "gangsBroken" not in d


def test_priority_cost_prefers_many_low_over_one_higher():
    """--cost priority: one pod of priority 10 outweighs any number of priority 0."""
    docs = [gpu_class(), *gpu_node("node-a"), *gpu_node("node-b")]
    docs += [x for i in range(4) for x in running(f"low-{i}", "node-a", [f"gpu-{i}"], 0)]
    docs += running("mid", "node-b", ["gpu-0"], 10)
    docs += pending("big", "eight-gpus", 50)
    assert ask(docs)["evictions"] == ["default/mid"]
    assert ask(docs, cost="priority")["evictions"] == [f"default/low-{i}" for i in range(4)]


def test_shared_claim_frees_its_devices_only_when_every_user_goes():
    """Two pods share a 4-GPU claim on node-a; one more pod holds 1 GPU there;
    node-b holds 5 pods. Room on node-a needs both sharers gone (3 pods)."""
    docs = [gpu_class(), *gpu_node("node-a"), *gpu_node("node-b")]
    docs += running("share-1", "node-a", ["gpu-0", "gpu-1", "gpu-2", "gpu-3"], 0)
    docs += running("share-2", "node-a", [], 0, claim="share-1-gpus")
    docs += running("one", "node-a", ["gpu-4"], 0)
    docs += [x for i in range(5) for x in running(f"b-{i}", "node-b", [f"gpu-{i}"], 0)]
    docs += pending("big", "eight-gpus", 50)
    for doc in docs:
        if doc["kind"] == "ResourceClaim" and doc["metadata"]["name"] == "share-1-gpus":
            doc["status"]["reservedFor"].append({"resource": "pods", "name": "share-2", "uid": "uid-share-2"})
    d = ask(docs)
    assert d["evictions"] == ["default/one", "default/share-1", "default/share-2"] and d["proven"]


def test_a_victim_makes_room_for_a_higher_pod_of_the_work_on_its_node():
    """The work: x (priority 100, 2 GPUs) and y (priority 10, 2 GPUs). Pods
    of priority 50 may go only where x goes: y alone may not displace them."""
    docs = [gpu_class(), *gpu_node("node-a"), *gpu_node("node-b")]
    docs += [x for i in range(7) for x in running(f"a-{i}", "node-a", [f"gpu-{i}"], 50)]
    docs += [x for i in range(8) for x in running(f"b-{i}", "node-b", [f"gpu-{i}"], 50)]
    docs += pending("x", "two", 100, claim_spec(2)) + pending("y", "two", 10, with_template=False)
    objs = objects(docs)
    work = select_work(objs, names={"default/x", "default/y"})
    d = answer_make_room(objs, FEATS, work, Options()).data
    assert d["proven"] and d["disruptions"] == 3 and {v["node"] for v in d["placed"].values()} == {"node-a"}
    only_y = select_work(objs, names={"default/y"})
    assert answer_make_room(objs, FEATS, only_y, Options()).data["status"] == "no plan"


def test_a_search_stopped_by_its_time_limit_says_so():
    """Whatever a (tiny) time limit leaves, the answer claims only what it
    proved: proven means the cost meets the bound, else the notes say the
    search stopped."""
    objs = objects(gang_cluster(4, 5))
    d = answer_make_room(objs, FEATS, select_work(objs, pod="default/big"),
                         Options(time_limit=1e-6, whole=0)).data
    if d["proven"]:
        assert d["status"] != "plan" or d["cost"] == d["bound"]
    else:
        assert any("stopped at its time limit" in n for n in d["notes"])


def _pod_group(name: str, min_count: int) -> dict:
    return {"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}}}


def test_podgroup_gangs_pending_and_running():
    """A pending PodGroup of two 8-GPU pods (--for-gang default/train) and a
    running PodGroup of two 4-GPU pods (minCount 2) on node-a: breaking it
    costs both pods, cheaper than the five single pods of node-b."""
    docs = [gpu_class(), *gpu_node("node-a"), *gpu_node("node-b"), *gpu_node("node-c"),
            _pod_group("train", 2), _pod_group("infer", 2)]
    for i in range(2):
        docs += running(f"infer-{i}", "node-a", [f"gpu-{4 * i + j}" for j in range(4)], 0)
        docs[-1]["spec"]["schedulingGroup"] = {"podGroupName": "infer"}
    docs += [x for i in range(5) for x in running(f"b-{i}", "node-b", [f"gpu-{i}"], 0)]
    docs += [x for i in range(8) for x in running(f"c-{i}", "node-c", [f"gpu-{i}"], 100)]
    docs += pending("train-0", "eight-gpus", 50) + pending("train-1", "eight-gpus", 50, with_template=False)
    for doc in docs:
        if doc["kind"] == "Pod" and doc["metadata"]["name"].startswith("train-"):
            doc["spec"]["schedulingGroup"] = {"podGroupName": "train"}
    d = ask(docs, gang="default/train")
    assert d["proven"] and d["disruptions"] == 7 and d["gangsBroken"] == ["default/infer"]
    assert sorted(v["node"] for v in d["placed"].values()) == ["node-a", "node-b"]


def test_the_same_input_prints_the_same_bytes(capsys):
    from pathlib import Path

    from dralloc.cli.main import main

    ex = Path(__file__).resolve().parents[3] / "examples" / "makeroom"
    argv = ["plan", "make-room", str(ex / "cluster.yaml"), str(ex / "pending.yaml"),
            "--for", "default/big", "--mode", "move", "-o", "yaml"]
    outs = []
    for _ in range(2):
        assert main(argv) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] and "moves:" in outs[0]
