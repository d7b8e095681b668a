"""What changes on upgrade: the same cluster under two releases, every
claim, pod and gang whose outcome differs, and the gate or rule that makes
the difference (each cause checked by what the gate does in the allocator)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from dralloc.cli.main import main
from dralloc.io import load
from dralloc.upgrade import Change, Comparison, compare_versions

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "upgrade" / "cluster.yaml"


def _by_name(c: Comparison) -> dict[str, Change]:
    return {ch.name: ch for ch in c.changes}


def _causes(ch: Change, explaining: bool = True) -> set[str]:
    return {c.name for c in ch.causes if c.explains or not explaining}


@pytest.fixture(scope="module")
def upgrade() -> Comparison:
    return compare_versions(load([EXAMPLE]), "1.34", "1.37")


def test_partitions_become_allocatable(upgrade: Comparison) -> None:
    """DRAPartitionableDevices is off in 1.34: the MIG job asks for
    partitions, which consume the GPU's counters."""
    mig = _by_name(upgrade)["default/mig-job"]
    assert (mig.kind, mig.before.text) == ("pod", "not placed")
    assert mig.after.data["node"] == "gpu-node-1"
    assert [d for c in mig.after.data["claims"] for d in c["devices"]] == [
        "gpu-node-1/gpu-0-mig-3g-20gb-0", "gpu-node-1/gpu-0-mig-1g-5gb-4", "gpu-node-1/gpu-0-mig-1g-5gb-5"]
    assert _causes(mig) == {"DRAPartitionableDevices"}


def test_taints_move_the_trainer_and_judge_the_old_allocation(upgrade: Comparison) -> None:
    """1.34 ignores device taints (alpha, off): the trainer gets the tainted
    gpu-0; in 1.37 it gets gpu-1. The whole GPU of gpu-node-1 would fit it
    in 1.37 were the MIG job not there first: partitions are no cause."""
    changes = _by_name(upgrade)
    trainer = changes["default/trainer"]
    assert trainer.before.data["claims"][0]["devices"] == ["gpu-node-2/gpu-0"]
    assert trainer.after.data["claims"][0]["devices"] == ["gpu-node-2/gpu-1"]
    assert _causes(trainer, explaining=False) == {"DRADeviceTaints"}
    old = changes["default/old-job"]
    assert old.before.data == {"allocated": True, "valid": True}
    assert old.after.data["valid"] is False and "example.com/failing" in old.after.text
    assert _causes(old) == {"DRADeviceTaints"}


def test_capacity_requests_need_consumable_capacity(upgrade: Comparison) -> None:
    nic = _by_name(upgrade)["default/nic-10g"]
    assert nic.before.text == "not allocated"
    assert nic.after.data["claims"][0]["devices"] == ["gpu-node-2-nics/nic-0 (shared)"]
    assert _causes(nic) == {"DRAConsumableCapacity"}


def test_header_and_counts(upgrade: Comparison) -> None:
    assert [g.words() for g in upgrade.gates if g.read] == [
        "DRAConsumableCapacity off -> on", "DRADeviceBindingConditions off -> on", "DRADeviceTaints off -> on",
        "DRAExtendedResource off -> on", "DRAPartitionableDevices off -> on"]
    assert [g.gate for g in upgrade.gates if not g.read] == []   # every gate that differs is read
    assert (upgrade.before.features.kubernetes_variant(), upgrade.after.features.kubernetes_variant()) == \
        ("experimental", "incubating")
    assert len(upgrade.changes) == 4 and upgrade.unchanged == 0


def test_the_way_back_mirrors_the_way_up(upgrade: Comparison) -> None:
    down = compare_versions(load([EXAMPLE]), "1.37", "1.34")
    assert {ch.name: (ch.before.state, ch.after.state) for ch in down.changes} == \
        {ch.name: (ch.after.state, ch.before.state) for ch in upgrade.changes}
    assert _causes(_by_name(down)["default/mig-job"]) == {"DRAPartitionableDevices"}


def test_the_same_release_changes_nothing() -> None:
    same = compare_versions(load([EXAMPLE]), "1.37", "1.37")
    assert same.changes == [] and same.unchanged == 4 and same.gates == []


def _distinct_claim() -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": "distinct", "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "gpus", "exactly": {"deviceClassName": "gpu.nvidia.com"}}],
                                 "constraints": [{"requests": ["gpus"], "distinctAttribute": "gpu.nvidia.com/type"}]}}}


