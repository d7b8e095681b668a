"""A pod's extended resources in ``dralloc.Cluster`` and ``allocate --pod``:
the extended-resource claim comes last among the pod's claims, is built per
node (a node's device plugin takes precedence and is counted), commits as
built, and is not there when the release has DRAExtendedResource off."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from dralloc import Cluster
from dralloc.cli.main import main
from dralloc.errors import InputError, StaleAnswerError
from dralloc.extended import CLAIM_ANNOTATION
from dralloc.io import load
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


def cluster(tmp_path: Path, extra: list[dict], version: str | None = None, **kw: object) -> Cluster:
    return Cluster.load([write(tmp_path, cluster_docs(**kw) + extra)], kubernetes_version=version)


def test_the_claim_comes_last_owned_by_the_pod(tmp_path: Path) -> None:
    tmpl = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": "one", "namespace": "default"},
            "spec": {"spec": {"devices": {"requests": [{"name": "g", "exactly": {"deviceClassName": "gpu.nvidia.com"}}]}}}}
    p = pod("mixed", [container("c", limits={GPU: 2})], claims=[{"name": "extra", "resourceClaimTemplateName": "one"}])
    cl = cluster(tmp_path, [tmpl, p])
    claims = cl.pod_claims("default/mixed")
    assert [c.key for c in claims] == ["default/mixed-extra", "default/mixed-extended-resources"]
    special = claims[-1]
    assert (special.metadata.annotations or {})[CLAIM_ANNOTATION] == "true"
    owner = (special.metadata.owner_references or [])[0]
    assert (owner.kind, owner.name, owner.controller) == ("Pod", "mixed", True)
    [(n, out)] = cl.fits(pod="default/mixed", limit=1)
    assert n.name == "dra-1" and out.ok
    assert [len(a.devices.results or []) for a in out.allocations or [] if a.devices] == [1, 2]


def test_nodes_in_order_dra_where_no_device_plugin_advertises_it(tmp_path: Path) -> None:
    cl = cluster(tmp_path, [gpu_pod("p", 2)])
    rows = {n.name: out for n, out in cl.each_node(pod="default/p")}
    assert rows["dra-1"].ok and not rows["dra-1"].device_plugin
    assert rows["plugin-1"].ok and rows["plugin-1"].claims == [] and rows["plugin-1"].device_plugin == {GPU: 2}
    assert any("device plugin" in n for n in rows["plugin-1"].notes)
    assert rows["dra-1"].request_mappings == [{"containerName": "main", "resourceName": GPU,
                                               "requestName": "container-0-request-0"}]


def test_a_full_device_plugin_refuses_and_commits_count(tmp_path: Path) -> None:
    cl = cluster(tmp_path, [gpu_pod("a", 2), gpu_pod("b", 1),
                            gpu_pod("running", 1, node="plugin-1", status={"phase": "Running"})], dp_free=3)
    plugin = cl.node("plugin-1")
    got = cl.allocate(plugin, pod="default/a")
    assert got.ok and got.device_plugin == {GPU: 2}
    with cl.trial():
        cl.commit(got)
        refused = cl.allocate(plugin, pod="default/b")
        assert not refused.ok and "insufficient nvidia.com/gpu: 1 asked, 0 of 3 free" in refused.reasons[0]
    assert cl.allocate(plugin, pod="default/b").ok     # the trial undid what the commit took
    assert cl.plugin_used("plugin-1") == {GPU: 1}


def test_commit_records_the_claim_as_built_for_the_node(tmp_path: Path) -> None:
    cl = cluster(tmp_path, [gpu_pod("p", 3)])
    claims = cl.pod_claims("default/p")
    [(n, out)] = cl.fits(claims, limit=1)         # claims given, as the README's loop does
    assert n.name == "dra-1"
    [done] = cl.commit(out, claims)
    assert done.key == "default/p-extended-resources" and done.status and done.status.allocation
    assert [r.request for r in done.status.allocation.devices.results or []] == ["container-0-request-0"] * 3
    # the pod now holds its claim: asked again, it is kept, and only nodes its allocation admits take it
    rows = {m.name: o.ok for m, o in cl.each_node(pod="default/p")}
    assert rows == {"dra-1": True, "dra-2": False, "plugin-1": False}


def test_the_claim_is_not_there_when_the_release_has_the_gate_off(tmp_path: Path) -> None:
    cl = cluster(tmp_path, [gpu_pod("p", 1)], version="1.35")
    with pytest.raises(InputError, match=r"not DRA's: DRAExtendedResource is off \(Kubernetes 1.35\)"):
        cl.pod_claims("default/p")
    on = Cluster.load([write(tmp_path, cluster_docs() + [gpu_pod("p", 1)], "on.yaml")],
                      features=["DRAExtendedResource"], kubernetes_version="1.35")
    assert [c.key for c in on.pod_claims("default/p")] == ["default/p-extended-resources"]


def test_a_resource_no_class_serves_fits_only_a_device_plugin(tmp_path: Path) -> None:
    docs = [*cluster_docs(), node("fpga-node", {"example.com/fpga": "1"}), gpus("fpga-node", 1),
            pod("both", [container("c", limits={GPU: 1, "example.com/fpga": 1})])]
    cl = Cluster.load([write(tmp_path, docs)])
    rows = {n.name: o for n, o in cl.each_node(pod="default/both")}
    assert not rows["dra-1"].ok and "no device plugin for example.com/fpga" in rows["dra-1"].reasons[0]
    assert rows["fpga-node"].ok and rows["fpga-node"].device_plugin == {"example.com/fpga": 1}
    assert [c.key for c in rows["fpga-node"].instances.values()] == ["default/both-extended-resources"]


def test_allocate_pod_prints_the_claim_and_the_pod_status(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, cluster_docs() + [gpu_pod("p", 2)])
    assert main(["allocate", path, "--pod", "default/p", "--node", "dra-2", "-o", "json"]) == 0
    items = json.loads(capsys.readouterr().out)["items"]
    claim, status = items
    assert claim["metadata"]["name"] == "p-extended-resources"
    assert {r["device"] for r in claim["status"]["allocation"]["devices"]["results"]} == {"gpu-0", "gpu-1"}
    assert status["kind"] == "Pod" and status["status"]["extendedResourceClaimStatus"] == {
        "requestMappings": [{"containerName": "main", "resourceName": GPU, "requestName": "container-0-request-0"}],
        "resourceClaimName": "p-extended-resources"}
    assert main(["allocate", path, "--pod", "default/p", "--node", "plugin-1"]) == 0
    out = capsys.readouterr()
    assert out.out == "" and "from the node's device plugins, not DRA: nvidia.com/gpu=2" in out.err
    assert main(["allocate", path, "--pod", "default/p", "--kubernetes-version", "1.35", "--node", "dra-1"]) == 2
    assert "not DRA's" in capsys.readouterr().err


def test_the_same_answers_through_allocate_and_the_cluster(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = [*cluster_docs(), gpu_pod("a", 3), gpu_pod("b", 2),
            pod("c", [container("c", limits={GPU: 1})], init=[container("i", limits={GPU: 2})])]
    path = write(tmp_path, docs)
    cl = Cluster(load([path]))
    for name in ("a", "b", "c"):
        assert main(["allocate", path, "--pod", f"default/{name}", "--all-nodes", "-o", "json"]) in (0, 1)
        rows = {r["node"]: r for r in yaml.safe_load(capsys.readouterr().out)["nodes"]}
        for n, out in cl.each_node(pod=f"default/{name}"):
            assert (rows[n.name]["result"] == "fits") == out.ok
            assert rows[n.name].get("devicePlugin", {}) == out.device_plugin
    assert not dict((n.name, o.ok) for n, o in cl.each_node(pod="default/a"))["dra-2"]   # 3 of 2 GPUs


def test_init_container_peak_is_what_a_node_must_hold(tmp_path: Path) -> None:
    p = pod("p", [container("c", limits={GPU: 1})], init=[container("i", limits={GPU: 3})])
    cl = Cluster.load([write(tmp_path, [device_class("gpu.nvidia.com", GPU), node("two"), gpus("two", 2),
                                        node("three"), gpus("three", 3), p])])
    rows = {n.name: o for n, o in cl.each_node(pod="default/p")}
    assert not rows["two"].ok and rows["three"].ok
    [a] = rows["three"].allocations or []
    assert len(a.devices.results or []) == 3 if a.devices else False


def test_explain_says_when_the_node_refuses_the_pod_itself(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, cluster_docs(dp_free=1) + [gpu_pod("p", 2)])
    assert main(["explain", path, "--pod", "default/p", "--node", "plugin-1"]) == 1
    assert "insufficient nvidia.com/gpu: 2 asked, 1 of 1 free" in capsys.readouterr().out
    assert main(["explain", path, "--pod", "default/p", "--node", "dra-1"]) == 0
    assert "no conflict" in capsys.readouterr().out.lower()


def test_a_pod_with_a_claim_on_a_node_whose_device_plugin_serves_its_gpus(tmp_path: Path) -> None:
    # the NIC from DRA, the GPU from the node's device plugin: no extended-resource claim there
    nic_class = device_class("nic.example.com", driver="nic.example.com")
    tmpl = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": "nic", "namespace": "default"},
            "spec": {"spec": {"devices": {"requests": [{"name": "nic", "exactly": {"deviceClassName": "nic.example.com"}}]}}}}
    docs = [*cluster_docs(), nic_class, node("both-1", {GPU: "1"}), gpus("both-1", 1, driver="nic.example.com"), tmpl,
            pod("mixed", [container("c", limits={GPU: 1})], claims=[{"name": "net", "resourceClaimTemplateName": "nic"}])]
    cl = Cluster.load([write(tmp_path, docs)])
    rows = {n.name: o for n, o in cl.each_node(pod="default/mixed")}
    assert rows["both-1"].ok and rows["both-1"].device_plugin == {GPU: 1}
    assert rows["both-1"].claims == ["default/mixed-net"] and rows["both-1"].instances == {}
    assert rows["both-1"].request_mappings in (None, [])
    assert not rows["dra-1"].ok and not rows["plugin-1"].ok          # no NIC there


def test_of_two_classes_naming_the_resource_the_newer_ones_devices_serve(tmp_path: Path) -> None:
    docs = [device_class("old", GPU, "2026-01-01T00:00:00Z", driver="gpu.nvidia.com"),
            device_class("new", GPU, "2026-06-01T00:00:00Z", driver="gpu.example.com"),
            node("a"), gpus("a", 2, driver="gpu.nvidia.com"), node("b"), gpus("b", 2, driver="gpu.example.com"),
            gpu_pod("p", 1)]
    cl = Cluster.load([write(tmp_path, docs)])
    rows = {n.name: o.ok for n, o in cl.each_node(pod="default/p")}
    assert rows == {"a": False, "b": True}
    [claim] = cl.pod_claims("default/p")
    assert [r.exactly.device_class_name for r in claim.spec.devices.requests if r.exactly] == ["new"]


def test_fits_skips_no_node_a_device_plugin_may_serve(tmp_path: Path) -> None:
    """``fits()`` passes over nodes whose free DRA devices are too few; the
    extended-resource claim is built per node and a node's device plugin may
    serve it without any DRA device, so such a node is still asked: fits
    lists what asking every node lists, with the pod or its claims given."""
    cl = cluster(tmp_path, [gpu_pod("p", 2)])
    every = [n.name for n, out in cl.each_node(pod="default/p") if out.ok]
    assert "plugin-1" in every
    assert [n.name for n, _ in cl.fits(pod="default/p")] == every
    assert [n.name for n, _ in cl.fits(cl.pod_claims("default/p"))] == every


def test_a_stale_device_plugin_answer_is_refused(tmp_path: Path) -> None:
    """Two answers computed before either is committed both take the device
    plugin's last GPU: the first commit is taken, the second refused with the
    node and resource named, nothing of it recorded."""
    cl = cluster(tmp_path, [gpu_pod("a", 1), gpu_pod("b", 1)], dp_free=1)
    plugin = cl.node("plugin-1")
    first, second = cl.allocate(plugin, pod="default/a"), cl.allocate(plugin, pod="default/b")
    assert first.device_plugin == second.device_plugin == {GPU: 1}
    cl.commit(first)
    with pytest.raises(StaleAnswerError, match="node plugin-1: the answer takes 1 nvidia.com/gpu from the node's "
                                               "device plugin, 0 of 1 free now"):
        cl.commit(second)
    assert cl.plugin_used("plugin-1") == {GPU: 1}
