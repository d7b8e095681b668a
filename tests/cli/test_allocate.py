"""``dralloc allocate``: what a user types and what they get back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from dralloc.cli.main import main

NODE_AND_DEVICES = """
apiVersion: v1
kind: Node
metadata: {name: node-1, labels: {kubernetes.io/hostname: node-1}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel: {expression: device.driver == "gpu.example.com"}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpus}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes: {model: {string: a100}}
  - name: gpu-1
    attributes: {model: {string: h100}}
"""

CLAIMS = """
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: want-h100, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu
        selectors:
        - cel: {expression: 'device.attributes["gpu.example.com"].model == "h100"'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: any-gpu, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu}
"""

POD = """
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: team-a}
spec:
  metadata:
    labels: {app: trainer}
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu, count: 2}
---
apiVersion: v1
kind: Pod
metadata: {name: trainer, namespace: team-a}
spec:
  nodeName: node-1
  containers: [{name: main, image: busybox}]
  resourceClaims:
  - name: gpus
    resourceClaimTemplateName: one-gpu
"""


@pytest.fixture()
def files(tmp_path: Path) -> Path:
    (tmp_path / "node.yaml").write_text(NODE_AND_DEVICES)
    (tmp_path / "claims.yaml").write_text(CLAIMS)
    return tmp_path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(["allocate", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def _devices(doc: dict) -> list[str]:
    return [r["device"] for r in doc["status"]["allocation"]["devices"]["results"]]


def test_one_claim_printed_with_its_allocation(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _run(capsys, str(files / "node.yaml"), str(files / "claims.yaml"),
                      "--claim", "default/want-h100", "--mode", "replay")
    assert rc == 0
    docs = list(yaml.safe_load_all(out))
    assert len(docs) == 1
    assert docs[0]["metadata"]["name"] == "want-h100"
    assert docs[0]["spec"]["devices"]["requests"][0]["name"] == "gpu"   # the claim itself is kept
    assert _devices(docs[0]) == ["gpu-1"]
    sel = docs[0]["status"]["allocation"]["nodeSelector"]["nodeSelectorTerms"][0]["matchFields"][0]
    assert sel == {"key": "metadata.name", "operator": "In", "values": ["node-1"]}


def test_default_is_every_unallocated_claim_together(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _run(capsys, str(files), "-o", "json", "--mode", "replay")
    assert rc == 0
    body = json.loads(out)
    assert body["kind"] == "List"
    # Allocated together, in file order: the h100 goes to the first claim, so
    # the second one gets the a100.
    assert [(d["metadata"]["name"], _devices(d)) for d in body["items"]] == [
        ("want-h100", ["gpu-1"]), ("any-gpu", ["gpu-0"])]


def test_first_fit_gives_the_replay_answer(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answers = []
    for mode in ("replay", "first-fit"):
        rc, out, _ = _run(capsys, str(files), "-o", "json", "--mode", mode)
        assert rc == 0
        answers.append(json.loads(out))
    assert answers[0] == answers[1]


def test_table_output(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _run(capsys, str(files), "-o", "table", "--mode", "replay")
    assert rc == 0
    lines = out.splitlines()
    assert lines[0].split() == ["CLAIM", "REQUEST", "DRIVER", "POOL", "DEVICE", "SHARE"]
    assert lines[1].split() == ["default/want-h100", "gpu", "gpu.example.com", "node-1", "gpu-1", "-"]
    assert lines[2].split() == ["default/any-gpu", "gpu", "gpu.example.com", "node-1", "gpu-0", "-"]


def test_cannot_allocate_exits_1_with_reasons(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (files / "more.yaml").write_text(CLAIMS.replace("want-h100", "second-h100").replace("any-gpu", "third"))
    rc, out, err = _run(capsys, str(files), "--mode", "replay")
    assert rc == 1
    assert out == ""
    assert "cannot allocate" in err and "node-1" in err
    assert "why:" in err


def test_explain_reports_the_search(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = _run(capsys, str(files), "--mode", "replay", "--explain")
    assert rc == 0
    assert "replay on node node-1: allocated" in err
    assert "search steps:" in err


@pytest.mark.parametrize(("extra", "message"), [
    (["--claim", "default/nope"], "claim default/nope not found"),
    (["--features", "DRANoSuchGate"], "unknown feature gate 'DRANoSuchGate'"),
    (["--pod", "team-a/nobody"], "pod team-a/nobody not found"),
    (["--mode", "replay", "--claim", "default/want-h100", "--node", "node-1", "--time-limit", "x"], None),
])
def test_bad_input_exits_2(files: Path, capsys: pytest.CaptureFixture[str], extra: list[str],
                           message: str | None) -> None:
    try:
        rc, _, err = _run(capsys, str(files), *extra)
    except SystemExit as e:  # argparse rejects the value itself
        assert e.code == 2
        return
    assert rc == 2
    assert message is not None and message in err


def test_node_required_when_files_hold_several(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (files / "node2.yaml").write_text("apiVersion: v1\nkind: Node\nmetadata: {name: node-2}\n")
    rc, _, err = _run(capsys, str(files), "--mode", "replay")
    assert rc == 2
    assert "--node is required" in err
    rc, out, _ = _run(capsys, str(files), "--mode", "replay", "--node", "node-2")
    assert rc == 1   # node-2 has no devices


def test_pod_claims_from_template(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (files / "pod.yaml").write_text(POD)
    rc, out, _ = _run(capsys, str(files / "node.yaml"), str(files / "pod.yaml"),
                      "--pod", "team-a/trainer", "--mode", "replay")
    assert rc == 0
    (doc,) = list(yaml.safe_load_all(out))
    assert doc["metadata"]["name"] == "trainer-gpus"
    assert doc["metadata"]["namespace"] == "team-a"
    assert doc["metadata"]["labels"] == {"app": "trainer"}
    assert _devices(doc) == ["gpu-0", "gpu-1"]


def test_allocation_error_is_bad_input(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A CEL runtime error (attribute missing) is a fatal error in Kubernetes.
    bad = CLAIMS.split("---")[0].replace('"gpu.example.com"].model', '"gpu.example.com"].missing')
    (files / "claims.yaml").write_text(bad)
    rc, _, err = _run(capsys, str(files), "--mode", "replay")
    assert rc == 2
    assert "CEL runtime error" in err and "default/want-h100" in err
