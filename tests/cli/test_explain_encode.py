"""dralloc explain / encode, and scenario files as input to the one-question commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dralloc.cli.main import main

CORPUS = Path(__file__).resolve().parents[1] / "scenarios" / "conformance" / "upstream"


def test_explain_names_the_conflict(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", str(CORPUS / "not-enough-suitable-devices.yaml")]) == 0
    out = capsys.readouterr().out
    assert "minimal conflicting set" in out
    assert "device driver-a/pool-1/device-1 can be held by only one" in out
    assert "request claim-0/req-1 must be served" in out


def test_allocate_a_scenario_file_uses_its_node_and_features(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["allocate", str(CORPUS / "simple.yaml"), "-o", "table"]) == 0
    assert "device-1" in capsys.readouterr().out


def test_encode_prints_readable_variables(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["encode", str(CORPUS / "simple.yaml")]) == 0
    out = capsys.readouterr().out
    assert 'name: "x[claim-0|req-0|driver-a/pool-1/device-1]"' in out
    for opt in (["--stats"], ["-o", "table"]):
        assert main(["encode", str(CORPUS / "simple.yaml"), *opt]) == 0
        rows = dict(line.split()[:2] for line in capsys.readouterr().out.splitlines()[1:3])
        assert rows == {"variables": "3", "constraints": "5"}


def test_encode_json_is_the_model_as_data(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["encode", str(CORPUS / "simple.yaml"), "-o", "json"]) == 0
    model = json.loads(capsys.readouterr().out)
    names = [v["name"] for v in model["variables"]]
    assert "x[claim-0|req-0|driver-a/pool-1/device-1]" in names
    assert all("linear" in c for c in model["constraints"])


def test_explain_reports_a_fatal_error_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", str(CORPUS / "unknown-constraint.yaml")]) == 1
    assert "fails before searching" in capsys.readouterr().out


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_allocate_on_all_nodes_lists_each_node(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["allocate", str(EXAMPLES / "verify" / "cluster.yaml"), "--pod", "ml/train-d-pod",
                 "--all-nodes"]) == 1
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split()[1] for line in out.splitlines()[1:3]}
    assert rows == {"node-1": "unsatisfiable", "node-2": "unsatisfiable"}
    assert "0 of 2 node(s) fit pod ml/train-d-pod" in out
    assert main(["allocate", str(EXAMPLES / "quickstart" / "mig-a100.yaml"), "--all-nodes"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1].split()[:2] == ["gpu-node-1", "fits"]
    assert "1 of 1 node(s) fit default/training" in out


# --- a pod whose claims are allocated already (the scheduler keeps them) ----

HELD_POD = """
apiVersion: v1
kind: Node
metadata: {name: node-1, labels: {kubernetes.io/hostname: node-1}}
---
apiVersion: v1
kind: Node
metadata: {name: node-2, labels: {kubernetes.io/hostname: node-2}}
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
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: default}
spec:
  devices:
    requests:
    - {name: gpu, exactly: {deviceClassName: gpu}}
status:
  allocation:
    devices:
      results:
      - {request: gpu, driver: gpu.example.com, pool: node-1, device: gpu-0}
    nodeSelector:
      nodeSelectorTerms:
      - matchFields:
        - {key: metadata.name, operator: In, values: [node-1]}
  reservedFor:
  - {resource: pods, name: p, uid: uid-p}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default, uid: uid-p}
spec:
  nodeName: node-1
  resourceClaims: [{name: gpu, resourceClaimName: c}]
  containers: [{name: m, image: x, resources: {claims: [{name: gpu}]}}]
"""


def _held(tmp_path: Path) -> str:
    path = tmp_path / "held.yaml"
    path.write_text(HELD_POD, encoding="utf-8")
    return str(path)


def test_explain_pod_whose_claims_are_allocated_says_so(tmp_path, capsys):
    """Its only GPU is the one its claim holds: allocating the claim again
    (as explain did) would call the pod's own device free."""
    assert main(["explain", _held(tmp_path), "--pod", "default/p"]) == 0
    out = capsys.readouterr().out
    assert "every claim is allocated already (default/c: node-1/gpu-0)" in out
    assert "admit node node-1: nothing to allocate" in out and "can be allocated" not in out


def test_explain_pod_on_a_node_its_allocation_does_not_admit(tmp_path, capsys):
    assert main(["explain", _held(tmp_path), "--pod", "default/p", "--node", "node-2", "-o", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "settled"
    assert "cannot run on node node-2: claim default/c is allocated already" in out["reason"]


def test_encode_pod_whose_claims_are_allocated_has_no_model(tmp_path, capsys):
    assert main(["encode", _held(tmp_path), "--pod", "default/p"]) == 2
    assert "no model to encode" in capsys.readouterr().err
