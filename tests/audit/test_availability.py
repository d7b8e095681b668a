"""``dralloc availability``: the exact headroom per MIG profile on a DynamicMIG
node with partitions allocated agrees with ``plan fit`` asking the same; the
command's YAML is the ResourcePoolStatusRequest objects then the
PoolHeadroom object."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from dralloc.audit.availability import Availability, report
from dralloc.audit.headroom import STOPPED
from dralloc.cli.main import main
from dralloc.features import Features
from dralloc.io import load

HELD = {  # partitions already allocated on the node's two GPUs (A100-80GB, DynamicMIG)
    "held-3g": "gpu-0-mig-3g40gb-9-0",
    "held-1g": "gpu-1-mig-1g10gb-19-6",
    "held-2g": "gpu-1-mig-2g20gb-14-2",
}
PROFILES = ("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb")


def _claim(name: str, device: str) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "mig", "exactly": {"deviceClassName": "mig.nvidia.com"}}]}},
            "status": {"allocation": {"devices": {"results": [
                {"request": "mig", "driver": "gpu.nvidia.com", "pool": "node-0000", "device": device}]}}}}


def _demand(profile: str, replicas: int) -> list[dict[str, Any]]:
    name = "want-" + profile.replace(".", "-")
    return [{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
             "metadata": {"name": name, "namespace": "default"},
             "spec": {"spec": {"devices": {"requests": [{"name": "dev", "exactly": {
                 "deviceClassName": "mig.nvidia.com",
                 "selectors": [{"cel": {"expression": f'device.attributes["gpu.nvidia.com"].profile == "{profile}"'}}]}}]}}}},
            {"apiVersion": "v1", "kind": "Pod", "metadata": {
                "name": name, "namespace": "default", "annotations": {"planner.dralloc.dev/replicas": str(replicas)}},
             "spec": {"containers": [{"name": "c"}],
                      "resourceClaims": [{"name": "dev", "resourceClaimTemplateName": name}]}}]


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    d = tmp_path_factory.mktemp("mig")
    assert main(["generate", "cluster", "--nodes", "1", "--gpus", "2", "--gpu", "a100-80gb", "--out-dir",
                 str(d / "cluster")]) == 0
    held = d / "held.yaml"
    held.write_text(yaml.safe_dump_all([_claim(k, v) for k, v in HELD.items()]))
    return d / "cluster", held


def _headroom(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    assert main(["availability", *argv, "-o", "yaml"]) == 0
    docs = list(yaml.safe_load_all(capsys.readouterr().out))
    assert [d["kind"] for d in docs] == ["ResourcePoolStatusRequest", "PoolHeadroom"]
    return docs[:-1], docs[-1]


def test_per_profile_headroom_agrees_with_plan_fit(node: tuple[Path, Path], capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    cluster, held = node
    status, head = _headroom(capsys, str(cluster), str(held))
    pool = status[0]["status"]["pools"][0]
    assert (pool["allocatedDevices"], pool["availableDevices"]) == (3, pool["totalDevices"] - 3)
    shapes = {s["name"]: s for n in head["status"]["nodes"] for s in n["shapes"]}
    seen = 0
    for profile in PROFILES:
        got = shapes[f"mig.nvidia.com/{profile}"]
        assert got["status"] == "proven" and got["kubernetes"] == got["fits"]
        demand = tmp_path / f"{profile}.yaml"
        demand.write_text(yaml.safe_dump_all(_demand(profile, got["fits"] + 3)))
        assert main(["plan", "fit", str(cluster), str(held), str(demand), "-o", "json"]) == 0
        planned = json.loads(capsys.readouterr().out)["optimal"]
        assert planned["proven"] and planned["pods"] == got["fits"], (profile, planned, got)
        seen += got["fits"]
    assert seen > 0
    # the naive count is not the answer: far more devices are "available" than partitions fit
    assert pool["availableDevices"] > shapes["mig.nvidia.com"]["fits"]


def test_a_full_gpu_partition_no_longer_fits_where_a_slice_is_held(node: tuple[Path, Path],
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """gpu-0 has a 3g.40gb held and gpu-1 a 1g and a 2g: no 7g.80gb fits any
    more, and each GPU has room for fewer 3g.40gb than a fresh one (2)."""
    cluster, held = node
    _, head = _headroom(capsys, str(cluster), str(held))
    shapes = {s["name"]: s["fits"] for n in head["status"]["nodes"] for s in n["shapes"]}
    assert shapes["mig.nvidia.com/7g.80gb"] == 0
    assert shapes["mig.nvidia.com/3g.40gb"] < 4
    _, fresh = _headroom(capsys, str(cluster))
    fresh_shapes = {s["name"]: s["fits"] for n in fresh["status"]["nodes"] for s in n["shapes"]}
    assert fresh_shapes["mig.nvidia.com/7g.80gb"] == 2 and fresh_shapes["mig.nvidia.com/3g.40gb"] == 4


def test_a_search_stopped_by_its_time_limit_says_not_decided(node: tuple[Path, Path]) -> None:
    cluster, held = node
    objs = load([cluster, held])
    rep = report(objs, Availability(time_limit=1e-9), Features.default())
    assert rep.fits and all(f.status == STOPPED and not f.decided for f in rep.fits)
    assert all(f.text().startswith("not decided") for f in rep.fits)
    assert "not decided" in rep.table()


def _pair_template() -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": "pair", "namespace": "default"},
            "spec": {"spec": {"devices": {
                "requests": [{"name": "dev", "exactly": {
                    "deviceClassName": "mig.nvidia.com", "count": 2,
                    "selectors": [{"cel": {"expression": 'device.attributes["gpu.nvidia.com"].profile == "1g.10gb"'}}]}}],
                "constraints": [{"matchAttribute": "gpu.nvidia.com/parentUUID"}]}}}}


def test_a_given_shape_with_a_constraint_agrees_with_plan_fit(node: tuple[Path, Path], tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Two 1g.10gb partitions of one GPU (matchAttribute on the parent GPU),
    counted as copies of the claim. The rules admit 3 more (gpu-0 has room for
    one pair, gpu-1 for two), which is plan fit's bound; Kubernetes' own search
    places one and refuses the next through its counter leak (T-11: a
    partition of the other GPU refused by the constraint after its counters
    were added), which is plan fit's first-fit -- and its optimum, since the
    planner keeps only what the allocator realises."""
    cluster, held = node
    shape = tmp_path / "pair.yaml"
    shape.write_text(yaml.safe_dump(_pair_template()))
    _, head = _headroom(capsys, str(cluster), str(held), "--shape", str(shape))
    (got,) = [s for n in head["status"]["nodes"] for s in n["shapes"]]
    assert got["name"] == "pair" and got["status"] == "proven" and got["fits"] > 0
    demand = tmp_path / "demand.yaml"
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default", "annotations": {
        "planner.dralloc.dev/replicas": str(got["fits"] + 2)}},
        "spec": {"containers": [{"name": "c"}], "resourceClaims": [{"name": "dev", "resourceClaimTemplateName": "pair"}]}}
    demand.write_text(yaml.safe_dump_all([_pair_template(), pod]))
    assert main(["plan", "fit", str(cluster), str(held), str(demand), "-o", "json"]) == 0
    planned = json.loads(capsys.readouterr().out)
    assert (got["fits"], got["kubernetes"]) == (3, 1)
    assert planned["optimal"]["bound"] == got["fits"] and planned["firstFit"]["pods"] == got["kubernetes"]
    assert "counter-leak-on-late-refusal" in got["kubernetesNote"]
