"""Device compatibility groups (KEP-5963) in the planner: with the gate on,
MIG and vGPU partitions of one GPU never run together, so of one MIG pod
and one vGPU pod only one fits (the pattern model's layouts do not know
groups: the demand goes to the allocator's encoding); with the gate off the
grouped partitions are ignored altogether. A held MIG partition keeps a vGPU
pod off; layout refuses (its pattern model does not know groups) and
fragmentation's re-pack says its count is only a lower bound."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from dralloc.errors import InputError
from dralloc.features import DEFAULT_GATES
from dralloc.io import load
from dralloc.planner.api import Options, answer

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "kep137" / "compat-example-3-vgpu-refused.yaml"


def _pod(name: str, profile: str) -> list[dict[str, Any]]:
    return [{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
             "metadata": {"name": name, "namespace": "default"},
             "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                 "deviceClassName": "gpu.example.com",
                 "selectors": [{"cel": {"expression": f"device.attributes['gpu.example.com'].type == '{profile}'"}}]}}]}}}},
            {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
             "spec": {"containers": [{"name": "c"}], "resourceClaims": [{"name": "gpu",
                                                                        "resourceClaimTemplateName": name}]}}]


def _cluster(tmp_path: Path) -> Path:
    sc = yaml.safe_load(SCENARIO.read_text())
    docs = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"}}, *sc["objects"],
            *_pod("mig-pod", "mig-1g"), *_pod("vgpu-pod", "vgpu")]
    out = tmp_path / "cluster.yaml"
    out.write_text(yaml.safe_dump_all(docs))
    return out


def test_mig_and_vgpu_pods_do_not_share_a_gpu(tmp_path: Path) -> None:
    objs = load([_cluster(tmp_path)])
    on = answer("fit", objs, Options(gates=(*DEFAULT_GATES, "DRADeviceCompatibilityGroups")))
    assert on.optimal["proven"] and on.optimal["pods"] == 1 and on.first_fit["pods"] == 1
    off = answer("fit", load([_cluster(tmp_path)]), Options())
    assert off.optimal["pods"] == 0 and off.first_fit["pods"] == 0  # grouped devices are skipped without the gate


def _held_cluster(tmp_path: Path, pending: bool) -> Path:
    """The KEP's example 3 node with pod-a's MIG partition allocated (its
    claim recorded the group mig); ``pending``: and a vGPU pod."""
    sc = yaml.safe_load(SCENARIO.read_text())
    docs = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"}}, *sc["objects"], *sc["allocated"],
            *(_pod("vgpu-pod", "vgpu") if pending else [])]
    out = tmp_path / "held.yaml"
    out.write_text(yaml.safe_dump_all(docs))
    return out


def test_a_held_mig_partition_keeps_a_vgpu_pod_off(tmp_path: Path) -> None:
    on = answer("fit", load([_held_cluster(tmp_path, True)]),
                Options(gates=(*DEFAULT_GATES, "DRADeviceCompatibilityGroups")))
    assert on.first_fit["pods"] == 0 and on.optimal["pods"] == 0 and on.optimal["proven"]


def test_fragmentation_says_its_repack_is_a_lower_bound_with_groups(tmp_path: Path) -> None:
    """The re-pack's layouts do not know groups: with the gate on and groups
    declared, its count is a bound, not a proven answer."""
    objs = load([_held_cluster(tmp_path, False)])
    on = answer("fragmentation", objs, Options(gates=(*DEFAULT_GATES, "DRADeviceCompatibilityGroups")))
    assert on.optimal["proven"] is False and on.optimal["units"] is None and on.optimal["bound"] == 1
    assert "lower bound" in on.optimal["note"]
    off = answer("fragmentation", load([_held_cluster(tmp_path, False)]), Options())
    assert off.optimal["proven"] is True and "note" not in off.optimal


def test_layout_refuses_when_groups_decide(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="layout's pattern model does not know compatibility groups"):
        answer("layout", load([_cluster(tmp_path)]), Options(gates=(*DEFAULT_GATES, "DRADeviceCompatibilityGroups")))
