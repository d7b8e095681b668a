"""``dralloc verify`` reads extended resources back (rule
``extended-resources``): a running pod's extended-resource claim must be the
one kube-scheduler makes on its node, allocated, named in the pod's status
with the mapping it writes; a pending pod gets the claim in the pending-pod
analysis (device plugins first); a pod DRA does not serve is said to be so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dralloc.audit import verify_state
from dralloc.checker.finding import ERROR, INFO, WARNING, Report
from dralloc.io import load
from tests.extended.objects import GPU, cluster_docs, container, gpu_pod, pod

STATUS = {"phase": "Running", "extendedResourceClaimStatus": {
    "resourceClaimName": "p-extended-resources-ab12c",
    "requestMappings": [{"containerName": "main", "resourceName": GPU, "requestName": "container-0-request-0"}]}}


def special(requests: list[dict[str, Any]], devices: list[str], node: str = "dra-1",
            name: str = "p-extended-resources-ab12c") -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "default",
                         "annotations": {"resource.kubernetes.io/extended-resource-claim": "true"},
                         "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "u-1",
                                              "controller": True}]},
            "spec": {"devices": {"requests": requests}},
            "status": {"allocation": {"devices": {"results": [
                {"request": requests[0]["name"] if requests else "r", "driver": "gpu.nvidia.com", "pool": node,
                 "device": d} for d in devices]},
                "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                    {"key": "metadata.name", "operator": "In", "values": [node]}]}]}}}}


def req(name: str = "container-0-request-0", count: int = 1, cls: str = "gpu.nvidia.com") -> dict[str, Any]:
    return {"name": name, "exactly": {"deviceClassName": cls, "allocationMode": "ExactCount", "count": count}}


def verify(tmp_path: Path, docs: list[dict[str, Any]], **kw: Any) -> Report:
    from tests.extended.objects import write

    return verify_state(load([write(tmp_path, cluster_docs() + docs)]), **kw)


def found(report: Report, level: str) -> list[str]:
    return [f.message for f in report.findings if f.rule == "extended-resources" and f.level == level]


def test_the_claim_kubernetes_makes_is_clean(tmp_path: Path) -> None:
    report = verify(tmp_path, [gpu_pod("p", 1, node="dra-1", status=STATUS), special([req()], ["gpu-0"])])
    assert [f for f in report.findings if f.level != INFO] == []


def test_a_pod_without_its_claim_on_a_dra_node_is_an_error(tmp_path: Path) -> None:
    report = verify(tmp_path, [gpu_pod("p", 1, node="dra-1", status={"phase": "Running"})])
    [msg] = found(report, ERROR)
    assert "DRA serves there" in msg and "nvidia.com/gpu by DeviceClass gpu.nvidia.com" in msg


def test_a_wrong_request_and_a_wrong_mapping_are_named(tmp_path: Path) -> None:
    p = pod("p", [container("main", limits={GPU: 1, "cpu": "1"})], node="dra-1", status=STATUS)
    report = verify(tmp_path, [p, special([req()], ["gpu-0"])])
    msgs = found(report, WARNING)
    assert any("builds [container-0-request-1: 1 x gpu.nvidia.com]" in m for m in msgs)
    assert any("the scheduler writes [main/nvidia.com/gpu -> container-0-request-1]" in m for m in msgs)


def test_dra_devices_on_a_device_plugin_node_are_flagged(tmp_path: Path) -> None:
    p = gpu_pod("p", 1, node="plugin-1", status=STATUS)
    report = verify(tmp_path, [p, special([req()], ["gpu-0"], node="plugin-1")])
    assert any("device plugins serve nvidia.com/gpu" in m for m in found(report, WARNING))


def test_overcommitted_device_plugins_are_flagged(tmp_path: Path) -> None:
    pods = [gpu_pod(f"p{i}", 1, node="plugin-1", status={"phase": "Running"}) for i in range(3)]
    report = verify(tmp_path, pods)
    assert found(report, WARNING) == ["node plugin-1: its pods request 3 nvidia.com/gpu, its device plugins "
                                      "advertise 2 (status.allocatable)"]


def test_a_claim_with_the_gate_off_is_flagged(tmp_path: Path) -> None:
    report = verify(tmp_path, [gpu_pod("p", 1, node="dra-1", status=STATUS), special([req()], ["gpu-0"])],
                    kubernetes_version="1.35")
    assert any("with DRAExtendedResource off (Kubernetes 1.35) the scheduler makes none" in m
               for m in found(report, WARNING))


def test_a_pending_pod_gets_the_claim_and_device_plugins_count(tmp_path: Path) -> None:
    report = verify(tmp_path, [gpu_pod("big", 3), gpu_pod("small", 2)])
    by_pod = {e["pod"]: e for e in report.pending}
    assert by_pod["default/big"]["verdict"] == "fits-now" and by_pod["default/big"]["nodes"] == ["dra-1"]
    assert by_pod["default/big"]["claims"] == ["default/big-extended-resources"]
    assert by_pod["default/small"]["nodes"] == ["dra-1", "dra-2", "plugin-1"]


def test_a_pending_pod_nothing_serves_does_not_fit_and_says_why(tmp_path: Path) -> None:
    report = verify(tmp_path, [gpu_pod("huge", 5)])
    [entry] = report.pending
    assert entry["verdict"] == "does-not-fit"
    assert "insufficient nvidia.com/gpu: 5 asked, 2 of 2 free" in entry["message"]


def test_a_pending_pod_dra_does_not_serve_is_said_to_be_the_device_plugins(tmp_path: Path) -> None:
    report = verify(tmp_path, [pod("f", [container("c", limits={"example.com/fpga": 1})])])
    [msg] = found(report, INFO)
    assert "no DeviceClass serves its extended resources (example.com/fpga)" in msg
    assert "no node's device plugins advertise them" in msg and report.pending == []


def test_a_pending_pod_with_a_claim_from_an_earlier_cycle(tmp_path: Path) -> None:
    stale = special([req()], ["gpu-0"])
    stale["status"] = {}
    report = verify(tmp_path, [gpu_pod("p", 1), stale])
    assert any("from an earlier scheduling cycle" in m for m in found(report, INFO))
    [entry] = report.pending
    assert entry["verdict"] == "fits-now" and entry["claims"] == ["default/p-extended-resources-ab12c"]


def test_the_replay_compares_the_claim_as_recorded(tmp_path: Path) -> None:
    claim = special([req()], ["gpu-3"])
    claim["status"]["allocation"]["allocationTimestamp"] = "2026-09-01T00:00:00Z"
    report = verify(tmp_path, [gpu_pod("p", 1, node="dra-1", status=STATUS), claim])
    assert report.replayed_pods == 1
    [diff] = [f for f in report.findings if f.rule == "kubernetes-answer"]
    assert "container-0-request-0=gpu.nvidia.com/dra-1/gpu-0" in diff.message


def test_a_claim_of_an_earlier_pod_of_the_same_name_is_not_this_pods(tmp_path: Path) -> None:
    # the scheduler finds a pod's claim by owner name and UID: a claim left by
    # an earlier pod "p" (uid u-1) is not the pending pod p (uid u-2)'s
    stale = special([req()], ["gpu-0"])
    stale["status"] = {}
    p = gpu_pod("p", 1)
    p["metadata"]["uid"] = "u-2"
    report = verify(tmp_path, [p, stale])
    [entry] = report.pending
    assert entry["claims"] == ["default/p-extended-resources"]           # a new claim, built for it
    assert not any("from an earlier scheduling cycle" in m for m in found(report, INFO))
    p["metadata"]["uid"] = "u-1"
    again = verify(tmp_path, [p, stale])
    assert again.pending[0]["claims"] == ["default/p-extended-resources-ab12c"]
