"""The planner's demand holds a pod's extended-resource claim (one per
replica, like a template's): ``plan fit`` places pods asking for
``nvidia.com/gpu: N`` on DRA devices, by the fast pattern model for one GPU
per pod and the general model otherwise; first-fit agrees with the
``Cluster`` pod by pod; device-plugin nodes are named in a note."""

from __future__ import annotations

from pathlib import Path

import pytest

from dralloc import Cluster
from dralloc.errors import InputError
from dralloc.features import Features
from dralloc.io import load
from dralloc.planner.api import Options, answer
from dralloc.planner.simulate.podsim import simulate_pods
from dralloc.planner.view.pods import EXTENDED_ENTRY, pods_demand
from tests.extended.objects import (
    GPU,
    cluster_docs,
    container,
    device_class,
    gpu_pod,
    gpus,
    node,
    pod,
    write,
)

DRA_ONLY = [device_class("gpu.nvidia.com", GPU), node("dra-1"), gpus("dra-1", 4), node("dra-2"), gpus("dra-2", 2)]


def test_the_demand_holds_the_claim_per_replica(tmp_path: Path) -> None:
    p = gpu_pod("p", 2)
    p["metadata"]["annotations"] = {"planner.dralloc.dev/replicas": "3"}
    demand = pods_demand(load([write(tmp_path, DRA_ONLY + [p])]))
    [d] = demand.pods
    assert d.replicas == 3 and [ref for ref, _ in d.templates] == [EXTENDED_ENTRY]
    [inst] = d.instances(1)
    assert inst.key == "default/p-1-extended-resources"
    [r] = inst.spec.devices.requests or []
    assert (r.name, r.exactly.device_class_name, r.exactly.count) == ("container-0-request-0", "gpu.nvidia.com", 2) \
        if r.exactly else False
    assert pods_demand(load([write(tmp_path, DRA_ONLY + [p], "old.yaml")]), Features.default("1.35")).pods == []


def test_one_gpu_pods_by_the_pattern_model(tmp_path: Path) -> None:
    pods = [gpu_pod(f"p{i}", 1) for i in range(7)]
    ans = answer("fit", load([write(tmp_path, DRA_ONLY + pods)]), Options(workers=1))
    assert ans.first_fit["pods"] == 6 and ans.optimal["pods"] == 6 and ans.optimal["proven"] is True


def test_multi_gpu_pods_by_the_general_model(tmp_path: Path) -> None:
    pods = [gpu_pod("a", 3), gpu_pod("b", 2), gpu_pod("c", 1),
            pod("d", [container("one", limits={GPU: 1}), container("two", limits={GPU: 1})])]
    ans = answer("fit", load([write(tmp_path, DRA_ONLY + pods)]), Options(workers=1))
    # 6 GPUs: a (3) + b (2) + c (1) fill them; d (2) waits -- or d instead of b: 3 pods either way
    assert ans.first_fit["pods"] == 3 and ans.optimal["pods"] == 3


def test_first_fit_is_the_clusters_pod_by_pod(tmp_path: Path) -> None:
    pods = [gpu_pod("a", 1), gpu_pod("b", 3), gpu_pod("c", 2), gpu_pod("d", 1)]
    objs = load([write(tmp_path, DRA_ONLY + pods)])
    sim = simulate_pods(objs, pods_demand(objs), Features.default())
    planned = {pl.pod: pl.node for pl in sim.placed}
    cl = Cluster(load([write(tmp_path, DRA_ONLY + pods, "again.yaml")]))
    looped = {}
    for name in "abcd":
        found = cl.fits(pod=f"default/{name}", limit=1, mode="replay")
        if found:
            n, out = found[0]
            cl.commit(out)
            looped[f"default/{name}"] = n.name
    assert planned == looped == {"default/a": "dra-1", "default/b": "dra-1", "default/c": "dra-2"}


def test_device_plugin_nodes_are_noted(tmp_path: Path) -> None:
    ans = answer("fit", load([write(tmp_path, cluster_docs() + [gpu_pod("p", 1)])]), Options(workers=1))
    assert any("plugin-1" in n and "does not model" in n for n in ans.optimal["notes"])


def test_no_demand_when_the_release_does_not_serve_them(tmp_path: Path) -> None:
    objs = load([write(tmp_path, DRA_ONLY + [gpu_pod("p", 1)])])
    with pytest.raises(InputError, match="no demand"):
        answer("fit", objs, Options(workers=1, kubernetes_version="1.35"))
