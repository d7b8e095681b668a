"""`dralloc verify` on pending gangs: a gang Kubernetes' gang cycle refuses
but that fits is reported like a pending pod that fits."""

from __future__ import annotations

from typing import Any

from dralloc.audit.core import verify_state
from dralloc.features import Features
from dralloc.planner.generate import clusters as gen
from tests.planner.aicluster import gpu_nic_node, member, partitionable, pod_group, prefer_whole

FEATURES = Features.from_gates(["DRAPartitionableDevices", "DRAPrioritizedList"])


def gang_entries(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rep = verify_state(gen.objects(docs), FEATURES, compare=False)
    return [e for e in rep.pending if "gang" in e]


def test_a_gang_kubernetes_refuses_but_that_fits_is_reported() -> None:
    docs = partitionable("n1") + [prefer_whole("t"), pod_group("pg", 2), member("a", "pg", ["t"]),
                                  member("b", "pg", ["t"])]
    [entry] = gang_entries(docs)
    assert entry["verdict"] == "gang-fits-jointly"
    kube = entry["kubernetes"]     # one node: no tie-break; a takes the whole device, b finds nothing
    assert kube["answer"] == "refused" and kube["refusedBy"] == {"default/a": "n1"} and "placedBy" not in kube
    assert entry["nodes"] == {"default/a": "n1", "default/b": "n1"}
    assert "refuses the gang under every tie-break" in entry["message"] and "but the gang fits" in entry["message"]


def test_a_gang_that_fits_now_and_one_that_cannot() -> None:
    one = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
           "metadata": {"name": "one", "namespace": "default"},
           "spec": {"spec": {"devices": {"requests": [{"name": "g", "exactly": {"deviceClassName": "gpu.nvidia.com"}}]}}}}
    docs = [*gen.device_classes(), *gpu_nic_node("a", gpus=2), one, pod_group("small", 2), pod_group("big", 3),
            member("s", "small", ["one"], replicas=1), member("s2", "small", ["one"]),
            member("b1", "big", ["one"]), member("b2", "big", ["one"]), member("b3", "big", ["one"])]
    got = {e["gang"]: e["verdict"] for e in gang_entries(docs)}
    assert got == {"default/small": "gang-fits-now", "default/big": "gang-does-not-fit"}


def test_gang_pods_are_not_analysed_one_by_one() -> None:
    docs = partitionable("n1") + [prefer_whole("t"), pod_group("pg", 2), member("a", "pg", ["t"]),
                                  member("b", "pg", ["t"])]
    rep = verify_state(gen.objects(docs), FEATURES, compare=False)
    assert all("gang" in e for e in rep.pending)
