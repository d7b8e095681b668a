"""examples/extended/: a Kubernetes 1.37 dump -- a v1beta1 PodGroup with a
group claim for a fabric port whose device has binding conditions, pods
asking ``nvidia.com/gpu`` (and a class's implicit name) through a
DeviceClass's ``extendedResourceName``, a tainted GPU, a node on the device
plugin -- gives the same answers in ``allocate --pod``, ``verify``, the
``Cluster`` (examples/extended/schedule.py) and ``plan fit``."""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from typing import Any

import pytest

from dralloc import Cluster
from dralloc.cli.main import main
from dralloc.features import Features
from dralloc.io import load
from dralloc.planner.simulate.podsim import simulate_pods
from dralloc.planner.view.pods import pods_demand

HERE = Path(__file__).resolve().parents[2] / "examples" / "extended"
DUMP = str(HERE / "dump.yaml")
PENDING = ["ml/infer-0", "ml/notebook-0", "ml/train-0", "ml/train-1"]
# the queue, each pod committed before the next: where Kubernetes 1.37 puts them
PLACED = {"ml/train-0": ("gpu-node-2", ["port-0", "gpu-0", "gpu-1"]),
          "ml/train-1": ("gpu-node-2", ["port-0", "gpu-2", "gpu-3"]),
          "ml/infer-0": ("gpu-node-1", ["gpu-1"]),          # gpu-0 is web-0's, gpu-3 is tainted
          "ml/notebook-0": ("gpu-node-1", ["gpu-2"])}
# each pending pod alone, on the cluster as it is: the nodes that take it, in the scheduler's order
FITS_NOW = {"ml/infer-0": ["gpu-node-1", "gpu-node-2", "legacy-node"],   # legacy-node: its device plugin
            "ml/notebook-0": ["gpu-node-1", "gpu-node-2"],               # the implicit name: no device plugin
            "ml/train-0": ["gpu-node-2"], "ml/train-1": ["gpu-node-2"]}  # the fabric port is on gpu-node-2


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, Any]:
    code = main(args)
    return code, json.loads(capsys.readouterr().out or "null")


def test_the_cluster_loop(capsys: pytest.CaptureFixture[str]) -> None:
    runpy.run_path(str(HERE / "schedule.py"), run_name="__main__")
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "ml/train-0: gpu-node-2 [port=port-0, container-0-request-0=gpu-0, container-0-request-0=gpu-1]"
    assert "ml/infer-0: gpu-node-1 [container-0-request-0=gpu-1]" in lines
    assert "  lab/deviceclass.resource.kubernetes.io/gpu.nvidia.com -> ml/notebook-0-extended-resources " \
           "container-0-request-0" in lines
    assert lines[-1] == "6 claims allocated"


def test_allocate_pod_agrees_with_the_cluster(capsys: pytest.CaptureFixture[str]) -> None:
    cluster = Cluster.load([DUMP])
    for pod in PENDING:
        code, out = run(["allocate", DUMP, "--pod", pod, "--all-nodes", "-o", "json", "--mode", "replay"], capsys)
        fits = [r["node"] for r in out["nodes"] if r["result"] == "fits"]
        assert code == 0 and fits == FITS_NOW[pod] == [n.name for n, _ in cluster.fits(pod=pod, mode="replay")]
    code, out = run(["allocate", DUMP, "--pod", "ml/train-0", "--node", "gpu-node-2", "-o", "json"], capsys)
    fabric, gpus, status = out["items"]
    result = fabric["status"]["allocation"]["devices"]["results"][0]
    assert fabric["metadata"]["name"] == "train-fabric" and result["device"] == "port-0"
    assert result["bindingConditions"] == ["fabric.example.com/attached"]     # copied from the device (1.37: on)
    assert result["bindingFailureConditions"] == ["fabric.example.com/attach-failed"]
    assert gpus["spec"]["devices"]["requests"] == [{"name": "container-0-request-0", "exactly": {
        "deviceClassName": "gpu.nvidia.com", "allocationMode": "ExactCount", "count": 2}}]
    assert status["status"]["extendedResourceClaimStatus"]["resourceClaimName"] == "train-0-extended-resources"


def test_verify_agrees(capsys: pytest.CaptureFixture[str]) -> None:
    code, report = run(["verify", DUMP, "-o", "json"], capsys)
    assert code == 0 and report["summary"]["errors"] == report["summary"]["warnings"] == 0
    assert report["summary"]["replayedPods"] == 1          # web-0: its claim is what the scheduler gives
    by = {e.get("pod") or e.get("gang"): e for e in report["pending"]}
    assert by["ml/train"]["verdict"] == "gang-fits-now"
    assert by["ml/train"]["kubernetes"]["placedBy"] == {p: PLACED[p][0] for p in ("ml/train-0", "ml/train-1")}
    for pod in ("ml/infer-0", "ml/notebook-0"):
        assert by[pod]["verdict"] == "fits-now" and by[pod]["nodes"] == FITS_NOW[pod]


def test_plan_fit_agrees(capsys: pytest.CaptureFixture[str]) -> None:
    code, ans = run(["plan", "fit", DUMP, "-o", "json"], capsys)
    assert code == 0 and ans["firstFit"]["pods"] == ans["optimal"]["pods"] == 4
    assert ans["firstFit"]["gangs"] == 1 and ans["optimal"]["proven"] is True
    assert any("legacy-node" in n for n in ans["optimal"]["notes"])
    objs = load([DUMP])
    sim = simulate_pods(objs, pods_demand(objs), Features.default())
    got = {pl.pod: (pl.node, sorted(r.device for c in pl.claims if c.key.endswith("-extended-resources")
                                    and c.status and c.status.allocation and c.status.allocation.devices
                                    for r in c.status.allocation.devices.results or []))
           for pl in sim.placed}
    assert got == {p: (n, sorted(d for d in ds if d.startswith("gpu"))) for p, (n, ds) in PLACED.items()}


def test_an_upgrade_from_1_35_gives_the_gpus_to_dra(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(["compare-versions", DUMP, "--from", "1.35", "--to", "1.37", "-o", "json"], capsys)
    infer = next(c for c in out["changes"] if c["name"] == "ml/infer-0")
    assert [c["name"] for c in infer["causes"] if c["explains"]] == ["DRAExtendedResource"]


def test_make_room_and_drain_on_the_dump(capsys: pytest.CaptureFixture[str]) -> None:
    # infer-0 fits now on gpu-node-1's DRA GPUs: nothing to disrupt
    code, ans = run(["plan", "make-room", DUMP, "--for", "ml/infer-0", "-o", "json"], capsys)
    assert code == 0 and ans["disruptions"] == 0 and ans["placed"]["ml/infer-0#0"]["node"] == "gpu-node-1"
    # draining gpu-node-1 displaces web-0 (its extended-resource claim with it): gpu-node-2 takes it
    code, ans = run(["plan", "drain", DUMP, "--node", "gpu-node-1", "-o", "json"], capsys)
    assert code == 0 and [p["pod"] for p in ans["displaced"]] == ["ml/web-0"]
    assert ans["fitElsewhere"]["optimal"]["pods"] == 1
    assert any("legacy-node" in n for n in ans["notes"])
