"""``dralloc availability`` as a command: -o json is a List of the
ResourcePoolStatusRequest objects and the PoolHeadroom object; bad input is
one line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from dralloc.cli.main import main

SLICE = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
         "spec": {"driver": "gpu.example.com", "nodeName": "n1", "pool": {"name": "n1", "resourceSliceCount": 1},
                  "devices": [{"name": "gpu-0"}, {"name": "gpu-1"}]}}
CLASS = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
         "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.example.com'"}}]}}
NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}


@pytest.fixture
def cluster(tmp_path: Path) -> Path:
    out = tmp_path / "c.yaml"
    out.write_text(yaml.safe_dump_all([NODE, CLASS, SLICE]))
    return out


def test_json_is_a_list_of_the_request_objects_and_the_headroom(cluster: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["availability", str(cluster), "-o", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["kind"] == "List"
    req, head = out["items"]
    assert (req["apiVersion"], req["kind"], req["spec"]) == (
        "resource.k8s.io/v1alpha3", "ResourcePoolStatusRequest", {"driver": "gpu.example.com", "limit": 100})
    assert req["status"]["pools"][0]["availableDevices"] == 2
    (shape,) = head["status"]["nodes"][0]["shapes"]
    assert (shape["name"], shape["fits"], shape["kubernetes"], shape["status"]) == ("gpu", 2, 2, "proven")


@pytest.mark.parametrize(("args", "text"), [
    (["--node", "nope"], "node nope not found"),
    (["--pool", "x"], "--pool needs --driver"),
    (["--limit", "5000"], "at most 1000 pools"),
])
def test_bad_input_is_one_line(cluster: Path, args: list[str], text: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["availability", str(cluster), *args]) == 2
    err = capsys.readouterr().err
    assert text in err and len(err.strip().splitlines()) == 1
