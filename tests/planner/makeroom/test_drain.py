"""plan drain: who loses their devices (a drained node: everyone on it,
through the eviction API; a DeviceTaintRule: as the device taint eviction
controller decides, tolerations of effect NoExecute respected), whether
they fit elsewhere now (Kubernetes' way and the optimum), and if not the
fewest further disruptions."""

from __future__ import annotations

import pytest

from dralloc.errors import InputError
from dralloc.features import DEFAULT_GATES, Features
from dralloc.models import DeviceTaintRule
from dralloc.planner.makeroom.drain import drain
from dralloc.planner.makeroom.room import Options
from tests.planner.makeroom.build import (
    budget,
    gpu_class,
    gpu_node,
    issue_cluster,
    objects,
    running,
)

FEATS = Features.from_gates(DEFAULT_GATES)


def rule(name: str, effect: str = "NoExecute", **sel: str) -> DeviceTaintRule:
    return DeviceTaintRule.model_validate({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule",
                                           "metadata": {"name": name},
                                           "spec": {"deviceSelector": sel, "taint": {"key": "maintenance",
                                                                                     "effect": effect}}})


def running_only() -> list:
    return [d for d in issue_cluster() if d["metadata"].get("name") not in ("big", "eight-gpus")]


def test_draining_a_node_displaces_its_pods_and_they_fit_elsewhere():
    d = drain(objects(running_only()), FEATS, nodes=["node-a"]).data
    assert [p["pod"] for p in d["displaced"]] == ["default/a1", "default/a2", "default/a3"]
    fit = d["fitElsewhere"]
    assert fit["pods"] == 3 and fit["kubernetes"]["pods"] == 3 and fit["optimal"]["pods"] == 3
    assert set(fit["optimal"]["placement"].values()) == {"node-b"} and "makeRoom" not in d


def test_a_node_drain_waits_for_a_budget():
    docs = [*running_only(), budget("batch", {"app": "batch"}, minAvailable=2)]
    d = drain(objects(docs), FEATS, nodes=["node-a"]).data
    assert any("kubectl drain waits" in b for b in d["blockedByBudgets"])


def test_a_taint_rule_on_two_devices_evicts_their_holder_only():
    d = drain(objects(running_only()), FEATS, rules=[rule("r", pool="node-b", device="gpu-1")]).data
    assert [p["pod"] for p in d["displaced"]] == ["default/b-big"]
    assert "DeviceTaintRule r" in d["displaced"][0]["why"]
    assert d["fitElsewhere"]["optimal"]["placement"] == {"default/b-big#0": "node-a"}


def test_tolerations_as_the_eviction_controller_reads_them():
    """Only tolerations of effect NoExecute count; without tolerationSeconds
    the pod stays, with it the pod goes later."""
    docs = running_only()
    for doc in docs:
        if doc["kind"] == "ResourceClaim" and doc["metadata"]["name"] == "b-big-gpus":
            for r in doc["status"]["allocation"]["devices"]["results"]:
                r["tolerations"] = [{"key": "maintenance", "operator": "Exists", "effect": "NoExecute"}]
        if doc["kind"] == "ResourceClaim" and doc["metadata"]["name"] == "b-small-gpus":
            for r in doc["status"]["allocation"]["devices"]["results"]:
                r["tolerations"] = [{"key": "maintenance", "operator": "Exists", "effect": "NoExecute",
                                     "tolerationSeconds": 300}]
        if doc["kind"] == "ResourceClaim" and doc["metadata"]["name"] == "a1-gpus":
            for r in doc["status"]["allocation"]["devices"]["results"]:
                r["tolerations"] = [{"key": "maintenance", "operator": "Exists"}]   # any effect: does not count
    d = drain(objects(docs), FEATS, rules=[rule("all", driver="gpu.example.com")]).data
    gone = {p["pod"]: p["why"] for p in d["displaced"]}
    assert set(gone) == {"default/a1", "default/a2", "default/a3", "default/b-small"}
    assert "300 s after" in gone["default/b-small"]
    assert [k["pod"] for k in d["kept"]] == ["default/b-big"]


def test_effect_none_is_a_dry_run_and_no_schedule_evicts_nobody():
    d = drain(objects(running_only()), FEATS, rules=[rule("r", "None", pool="node-a")]).data
    assert len(d["displaced"]) == 3 and any("dry run" in n for n in d["notes"])
    d = drain(objects(running_only()), FEATS, rules=[rule("r", "NoSchedule", pool="node-a")]).data
    assert d["displaced"] == [] and any("NoSchedule evicts nobody" in n for n in d["notes"])


