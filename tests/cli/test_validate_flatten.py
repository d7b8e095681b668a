"""``dralloc validate`` and ``dralloc flatten`` end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from dralloc.cli.main import main

REAL = Path(__file__).parent.parent / "data" / "real"
GOOD_SLICE = """apiVersion: resource.k8s.io/v1beta1
kind: ResourceSlice
metadata: {name: node-1-gpu}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    basic:
      attributes: {model: {string: a100}}
      capacity: {memory: {value: 40Gi}}
"""
MIXIN_SLICE = """apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: mixed}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  mixins:
    device:
    - name: common
      attributes: {model: {string: a100}, arch: {string: ampere}}
  devices:
  - name: gpu-0
    includes: [common]
    attributes: {model: {string: h100}}
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_validate_valid_file_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = write(tmp_path, "ok.yaml", GOOD_SLICE + "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: ns1}\n")
    assert main(["validate", str(f)]) == 0
    out, err = capsys.readouterr()
    assert f"dralloc validate: warning: {f}#1: Namespace (v1) is not a kind dralloc reads; skipped" in err
    assert "1 object(s) read, 0 error(s)" in err and not out
    assert main(["validate", "--strict", str(f)]) == 1  # --strict: an unknown kind is an error
    assert f"{f}#1: Namespace ns1: error: Namespace (v1) is not a kind dralloc reads (--strict)" in capsys.readouterr().out


def test_validate_reports_findings_and_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = write(tmp_path, "bad.yaml", GOOD_SLICE.replace("gpu-0", "GPU_0").replace("resourceSliceCount: 1",
                                                                                  "resourceSliceCount: 2"))
    assert main(["validate", str(f)]) == 1
    out = capsys.readouterr().out
    assert f"{f}#0: ResourceSlice node-1-gpu: spec.devices[0].name: error: device name 'GPU_0'" in out
    assert "[pool.complete]" in out and "incomplete" in out


def test_validate_unreadable_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = write(tmp_path, "ok.yaml", GOOD_SLICE)
    bad = write(tmp_path, "broken.yaml", "spec: [\n")
    assert main(["validate", str(good), str(bad)]) == 2
    out = capsys.readouterr().out
    assert f"{bad}#0: error: not valid YAML" in out and "Traceback" not in out


def test_validate_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = write(tmp_path, "bad.yaml", GOOD_SLICE.replace("nodeName: node-1", "allNodes: true\n  nodeName: node-1"))
    assert main(["validate", "--format", "json", str(f)]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert [x["rule"] for x in doc["findings"]] == ["slice.node-selection"]
    assert doc["findings"][0]["field"] == "spec"


def test_validate_real_fixtures(capsys: pytest.CaptureFixture[str]) -> None:
    """Kubernetes' round-trip fixtures use placeholder values, so they are
    invalid; the NVIDIA v1beta1 example converts and is valid."""
    assert main(["validate", str(REAL / "nvidia-dra-driver-gpu/demo/specs/quickstart/v1beta1/gpu-test1.yaml")]) == 0
    fixtures = REAL / "kubernetes-api-testdata/testdata/HEAD"
    assert main(["validate", str(fixtures / "resource.k8s.io.v1beta1.ResourceSlice.yaml")]) == 1
    out = capsys.readouterr().out
    assert "resource.k8s.io.v1beta1.ResourceSlice.yaml#0: ResourceSlice nameValue: spec: error: devices and " \
           "sharedCounters must not be set in the same slice" in out
    # the folder holds one object of each kind in every API version: where two
    # versions convert to the same object it is read once (the slices); where
    # they differ it is a duplicate, named with both places (the claims)
    assert main(["validate", str(fixtures)]) == 1
    out = capsys.readouterr().out
    assert "duplicate ResourceSlice" not in out
    assert "v1beta1.ResourceClaim.yaml#0: ResourceClaim namespaceValue/nameValue: error: duplicate ResourceClaim " \
           "namespaceValue/nameValue: also defined at " in out


def test_flatten_prints_flattened_v1_slice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = write(tmp_path, "m.yaml", MIXIN_SLICE)
    assert main(["flatten", str(f)]) == 0
    (doc,) = list(yaml.safe_load_all(capsys.readouterr().out))
    assert "mixins" not in doc["spec"]
    dev = doc["spec"]["devices"][0]
    assert "includes" not in dev
    assert dev["attributes"] == {"model": {"string": "h100"}, "arch": {"string": "ampere"}}


def test_flatten_converts_older_versions_to_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = write(tmp_path, "old.yaml", GOOD_SLICE)
    assert main(["flatten", "--format", "json", str(f)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["apiVersion"] == "resource.k8s.io/v1"
    assert doc["spec"]["devices"][0] == {"name": "gpu-0", "attributes": {"model": {"string": "a100"}},
                                         "capacity": {"memory": {"value": "40Gi"}}}


def test_flatten_broken_reference_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = write(tmp_path, "m.yaml", MIXIN_SLICE.replace("includes: [common]", "includes: [missing]"))
    assert main(["flatten", str(f)]) == 2
    err = capsys.readouterr().err
    assert f"{f}#0: ResourceSlice mixed: spec.devices[0].includes[0]: device mixin 'missing'" in err
