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


def test_yaml_holds_the_same_objects_as_json(cluster: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["availability", str(cluster), "-o", "json"]) == 0
    as_json = json.loads(capsys.readouterr().out)["items"]
    assert main(["availability", str(cluster), "-o", "yaml"]) == 0
    as_yaml = list(yaml.safe_load_all(capsys.readouterr().out))
    assert as_yaml == as_json
    pool = as_yaml[0]["status"]["pools"][0]
    assert (pool["driver"], pool["poolName"], pool["nodeName"], pool["totalDevices"], pool["allocatedDevices"],
            pool["unavailableDevices"]) == ("gpu.example.com", "n1", "n1", 2, 0, 0)


def test_no_headroom_prints_the_request_objects_only(cluster: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["availability", str(cluster), "--no-headroom", "-o", "yaml"]) == 0
    docs = list(yaml.safe_load_all(capsys.readouterr().out))
    assert [d["kind"] for d in docs] == ["ResourcePoolStatusRequest"]
    assert main(["availability", str(cluster), "--no-headroom"]) == 0
    assert "MORE THAT FIT" not in capsys.readouterr().out


def _rows(out: str, section: str) -> list[list[str]]:
    """The rows of a table section: its header line, then lines up to a blank one."""
    lines = out.splitlines()
    start = lines.index(next(x for x in lines if x.startswith(section))) + 1
    rows = []
    for line in lines[start:]:
        if not line.strip():
            break
        rows.append(line.split())
    return rows


def test_the_table_has_a_row_per_pool_and_per_node_and_shape(cluster: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    held = tmp_path / "held.yaml"
    held.write_text(yaml.safe_dump({
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "h", "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu"}}]}},
        "status": {"allocation": {"devices": {"results": [
            {"request": "r", "driver": "gpu.example.com", "pool": "n1", "device": "gpu-0"}]}}}}))
    assert main(["availability", str(cluster), str(held)]) == 0
    out = capsys.readouterr().out
    pools = _rows(out, "POOLS")
    assert pools[0][:9] == ["DRIVER", "POOL", "NODE", "GENERATION", "SLICES", "DEVICES", "ALLOCATED", "AVAILABLE",
                            "UNAVAILABLE"]
    assert pools[1] == ["gpu.example.com", "n1", "n1", "0", "1", "2", "1", "1", "0"]
    more = _rows(out, "MORE THAT FIT")
    assert more[0] == ["NODE", "POOLS", "SHAPE", "MORE", "KUBERNETES", "HOW"]
    assert more[1:] == [["n1", "gpu.example.com/n1", "gpu", "1", "1", "proven"]]
    assert main(["availability", str(cluster), str(held), "-o", "wide"]) == 0
    wide = capsys.readouterr().out
    assert _rows(wide, "MORE THAT FIT")[0] == ["NODE", "POOLS", "SHAPE", "MORE", "BOUND", "KUBERNETES", "HOW"]
    assert _rows(wide, "SHAPES")[1] == ["gpu", "one", "device", "of", "class", "gpu"]


def test_a_time_limit_that_stops_the_count_says_not_decided(cluster: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """CP-SAT stopped before any answer: the table and the objects say "not
    decided", never a count presented as the answer."""
    assert main(["availability", str(cluster), "--time-limit", "1e-9"]) == 0
    (row,) = _rows(capsys.readouterr().out, "MORE THAT FIT")[1:]
    assert row[3] == "?" and " ".join(row[5:]).startswith("not decided: at least 0 (CP-SAT stopped at its time limit")
    assert main(["availability", str(cluster), "--time-limit", "1e-9", "-o", "json"]) == 0
    (shape,) = json.loads(capsys.readouterr().out)["items"][1]["status"]["nodes"][0]["shapes"]
    assert shape["status"] == "not decided" and "time limit" in shape["note"]


def test_a_replay_stopped_by_its_time_limit_leaves_kubernetes_count_not_decided(
        cluster: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Kubernetes' count stops where the replay of a copy reaches its time
    limit: what it placed so far is a lower bound, said so (here the replay
    of the second copy is made to stop)."""
    import dralloc.solver.api as api
    from dralloc.solver.outcome import Outcome, Status

    real = api.allocate
    calls: list[int] = []

    def second_stops(*args: object, **kw: object) -> Outcome:
        calls.append(1)
        if len(calls) % 2 == 0:
            return Outcome(Status.ERROR, "replay", "n1", [], error="filter operation aborted: context deadline "
                           "exceeded", notes=["replay stopped at its time limit of 1 s after 9 search steps"])
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(api, "allocate", second_stops)
    assert main(["availability", str(cluster), "-o", "json"]) == 0
    (shape,) = json.loads(capsys.readouterr().out)["items"][1]["status"]["nodes"][0]["shapes"]
    assert (shape["fits"], shape["status"], shape["kubernetes"], shape["kubernetesStatus"]) == (
        2, "proven", 1, "not decided")
    assert shape["kubernetesNote"].startswith("not decided: at least 1, the replay of copy 2 stopped")
    assert main(["availability", str(cluster)]) == 0
    (row,) = _rows(capsys.readouterr().out, "MORE THAT FIT")[1:]
    assert row[3:7] == ["2", "at", "least", "1"]


def test_progress_counts_node_and_shape_pairs(cluster: Path, capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from dralloc.io import progress as prog

    monkeypatch.setattr(prog, "SHOW_AFTER", 0.0)
    monkeypatch.setattr(prog, "LOG_EVERY", 0.0)
    assert main(["availability", str(cluster), "--progress"]) == 0
    err = capsys.readouterr().err
    assert "availability: (node, shape) 1/1" in err.splitlines()


@pytest.mark.parametrize(("args", "text"), [
    (["--shape", "{empty}"], "the --shape files hold no ResourceClaim or ResourceClaimTemplate"),
    (["--shape", "{missing}"], "missing.yaml: cannot read"),
    (["--time-limit", "0"], "0 is not a positive number of seconds"),
    (["--features", "NoSuchGate"], "NoSuchGate"),
])
def test_bad_shape_files_and_options_are_one_line(cluster: Path, tmp_path: Path, args: list[str], text: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.yaml"
    empty.write_text(yaml.safe_dump(NODE))
    argv = [a.format(empty=empty, missing=tmp_path / "missing.yaml") for a in args]
    try:
        code = main(["availability", str(cluster), *argv])
    except SystemExit as e:  # argparse's own refusal of an option's value
        code = e.code  # type: ignore[assignment]
    assert code == 2
    err = capsys.readouterr().err
    assert text in err and err.strip().splitlines()[-1].count(text) == 1