def test_no_room_elsewhere_asks_make_room():
    """node-b's priority-100 pod is displaced; node-a is full of priority-0
    pods: the fewest further disruptions are two of them."""
    docs = [gpu_class(), *gpu_node("node-a"), *gpu_node("node-b")]
    docs += [x for i in range(8) for x in running(f"a-{i}", "node-a", [f"gpu-{i}"], 0)]
    docs += running("b-big", "node-b", ["gpu-0", "gpu-1"], 100)
    res = drain(objects(docs), FEATS, nodes=["node-b"])
    d = res.data
    assert d["fitElsewhere"]["optimal"]["pods"] == 0 and d["fitElsewhere"]["kubernetes"]["pods"] == 0
    room = d["makeRoom"]
    assert room["status"] == "plan" and room["proven"] and room["disruptions"] == 2
    assert room["placed"]["default/b-big#0"]["node"] == "node-a"
    assert res.picture is not None and res.picture.marks["default/b-big"] == "moved"


def test_a_gang_left_below_its_minimum_goes_whole():
    docs = [gpu_class(), *gpu_node("node-a"), *gpu_node("node-b"), *gpu_node("node-c")]
    ann = {"planner.dralloc.dev/gang": "g", "planner.dralloc.dev/gang-min-count": "2"}
    docs += running("g-0", "node-a", ["gpu-0"], 0, annotations=ann)
    docs += running("g-1", "node-b", ["gpu-0"], 0, annotations=ann)
    d = drain(objects(docs), FEATS, nodes=["node-a"]).data
    assert {p["pod"]: p["why"] for p in d["displaced"]}["default/g-1"].startswith("gang default/g")
    assert d["fitElsewhere"]["gangs"] == {"default/g": {"kubernetes": True, "optimal": True}}


def test_bad_drain_requests_are_input_errors():
    objs = objects(running_only())
    with pytest.raises(InputError, match="no such Node"):
        drain(objs, FEATS, nodes=["nope"])
    with pytest.raises(InputError, match="say what to drain"):
        drain(objs, FEATS)
    cel = DeviceTaintRule.model_validate({"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule",
                                          "metadata": {"name": "old"}, "spec": {
                                              "deviceSelector": {"selectors": [{"cel": {"expression": "true"}}]},
                                              "taint": {"key": "k", "effect": "NoExecute"}}})
    with pytest.raises(InputError, match="selectors"):
        drain(objs, FEATS, rules=[cel])


def test_a_taint_rule_over_one_gpu_model_on_100_nodes():
    """100 generated nodes (10 H100 first in name order, 90 A100) at 90 %
    load; one DeviceTaintRule per H100 pool (a rule selects by driver, pool
    and device). The H100s hold the ten 8-GPU pods of priority 100: all are
    displaced; no A100 node has 8 free GPUs, so none fits elsewhere either
    way (proven); making room costs at least one eviction per pod, and the
    plan is proven minimal over the whole cluster by the region search."""
    from dralloc.planner.generate.nodes import NodeType
    from tests.planner.makeroom.loaded import loaded_cluster

    types = [(NodeType("gpu", "h100-80gb-sxm5", 8, name="gpu-h100"), 10),
             (NodeType("gpu", "a100-40gb", 8, name="gpu-x-a100"), 90)]
    objs = loaded_cluster(100, types=types)
    pools = sorted({s.spec.pool.name for s in objs.slices if "h100" in (s.spec.node_name or "")})
    rules = [rule(f"h100-{p}", driver="gpu.nvidia.com", pool=p) for p in pools]
    res = drain(objs, FEATS, rules=rules, opts=Options(time_limit=60))
    d = res.data
    gone = d["displaced"]
    assert len(pools) == 10 and len(gone) == 10 and all(p["node"].startswith("gpu-h100") for p in gone)
    assert all(p["pod"].startswith("default/big-") for p in gone)
    fit = d["fitElsewhere"]
    assert (fit["pods"], fit["kubernetes"]["pods"], fit["optimal"]["pods"], fit["optimal"]["proven"]) == (10, 0, 0, True)
    room = d["makeRoom"]
    assert room["status"] == "plan" and room["proven"] and room["disruptions"] == room["bound"] >= 10
    assert room["check"] == "passed" and len(room["placed"]) == 10
    assert {v["node"] for v in room["placed"].values()}.isdisjoint({p["node"] for p in gone})
