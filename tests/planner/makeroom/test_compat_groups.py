"""Device compatibility groups (KEP-5963) in make-room: a running pod's MIG
partition (its claim recorded the group ``mig``) keeps a vGPU partition of
the same GPU off while it stays, so a pending vGPU pod needs it evicted; when
it may not be evicted (higher priority), there is no plan. Before, make-room
left the groups of claims it may release out of its model and proposed to
place the vGPU beside the MIG partition (the checker then refused the plan)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from dralloc.cli.main import main

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "kep137" / "compat-example-3-vgpu-refused.yaml"
GATES = "DRAPartitionableDevices,DRADeviceCompatibilityGroups"


def _files(tmp_path: Path, running_priority: int) -> tuple[str, str]:
    sc = yaml.safe_load(SCENARIO.read_text())
    (held,) = sc["allocated"]
    node = {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "node-1", "labels": {"kubernetes.io/hostname": "node-1"}}}
    pod_a = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "namespace": "default"},
             "spec": {"nodeName": "node-1", "priority": running_priority,
                      "containers": [{"name": "c", "resources": {"claims": [{"name": "gpu"}]}}],
                      "resourceClaims": [{"name": "gpu", "resourceClaimName": held["metadata"]["name"]}]}}
    template = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                "metadata": {"name": "vgpu", "namespace": "default"},
                "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                    "deviceClassName": "gpu.example.com",
                    "selectors": [{"cel": {"expression": "device.attributes['gpu.example.com'].type == 'vgpu'"}}]}}]}}}}
    pod_b = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "b", "namespace": "default"},
             "spec": {"priority": 50, "containers": [{"name": "c", "resources": {"claims": [{"name": "gpu"}]}}],
                      "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "vgpu"}]}}
    cluster, pending = tmp_path / "cluster.yaml", tmp_path / "pending.yaml"
    cluster.write_text(yaml.safe_dump_all([node, *sc["objects"], held, pod_a]))
    pending.write_text(yaml.safe_dump_all([template, pod_b]))
    return str(cluster), str(pending)


def _make_room(tmp_path: Path, priority: int, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(["plan", "make-room", *_files(tmp_path, priority), "--for", "default/b", "--features", GATES,
                 "-o", "json"])
    return code, json.loads(capsys.readouterr().out)


def test_the_mig_holder_is_evicted_for_the_vgpu(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, d = _make_room(tmp_path, 0, capsys)
    assert code == 0 and d["proven"] and d["evictions"] == ["default/a"], d
    assert d["check"] == "passed", d


def test_no_plan_when_the_mig_holder_may_not_be_evicted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, d = _make_room(tmp_path, 100, capsys)
    assert code == 1 and d["status"] == "no plan", d
