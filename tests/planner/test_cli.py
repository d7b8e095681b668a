"""The commands: every example under examples/planner runs and gives its
documented answer; generated YAML loads; bad input is a clear error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from dralloc.cli.main import main
from dralloc.io import load

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "planner"


def _plan(capsys, *argv: str) -> dict:
    assert main(["plan", *argv, "-o", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def _files(name: str) -> list[str]:
    return sorted(str(p) for p in (EXAMPLES / name).glob("*.yaml") if p.name != "node-type.yaml")


def test_example_fit(capsys):
    out = _plan(capsys, "fit", *_files("fit"))
    assert out["optimal"]["proven"] and out["optimal"]["pods"] == 15 and out["firstFit"]["pods"] == 14


def test_example_add_nodes(capsys):
    out = _plan(capsys, "add-nodes", *_files("add-nodes"),
                "--template-file", str(EXAMPLES / "add-nodes" / "node-type.yaml"))
    assert (out["firstFit"]["nodes"], out["optimal"]["nodes"]) == (2, 1)


def test_example_layout(capsys, tmp_path):
    out = _plan(capsys, "layout", *_files("layout"), "--png", str(tmp_path / "lay"))
    assert (out["firstFit"]["units"], out["optimal"]["units"]) == (4, 3)
    assert (tmp_path / "lay-occupancy.png").stat().st_size > 0


def test_example_fragmentation(capsys, tmp_path):
    out = _plan(capsys, "fragmentation", *_files("fragmentation"), "--png", str(tmp_path / "f"))
    assert out["firstFit"]["unitsInUse"] == 2 and out["optimal"]["units"] == 1 and out["gap"] == 1
    assert (tmp_path / "f-utilisation.png").exists()


def test_example_gangs(capsys, tmp_path):
    assert main(["plan", "fit", *_files("gangs"), "--png", str(tmp_path / "g"), "-o", "json"]) == 0
    cap = capsys.readouterr()
    out = json.loads(cap.out)
    assert (out["firstFit"]["pods"], out["optimal"]["pods"]) == (3, 5) and out["optimal"]["proven"]
    assert (out["firstFit"]["gangs"], out["optimal"]["gangs"]) == (1, 2)
    assert out["detail"]["gangsKubernetesRefusesThatFit"] == ["default/split"]
    assert "warning" not in cap.err   # v1beta1 PodGroups: served by the default release (1.37)
    for what in ("compare", "workloads", "nodes"):
        assert (tmp_path / f"g-{what}.png").stat().st_size > 0
        assert f"wrote {tmp_path / f'g-{what}.png'}" in cap.err   # the files written, on stderr
    assert main(["verify", *_files("gangs"), "-o", "json"]) in (0, 1)
    found = json.loads(capsys.readouterr().out)
    assert {e["gang"]: e["verdict"] for e in found["pending"]} == {"default/split": "gang-fits-jointly",
                                                                   "default/train": "gang-fits-now"}


def test_table_output_shows_both_answers(capsys):
    assert main(["plan", "fit", *_files("fit")]) == 0
    text = capsys.readouterr().out
    assert "first-fit" in text and "optimal" in text and "gap" in text


def test_generate_writes_loadable_v1_yaml(capsys, tmp_path):
    assert main(["generate", "cluster", "--nodes", "2", "--gpus", "1", "--nics", "2", "--gpu", "h100-80gb-sxm5"]) == 0
    (tmp_path / "c.yaml").write_text(capsys.readouterr().out)
    assert main(["generate", "demand", "--gpu", "h100-80gb-sxm5", "--mix", "1g.10gb=2,3g.40gb=1",
                 "--load", "1.3", "--nodes", "2", "--gpus", "1"]) == 0
    (tmp_path / "d.yaml").write_text(capsys.readouterr().out)
    objs = load([tmp_path / "c.yaml", tmp_path / "d.yaml"])
    assert not objs.errors
    assert len(objs.nodes) == 2 and len(objs.slices) == 6   # counters, devices, NICs per node
    replicas = sum(int(p.metadata.annotations["planner.dralloc.dev/replicas"]) for p in objs.pods)
    assert replicas == 10   # 1.3 x 14 compute slices = 18.2; / mean 5/3 slices per claim = 10.92 -> 10
    out = _plan(capsys, "fit", str(tmp_path / "c.yaml"), str(tmp_path / "d.yaml"))
    assert out["optimal"]["pods"] >= out["firstFit"]["pods"]


@pytest.mark.parametrize("annotation,needle", [
    ("many", "metadata.annotations[planner.dralloc.dev/replicas]"),
    ("-3", "is not a non-negative integer"),
])
def test_bad_replicas_is_a_clear_error(capsys, tmp_path, annotation, needle):
    docs = list(yaml.safe_load_all((EXAMPLES / "fit" / "demand.yaml").read_text()))
    pod = next(d for d in docs if d["kind"] == "Pod")
    pod["metadata"]["annotations"]["planner.dralloc.dev/replicas"] = annotation
    (tmp_path / "d.yaml").write_text(yaml.safe_dump_all(docs))
    assert main(["plan", "fit", str(EXAMPLES / "fit" / "cluster.yaml"), str(tmp_path / "d.yaml")]) == 2
    err = capsys.readouterr().err
    assert needle in err and f"Pod default/{pod['metadata']['name']}" in err


def test_missing_template_and_unknown_template_node(capsys):
    assert main(["plan", "add-nodes", *_files("add-nodes")]) == 2
    assert "--template" in capsys.readouterr().err
    assert main(["plan", "add-nodes", *_files("add-nodes"), "--template", "nope"]) == 2
    assert "template node 'nope' not found" in capsys.readouterr().err


def test_no_demand_is_an_error(capsys):
    assert main(["plan", "fit", str(EXAMPLES / "fit" / "cluster.yaml")]) == 2
    assert "no demand" in capsys.readouterr().err


def test_generate_into_a_directory_of_files(tmp_path, capsys):
    out = tmp_path / "c"
    assert main(["generate", "cluster", "--nodes", "5", "--gpus", "1", "--out-dir", str(out), "--per-file", "2"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["classes.yaml", "nodes-0000.yaml", "nodes-0001.yaml",
                                                     "nodes-0002.yaml"]
    objs = load([out])
    assert not objs.errors and [n.name for n in objs.nodes] == [f"node-000{i}" for i in range(5)]


def test_example_general(capsys):
    out = _plan(capsys, "fit", *_files("general"), "--workers", "1")
    assert (out["firstFit"]["pods"], out["optimal"]["pods"], out["gap"]) == (3, 4, 1)
    assert out["detail"]["placement"]["default/train-big#0"] == "node-a"
    out = _plan(capsys, "add-nodes", *_files("general"), "--template", "node-a", "--workers", "1")
    assert (out["firstFit"]["nodes"], out["optimal"]["nodes"]) == (1, 0)


def test_generate_tpu_cluster_and_demand(capsys, tmp_path):
    assert main(["generate", "cluster", "--tpu", "--nodes", "8"]) == 0
    (tmp_path / "c.yaml").write_text(capsys.readouterr().out)
    assert main(["generate", "demand", "--tpu", "--mix", "4x4=1,2x4=1,2x2=2", "--claims", "4"]) == 0
    (tmp_path / "d.yaml").write_text(capsys.readouterr().out)
    objs = load([str(tmp_path / "c.yaml"), str(tmp_path / "d.yaml")])
    assert not objs.errors and len(objs.nodes) == 8 and len(objs.slices) == 4
    assert sorted(c.name for c in objs.claims) == ["slice-0000-2x2", "slice-0001-2x4", "slice-0002-4x4",
                                                   "slice-0003-2x2"]
    out = _plan(capsys, "fit", str(tmp_path / "c.yaml"), str(tmp_path / "d.yaml"), "--workers", "1")
    assert out["optimal"]["pods"] == 8 and out["optimal"]["proven"]   # 1 + 2 + 4 + 1 pods
    assert main(["generate", "cluster", "--tpu", "--nodes", "6"]) == 2
