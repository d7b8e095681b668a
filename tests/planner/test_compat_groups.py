"""Device compatibility groups (KEP-5963) in the planner: with the gate on,
MIG and vGPU partitions of one GPU never run together, so of one MIG pod
and one vGPU pod only one fits (the pattern model's layouts do not know
groups: the demand goes to the allocator's encoding); with the gate off the
grouped partitions are ignored altogether."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

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
