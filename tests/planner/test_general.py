"""General demand (several devices per pod, constraints, shared claims,
multi-host TPU slices): the scheduler simulation against the joint model,
hand-checked on small clusters."""

from __future__ import annotations

from typing import Any

import pytest

from dralloc.errors import InputError
from dralloc.features import Features
from dralloc.planner.api import Options, answer
from dralloc.planner.generate import clusters as gen
from dralloc.planner.generate.tpu import slice_demand, tpu_cluster
from dralloc.planner.questions.general import add_nodes_answer, general_fit
from dralloc.planner.simulate.firstfit import simulate
from dralloc.planner.simulate.podsim import simulate_pods
from dralloc.planner.view.cluster import DEFAULT_GATES
from dralloc.planner.view.pods import pods_demand
from tests.planner.helpers import cluster as mig_cluster

F = Features.from_gates(DEFAULT_GATES)
DRIVER = "gpu.example.com"
GPU_CLASS = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
             "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}}


def node(name: str, models: list[str], numa: int = 0) -> list[dict[str, Any]]:
    devs = [{"name": f"gpu-{i}", "attributes": {"numa": {"int": numa}, "model": {"string": m}}}
            for i, m in enumerate(models)]
    return [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}},
            {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{name}-gpus"},
             "spec": {"driver": DRIVER, "nodeName": name, "devices": devs,
                      "pool": {"name": name, "generation": 1, "resourceSliceCount": 1}}}]


def claim_spec(count: int, model: str | None = None) -> dict[str, Any]:
    ex: dict[str, Any] = {"deviceClassName": "gpu", "count": count}
    if model:
        ex["selectors"] = [{"cel": {"expression": f'device.attributes["{DRIVER}"].model == "{model}"'}}]
    return {"devices": {"requests": [{"name": "gpus", "exactly": ex}],
                        "constraints": [{"requests": ["gpus"], "matchAttribute": f"{DRIVER}/numa"}]}}


def template(name: str, count: int, model: str | None = None) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": name, "namespace": "default"}, "spec": {"spec": claim_spec(count, model)}}


def shared_claim(name: str, count: int = 1) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "default"}, "spec": claim_spec(count)}


def pod(name: str, templates: list[str] = (), shared: list[str] = (), replicas: int = 1) -> dict[str, Any]:  # type: ignore[assignment]
    refs = [{"name": f"t{i}", "resourceClaimTemplateName": t} for i, t in enumerate(templates)]
    refs += [{"name": f"s{i}", "resourceClaimName": s} for i, s in enumerate(shared)]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default",
                         "annotations": {"planner.dralloc.dev/replicas": str(replicas)}},
            "spec": {"resourceClaims": refs, "containers": [{"name": "main"}]}}


def fit(docs: list[dict[str, Any]]) -> tuple[Any, Any]:
    objs = gen.objects(docs)
    return general_fit(objs, pods_demand(objs), F, workers=1)


def test_match_attribute_pods_first_fit_strands_the_big_gpus():
    # "any" (2 GPUs, one NUMA node) takes node-a's big GPUs first; "big" then fits nowhere.
    docs = [GPU_CLASS, *node("node-a", ["big", "big"]), *node("node-b", ["small", "small"]),
            template("two", 2), template("two-big", 2, "big"), pod("any", ["two"]), pod("big", ["two-big"])]
    greedy, opt = fit(docs)
    assert greedy.served == {"default/any": 1, "default/big": 0}
    assert opt.served == {"default/any": 1, "default/big": 1} and opt.proven
    assert opt.placed == {"default/any#0": "node-b", "default/big#0": "node-a"}


def test_match_attribute_is_enforced_per_claim():
    # two GPUs on NUMA 0 and two on NUMA 1 of different nodes: no pair on one NUMA node
    docs = [GPU_CLASS, *node("node-a", ["x"], numa=0), *node("node-b", ["x"], numa=1),
            template("two", 2), pod("p", ["two"])]
    greedy, opt = fit(docs)
    assert greedy.served == {"default/p": 0} and opt.served == {"default/p": 0}


def test_shared_claim_is_allocated_once_where_all_its_pods_fit():
    # "solo" uses only the shared claim; "pair" uses it and needs one GPU of its own.
    # First-fit allocates the shared claim on node-a (1 GPU), so "pair" fits nowhere.
    docs = [GPU_CLASS, *node("node-a", ["x"]), *node("node-b", ["x", "x"]), template("one", 1),
            shared_claim("cache"), pod("solo", shared=["cache"]), pod("pair", ["one"], ["cache"])]
    greedy, opt = fit(docs)
    assert greedy.served == {"default/solo": 1, "default/pair": 0}
    assert opt.served == {"default/solo": 1, "default/pair": 1}
    assert set(opt.placed.values()) == {"node-b"}


