"""A release read end to end: objects in versions it does not serve are read
with one warning naming it, its gates and variant answer allocate(), the
Cluster and every command, and 1.36's and 1.37's node-allocatable fields are
read and validated."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from dralloc.check import check_scenario
from dralloc.cli.main import main
from dralloc.cluster import Cluster
from dralloc.features import Variant
from dralloc.io import load
from dralloc.io.scenario import load_scenarios
from dralloc.solver.api import allocate
from dralloc.solver.outcome import Status
from dralloc.validation import validate

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "examples" / "quickstart" / "mig-a100.yaml"
LIST_TYPES = ROOT / "tests" / "scenarios" / "conformance" / "upstream"


def _pod_group(name: str, version: str) -> dict[str, Any]:
    return {"apiVersion": f"scheduling.k8s.io/{version}", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}}}


def _write(tmp_path: Path, docs: list[dict[str, Any]]) -> Path:
    f = tmp_path / "objs.yaml"
    f.write_text(yaml.safe_dump_all(docs))
    return f


def test_unserved_version_is_read_with_one_warning_naming_the_release(tmp_path: Path) -> None:
    f = _write(tmp_path, [_pod_group("a", "v1alpha2"), _pod_group("b", "v1alpha2")])
    objs = load([f], kubernetes_version="1.37")
    assert [g.name for g in objs.pod_groups] == ["a", "b"]
    assert objs.unserved == [f"{f}#0: Kubernetes 1.37 does not serve PodGroup in scheduling.k8s.io/v1alpha2 "
                             "(served in 1.36); it serves PodGroup in scheduling.k8s.io/v1alpha3, "
                             "scheduling.k8s.io/v1beta1; read anyway (2 objects)"]
    assert objs.unserved[0] in objs.warnings
    assert load([f], kubernetes_version="1.36").unserved == []


def test_the_command_line_prints_the_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = _write(tmp_path, [_pod_group("a", "v1alpha2")])
    assert main(["validate", "--kubernetes-version", "1.35", str(f)]) == 0
    err = capsys.readouterr().err
    assert "warning:" in err and "Kubernetes 1.35 does not serve PodGroup in scheduling.k8s.io/v1alpha2" in err


def test_an_unknown_release_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["allocate", "--kubernetes-version", "1.33", str(QUICKSTART)])
    assert e.value.code == 2
    assert "1.34, 1.35, 1.36, 1.37" in capsys.readouterr().err


def test_partitions_are_not_allocatable_before_1_36() -> None:
    """DRAPartitionableDevices is alpha (off) in 1.34 and 1.35: devices that
    consume counters are not candidates."""
    objs = load([QUICKSTART])
    old = allocate(objs, "gpu-node-1", ["default/training"], kubernetes_version="1.35")
    assert old.status is Status.UNSATISFIABLE
    assert any("DRAPartitionableDevices off" in line for line in old.reasons), old.reasons
    new = allocate(objs, "gpu-node-1", ["default/training"], kubernetes_version="1.37")
    assert new.status is Status.ALLOCATED


def test_the_cluster_answers_for_its_release() -> None:
    old = Cluster.load([QUICKSTART], kubernetes_version="1.34")
    assert old.features.kubernetes_version == "1.34" and old.variant is Variant.INCUBATING
    assert old.fits(["default/training"], limit=1) == []
    new = Cluster.load([QUICKSTART])
    assert [n.name for n, _ in new.fits(["default/training"], limit=1)] == ["gpu-node-1"]


def test_check_skips_scenarios_whose_gates_the_release_lacks() -> None:
    scenarios, errors = load_scenarios([LIST_TYPES])
    assert not errors
    lists = [s for s in scenarios if "DRAListTypeAttributes" in s.features]
    assert lists
    res = check_scenario(lists[0], "replay", kubernetes_version="1.35")
    assert res.skipped == "Kubernetes 1.35 has no feature gate DRAListTypeAttributes (alpha since 1.36)"
    assert check_scenario(lists[0], "replay", kubernetes_version="1.37").passed


def _slice(device: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "cpus"},
            "spec": {"driver": "dra.cpu.example.com", "nodeName": "node-1", "pool": {"name": "node-1", "resourceSliceCount": 1},
                     "devices": [{"name": "socket0", "allowMultipleAllocations": True,
                                  "capacity": {"dra.example.com/cores": {"value": "64"}}, **device}]}}


OLD = {"nodeAllocatableResourceMappings": {"cpu": {"capacityKey": "dra.example.com/cores",
                                                   "allocationMultiplier": "2"}}}
NEW = {"nodeAllocatableResources": {
    "cpu": {"mapping": {"capacityKey": "dra.example.com/cores", "capacityMultiplier": "2"}},
    "memory": {"overhead": {"perPod": "1Gi", "perContainer": "256Mi"}}}}


def test_1_36_and_1_37_node_allocatable_fields_are_read(tmp_path: Path) -> None:
    f = _write(tmp_path, [_slice(OLD)])
    objs = load([f], kubernetes_version="1.36")
    dev = objs.slices[0].spec.devices[0]  # type: ignore[index]
    assert dev.node_allocatable_resource_mappings is not None
    assert str(dev.node_allocatable_resource_mappings["cpu"].allocation_multiplier) == "2"
    assert objs.unserved == [] and validate(objs) == []
    later = load([f], kubernetes_version="1.37")
    assert later.unserved == [f"{f}#0: ResourceSlice spec.devices[].nodeAllocatableResourceMappings: Kubernetes "
                              "1.37 has no field nodeAllocatableResourceMappings (it has nodeAllocatableResources "
                              "instead); it exists in 1.36; read anyway"]
    g = _write(tmp_path, [_slice(NEW)])
    objs = load([g], kubernetes_version="1.37")
    res = objs.slices[0].spec.devices[0].node_allocatable_resources  # type: ignore[index]
    assert res is not None and res["memory"].overhead is not None
    assert str(res["memory"].overhead.per_pod) == "1Gi"
    assert objs.unserved == [] and validate(objs) == []
    assert "Kubernetes 1.36 has no field nodeAllocatableResources" in load([g], kubernetes_version="1.36").unserved[0]


@pytest.mark.parametrize(("entry", "message"), [
    ({"nvidia.com/gpu": {"overhead": {"perPod": "1"}}}, "extended resources are not allowed"),
    ({"cpu": {}}, "at least one of mapping and overhead is required"),
    ({"cpu": {"mapping": {"deviceMultiplier": "2", "capacityKey": "dra.example.com/cores",
                          "capacityMultiplier": "1"}}}, "mutually exclusive"),
    ({"cpu": {"mapping": {"capacityKey": "dra.example.com/cores"}}}, "set together"),
    ({"cpu": {"mapping": {}}}, "a mapping needs deviceMultiplier"),
])
def test_node_allocatable_resources_validation(tmp_path: Path, entry: dict[str, Any], message: str) -> None:
    objs = load([_write(tmp_path, [_slice({"nodeAllocatableResources": entry})])])
    found = validate(objs)
    assert any(message in f.message and f.severity == "error" for f in found), found


def test_a_capacity_key_the_device_lacks_is_a_warning(tmp_path: Path) -> None:
    entry = {"cpu": {"mapping": {"capacityKey": "dra.example.com/threads", "capacityMultiplier": "1"}}}
    found = validate(load([_write(tmp_path, [_slice({"nodeAllocatableResources": entry})])]))
    assert [(f.severity, f.field) for f in found] == [
        ("warning", "spec.devices[0].nodeAllocatableResources[cpu].mapping.capacityKey")]


@pytest.mark.parametrize("version", ["1.34", "1.35"])
def test_the_upstream_corpus_under_an_older_release(version: str) -> None:
    """Every upstream scenario passes under 1.34 and 1.35 (the default, 1.37,
    is what tests/scenarios runs), but those turning on a gate the release
    does not have, which are skipped with the reason."""
    from dralloc.cli.check import check_file

    entries = [e for f in sorted(LIST_TYPES.glob("*.yaml"))
               for e in check_file(str(f), "replay", kubernetes_version=version)]
    assert len(entries) == 119
    assert [e for e in entries if e["result"] not in ("pass", "skip")] == []
    missing = {e["name"] for e in entries if e["result"] == "skip" and "has no feature gate" in e["reason"]}
    scenarios, _ = load_scenarios([LIST_TYPES])
    assert missing == {s.name for s in scenarios if "DRAListTypeAttributes" in s.features}
    assert len(missing) == 11