def test_the_allocator_variant_alone(tmp_path: Path) -> None:
    """1.34 and 1.35 have the same allocator gates on by default, but 1.34's
    default set picks experimental (DRAResourceClaimDeviceStatus) and 1.35's
    incubating, whose code (1.36's stable) has no distinctAttribute."""
    docs = [d for d in yaml.safe_load_all(EXAMPLE.read_text()) if d["kind"] in ("Node", "DeviceClass")
            or d["metadata"]["name"] == "gpu-node-2-gpus"]
    for d in docs:
        if d["metadata"]["name"] == "gpu-node-2-gpus":
            for dev in d["spec"]["devices"]:
                dev.pop("taints", None)
    f = tmp_path / "c.yaml"
    f.write_text(yaml.safe_dump_all([*docs, _distinct_claim()]))
    got = compare_versions(load([f]), "1.34", "1.35")
    assert [g for g in got.gates if g.read] == []
    (ch,) = got.changes
    assert ch.name == "default/distinct" and ch.after.text == "not allocated"
    assert [(c.what, c.explains) for c in ch.causes] == [("variant", True)]
    assert "Kubernetes 1.34 runs experimental, 1.35 runs incubating" in ch.causes[0].text


def test_a_gang_is_placed_or_not_as_a_whole(tmp_path: Path) -> None:
    docs = list(yaml.safe_load_all(EXAMPLE.read_text()))
    pods = []
    for i in range(2):
        pod = copy.deepcopy(next(d for d in docs if d["kind"] == "Pod" and d["metadata"]["name"] == "mig-job"))
        pod["metadata"] = {"name": f"worker-{i}", "namespace": "default",
                           "annotations": {"planner.dralloc.dev/gang": "pair"}}
        pod["spec"]["resourceClaims"] = [{"name": "mig", "resourceClaimTemplateName": "one-1g"}]
        pods.append(pod)
    one_1g = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
              "metadata": {"name": "one-1g", "namespace": "default"},
              "spec": {"spec": {"devices": {"requests": [{"name": "mig", "exactly": {
                  "deviceClassName": "mig.nvidia.com",
                  "selectors": [{"cel": {"expression": 'device.attributes["gpu.nvidia.com"].profile == "1g.5gb"'}}]}}]}}}}
    keep = [d for d in docs if d["kind"] != "Pod" and d["metadata"]["name"] != "nic-10g"]
    f = tmp_path / "g.yaml"
    f.write_text(yaml.safe_dump_all([*keep, one_1g, *pods]))
    got = _by_name(compare_versions(load([f]), "1.35", "1.36"))
    gang = got["default/pair"]
    assert (gang.kind, gang.before.text, gang.after.text) == ("gang", "not placed", "placed")
    assert _causes(gang) == {"DRAPartitionableDevices"}
    assert {got["default/worker-0"].after.data["node"], got["default/worker-1"].after.data["node"]} == {"gpu-node-1"}


def test_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare-versions", str(EXAMPLE), "--from", "1.34", "--to", "1.37", "-o", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["from"]["kubernetesVersion"] == "1.34" and doc["to"]["allocator"] == "incubating"
    assert doc["summary"] == {"changed": 4, "unchanged": 0, "claims": 2, "pods": 2, "gangs": 0}
    mig = next(c for c in doc["changes"] if c["name"] == "default/mig-job")
    assert mig["causes"][0]["name"] == "DRAPartitionableDevices" and mig["causes"][0]["explains"]
    assert main(["compare-versions", str(EXAMPLE), "--from", "1.37", "--to", "v1.37.1"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "0 outcome(s) change (0 claim(s), 0 pod(s), 0 gang(s)); 4 unchanged"


def test_feature_overrides_of_each_side(capsys: pytest.CaptureFixture[str]) -> None:
    """With partitionable devices turned on in 1.34, the MIG job no longer changes."""
    assert main(["compare-versions", str(EXAMPLE), "--from", "1.34", "--to", "1.37",
                 "--from-features", "DRAPartitionableDevices=true", "-o", "yaml"]) == 1
    doc = yaml.safe_load(capsys.readouterr().out)
    assert "default/mig-job" not in {c["name"] for c in doc["changes"]}
    assert main(["compare-versions", str(EXAMPLE), "--from", "1.34", "--to", "1.37",
                 "--from-features", "DRAListTypeAttributes=true"]) == 2
    assert "Kubernetes 1.34 has no feature gate DRAListTypeAttributes" in capsys.readouterr().err