def test_replicas_sharing_a_claim_follow_it():
    docs = [GPU_CLASS, *node("node-a", ["x"]), *node("node-b", ["x", "x"]), shared_claim("c", 2),
            pod("r", shared=["c"], replicas=3)]
    greedy, opt = fit(docs)
    assert greedy.served == {"default/r": 3} and opt.served == {"default/r": 3}
    assert {p.node for p in greedy.placed} == {"node-b"}


def test_tpu_counters_are_shared_across_the_hosts_of_a_block():
    # two 2x2 then a 4x4 (4 pods): the 4x4 excludes every 2x2, so at most 4 pods run, not 6
    docs = tpu_cluster(1) + slice_demand("a", "2x2") + slice_demand("b", "2x2") + slice_demand("big", "4x4")
    greedy, opt = fit(docs)
    assert sum(greedy.served.values()) == 2
    assert opt.served == {"default/a": 0, "default/b": 0, "default/big": 4} and opt.proven


def test_tpu_first_fit_strands_a_2x4():
    # the 2x2 lands on host-0, blocking the 2x4 over host-0/host-1: only one 2x4 fits after it
    docs = tpu_cluster(1) + slice_demand("a", "2x2") + slice_demand("b", "2x4") + slice_demand("c", "2x4")
    greedy, opt = fit(docs)
    assert sum(greedy.served.values()) == 3
    assert opt.served == {"default/a": 0, "default/b": 2, "default/c": 2}
    # the block model runs one replica per host the 2x4 spans
    hosts = {n for k, n in opt.placed.items() if k.startswith("default/b#")}
    assert hosts in ({"tpu-00-host-0", "tpu-00-host-1"}, {"tpu-00-host-2", "tpu-00-host-3"})
    assert opt.model == "blocks" and opt.proven


def test_pod_by_pod_simulation_equals_the_fast_first_fit_on_mig_pods():
    objs, cl = mig_cluster(2, 2, [("3g.20gb", 3, 0), ("1g.5gb", 5, 0), ("4g.20gb", 2, 0)])
    slow = simulate_pods(objs, pods_demand(objs), F)
    fast = simulate(cl)
    assert slow.served == fast.served
    assert [p.node for p in slow.placed] == [p.node for p in fast.placed]


def test_add_nodes_for_general_demand():
    docs = [GPU_CLASS, *node("node-a", ["big", "big"]), *node("node-b", ["small", "small"]),
            template("two", 2), template("two-big", 2, "big"), pod("any", ["two"]), pod("big", ["two-big"]),
            pod("big2", ["two-big"])]
    objs = gen.objects(docs)
    a = add_nodes_answer(objs, pods_demand(objs), F, "node-a", workers=1)
    # first-fit: "any" takes node-a, so both big pods need a copy of node-a; optimal: one copy
    assert a.first_fit["nodes"] == 2 and a.optimal["nodes"] == 1 and a.gap == 1 and a.optimal["proven"]


def test_general_demand_through_the_api_and_its_errors():
    docs = [GPU_CLASS, *node("node-a", ["x", "x"]), template("two", 2), pod("p", ["two"])]
    ans = answer("fit", gen.objects(docs), Options(workers=1))
    # first-fit places the whole demand: that is the optimum, no model runs
    assert ans.first_fit["pods"] == 1 and ans.optimal["pods"] == 1 and ans.detail["model"] == "first-fit"
    assert ans.optimal["proven"] and "no search needed" in ans.optimal["notes"][0]
    assert answer("fit", gen.objects(docs), Options(policy="most", workers=1)).first_fit["policy"] == "most"
    with pytest.raises(InputError, match="layout"):
        answer("layout", gen.objects(docs), Options())
    missing = [GPU_CLASS, *node("node-a", ["x"]), pod("p", shared=["nope"])]
    with pytest.raises(InputError, match=r"Pod default/p: spec.resourceClaims\[0\].resourceClaimName"):
        answer("fit", gen.objects(missing), Options())


def test_occupancy_colours_each_slice_by_the_partition_holding_it():
    from dralloc.planner.report.slices import gpu_rows
    from dralloc.planner.simulate.replaysim import simulate_replay
    from dralloc.planner.view.cluster import build_cluster
    from dralloc.planner.view.demand import Demand, demand_from

    objs, _ = mig_cluster(1, 1, [("3g.20gb", 1, 0), ("1g.5gb", 1, 0)], profiles=["1g.5gb", "3g.20gb"])
    for c in simulate_replay(objs, demand_from(objs), F).claims:
        objs.add(c)
    objs.pods.clear()
    (row,) = gpu_rows(build_cluster(objs, Demand()), None)
    # the 3g.20gb takes its first placement (slices 0-3), the 1g.5gb the first free slice (4)
    assert row.cells == ("3g.20gb",) * 4 + ("1g.5gb", "", "", "")
    assert row.edges == (4, 5)        # where each partition starts and the last one ends
