"""``dralloc verify``: exit codes, --fail-on, output formats, bad input, and
the worked example under examples/verify (its report is kept in the repo)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from dralloc.cli.main import main

EXAMPLE = Path(__file__).parents[2] / "examples" / "verify"


def test_example_report_matches_the_stored_one(capsys) -> None:  # type: ignore[no-untyped-def]
    rc = main(["verify", str(EXAMPLE / "cluster.yaml"), "-o", "yaml"])
    got = yaml.safe_load(capsys.readouterr().out)
    assert rc == 1
    assert got == yaml.safe_load((EXAMPLE / "report.yaml").read_text())
    by_rule = {f["rule"]: f for f in got["findings"]}
    assert by_rule["distinct-attribute"]["claim"] == "ml/train-b"
    assert "Kubernetes defect" in by_rule["kubernetes-answer"]["detail"]
    verdicts = {p["pod"]: p["verdict"] for p in got["pending"]}
    assert verdicts == {"ml/train-d-pod": "fits-after-moves", "ml/train-e-pod": "does-not-fit"}


def test_fail_on_and_json(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    clean = tmp_path / "clean.yaml"
    docs = [d for d in yaml.safe_load((EXAMPLE / "cluster.yaml").read_text())["items"]
            if d["metadata"]["name"] not in ("train-b", "train-b-pod", "train-d", "train-d-pod",
                                             "train-e-pod", "four-gpus")]
    clean.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": docs}))
    assert main(["verify", str(clean), "-o", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["errors"] == 0
    assert main(["verify", str(EXAMPLE / "cluster.yaml"), "--fail-on", "info", "--no-pending"]) == 1
    capsys.readouterr()


def test_warnings_pass_unless_asked(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    docs = [d for d in yaml.safe_load((EXAMPLE / "cluster.yaml").read_text())["items"]
            if d["metadata"]["name"] not in ("train-b", "train-b-pod")]
    f = tmp_path / "s.yaml"
    f.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": docs}))
    assert main(["verify", str(f)]) == 0
    assert main(["verify", str(f), "--fail-on", "warning"]) == 1
    capsys.readouterr()


def test_bad_input_exits_2(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: x}\nspec: {devices: 3}\n")
    assert main(["verify", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "ResourceClaim x" in err and "spec.devices" in err
    assert main(["verify", str(bad), "--features", "NoSuchGate"]) == 2
    assert "NoSuchGate" in capsys.readouterr().err
