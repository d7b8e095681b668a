"""Generated clusters are what the drivers publish: valid v1 objects (every
per-slice limit), counter sets in a slice of their own, every capacity and
attribute the NVIDIA driver sets, GPU+NIC nodes equal to the EKS capture in
the shared datasets (dranet + NVIDIA driver on 8x A100 with EFA), unique
UUIDs, deterministic for a seed; written fast and read back unchanged."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from dralloc.cli.main import main
from dralloc.io import load
from dralloc.planner.generate import clusters as gen
from dralloc.planner.generate.emit import write_groups
from dralloc.planner.generate.nodes import NodeType
from dralloc.validation import validate

EKS = Path(__file__).resolve().parents[1] / "data" / "real" / "dranet" / "examples" / "aws_eks_examples" / "gpu-efa"
MIXED = [(NodeType("gpu", nics=4), 2), (NodeType("mig", nics=4), 2),
         (NodeType("mig", "h100-80gb-sxm5", name="h100"), 1), (NodeType("tpu"), 4)]
GPU_ATTRS = {"addressingMode", "architecture", "brand", "cudaComputeCapability", "cudaDriverVersion", "driverVersion",
             "productName", "type", "resource.kubernetes.io/pciBusID", "resource.kubernetes.io/pcieRoot",
             "resource.kubernetes.io/numaNode"}
MIG_CAPACITIES = {"copyEngines", "decoders", "encoders", "jpegEngines", "memory", "multiprocessors", "ofaEngines"}


def _slices(docs: list[dict[str, Any]], driver: str | None = None) -> list[dict[str, Any]]:
    return [d for d in docs if d["kind"] == "ResourceSlice" and driver in (None, d["spec"]["driver"])]


def _devices(docs: list[dict[str, Any]], driver: str) -> list[dict[str, Any]]:
    return [dev for s in _slices(docs, driver) for dev in s["spec"].get("devices") or []]


def test_a_mixed_cluster_validates_clean() -> None:
    objs = gen.objects(gen.mixed_cluster(MIXED, seed=3))
    assert [f for f in validate(objs)] == []
    assert len(objs.nodes) == 9


def test_pools_and_slices_follow_the_v1_rules_and_the_driver() -> None:
    docs = gen.cluster(2, nics=4)
    for s in _slices(docs):
        spec = s["spec"]
        assert not (spec.get("devices") and spec.get("sharedCounters"))
        consuming = [d for d in spec.get("devices") or [] if d.get("consumesCounters")]
        assert len(consuming) <= 64 and len(spec.get("sharedCounters") or []) <= 8
        pool = [t for t in _slices(docs, spec["driver"]) if t["spec"]["pool"]["name"] == spec["pool"]["name"]]
        assert spec["pool"]["resourceSliceCount"] == len(pool)
    gpu = [s for s in _slices(docs, "gpu.nvidia.com") if s["spec"]["nodeName"] == "node-0000"]
    assert len(gpu) == 9                                   # counter sets + one slice per GPU
    assert [cs["name"] for cs in gpu[0]["spec"]["sharedCounters"]] == [f"gpu-{i}-counter-set" for i in range(8)]
    assert [s["metadata"]["name"] for s in gpu] == sorted(s["metadata"]["name"] for s in gpu)
    names = [d["name"] for d in gpu[1]["spec"]["devices"]]
    assert names == sorted(names) and "gpu-0" not in names   # Ampere with MIG on: no full GPU
    assert "gpu-0-mig-1g5gb-19-6" in names and "gpu-0-mig-1g5gb-me-20-0" in names and len(names) == 25


def test_mig_devices_carry_what_the_nvidia_driver_sets() -> None:
    docs = gen.cluster(1, gpu="h100-80gb-sxm5", gpus=2)
    devices = _devices(docs, "gpu.nvidia.com")
    full = next(d for d in devices if d["name"] == "gpu-1")
    mig = next(d for d in devices if d["name"].startswith("gpu-1-mig-3g40gb") and d["name"].endswith("-4"))
    assert set(full["attributes"]) == GPU_ATTRS | {"uuid"}
    assert set(mig["attributes"]) == GPU_ATTRS | {"parentUUID", "profile"}
    assert mig["attributes"]["parentUUID"] == full["attributes"]["uuid"]
    assert set(mig["capacity"]) == MIG_CAPACITIES and set(full["capacity"]) == MIG_CAPACITIES
    used = mig["consumesCounters"][0]
    assert used["counterSet"] == "gpu-1-counter-set"
    assert {"multiprocessors", "copy-engines", "memory-slice-4", "memory-slice-7"} <= set(used["counters"])
    assert full["consumesCounters"][0]["counters"]["memory-slice-0"] == {"value": "1"}
    assert full["attributes"]["architecture"] == {"string": "Hopper"}


def _strip(dev: dict[str, Any], drop: set[str]) -> dict[str, Any]:
    return {**dev, "attributes": {k: v for k, v in dev["attributes"].items() if k not in drop}}


def test_a_gpu_nic_node_is_the_eks_capture() -> None:
    """Same devices, names, PCI addresses, PCIe roots, NUMA nodes and
    attributes as the captured node; what differs is identity (UUIDs, MAC,
    IP, interface names) and the GPUs' numaNode, which today's driver adds."""
    docs = gen.node_objects("ip-192-168-153-160.ec2.internal", "a100-40gb", 8, nics=4, kind="gpu")
    for file, driver, drop in (("resourceslice-gpu.yaml", "gpu.nvidia.com",
                                {"uuid", "resource.kubernetes.io/numaNode"}),
                               ("resourceslice-dranet.yaml", "dra.net",
                                {"dra.net/ifName", "dra.net/ipv4", "dra.net/mac"})):
        (captured,) = yaml.safe_load((EKS / file).read_text())["items"]
        (mine,) = _slices(docs, driver)
        want = sorted((_strip(d, drop) for d in captured["spec"]["devices"]), key=lambda d: d["name"])
        got = sorted((_strip(d, drop) for d in mine["spec"]["devices"]), key=lambda d: d["name"])
        assert got == want, file
        assert {k: mine["spec"][k] for k in ("driver", "nodeName", "pool")} == \
            {k: captured["spec"][k] for k in ("driver", "nodeName", "pool")}


def test_uuids_are_unique_and_the_seed_decides_them() -> None:
    docs = gen.cluster(30, gpus=8, kind="gpu", nics=4, seed=1)
    uuids = [d["attributes"]["uuid"]["string"] for d in _devices(docs, "gpu.nvidia.com")]
    assert len(uuids) == 240 == len(set(uuids))
    assert gen.cluster(3, seed=5) == gen.cluster(3, seed=5)
    assert gen.cluster(3, seed=5) != gen.cluster(3, seed=6)
    names = [s["metadata"]["name"] for s in _slices(docs)]
    assert len(names) == len(set(names))


def test_the_writer_reads_back_unchanged() -> None:
    groups = list(gen.iter_cluster(MIXED, seed=2))
    docs = [d for g in groups for d in g]
    out = io.StringIO()
    assert write_groups(groups, out) == len(docs)
    assert list(yaml.load_all(out.getvalue(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))) == docs
    assert "&id" not in out.getvalue() and "*id" not in out.getvalue()   # no aliases
    out = io.StringIO()
    write_groups(groups, out, "json")
    assert json.loads(out.getvalue())["items"] == docs


def test_cli_writes_a_mixed_cluster_into_files(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("dralloc.io.progress.SHOW_AFTER", 0.0)   # the progress of a longer run
    monkeypatch.setattr("dralloc.io.progress.LOG_EVERY", 0.0)
    out = tmp_path / "c"
    assert main(["generate", "cluster", "--types", "gpu=3,mig:h100-80gb-sxm5=2,tpu=4", "--nics", "4",
                 "--out-dir", str(out), "--per-file", "2", "--seed", "9"]) == 0
    err = capsys.readouterr().err
    assert "generate: nodes 4/9" in err and "3 node file(s) (9 nodes)" in err   # a TPU block is one unit
    objs = load([out])
    assert not objs.errors and validate(objs) == []
    assert sorted(n.name for n in objs.nodes)[:3] == ["gpu-0000", "gpu-0001", "gpu-0002"]
    assert main(["generate", "cluster", "--nodes", "2", "--format", "json"]) == 0
    (tmp_path / "c.json").write_text(capsys.readouterr().out)
    assert len(load([tmp_path / "c.json"]).nodes) == 2


@pytest.mark.parametrize("args,needle", [
    (["--types", "gpu=x"], "is not KIND[:GPU]=NODES"),
    (["--types", "fpga=2"], "unknown node kind 'fpga'"),
    (["--types", "mig:nope=2"], "unknown GPU model 'nope'"),
    (["--types", "tpu=6"], "give a multiple of 4"),
    (["--types", "gpu=2", "--prefix", "x"], "--prefix names the nodes of one type"),
])
def test_bad_generate_arguments_are_clear_errors(args: list[str], needle: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", "cluster", *args]) == 2
    assert needle in capsys.readouterr().err


def test_negative_counts_are_refused_by_the_parser(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["generate", "cluster", "--gpus", "8", "--nics", "-1"])
    assert e.value.code == 2
    assert "argument --nics: -1 is below the minimum of 0" in capsys.readouterr().err
