"""examples/availability: every command of its README runs and gives the
answer the README states (the MIG placement rules worked out there: an
A100-80GB's 8 memory slices, each profile's placements)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml

from dralloc.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "examples" / "availability" / "README.md").read_text(encoding="utf-8")
COMMANDS = [line for block in re.findall(r"```\n(.*?)```", README, re.S)
            for line in block.splitlines() if line.startswith("dralloc ")]


def _run(line: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> list[Any]:
    monkeypatch.chdir(ROOT)
    argv = shlex.split(line)[1:]
    if "-o" not in argv:
        argv += ["-o", "json"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    if argv[argv.index("-o") + 1] == "yaml":
        return list(yaml.safe_load_all(out))
    got = json.loads(out)
    return got["items"] if got.get("kind") == "List" else [got]


def _counts(docs: list[Any]) -> dict[str, tuple[int, int, str]]:
    head = docs[-1]
    assert head["kind"] == "PoolHeadroom"
    return {s["name"]: (s["fits"], s["kubernetes"], s["status"]) for n in head["status"]["nodes"] for s in n["shapes"]}


def test_the_readme_has_the_commands() -> None:
    assert len(COMMANDS) == 4


def test_per_profile_counts(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    docs = _run(COMMANDS[0], monkeypatch, capsys)
    pool = docs[0]["status"]["pools"][0]
    assert (pool["totalDevices"], pool["allocatedDevices"], pool["availableDevices"]) == (50, 3, 47)
    got = {k.removeprefix("mig.nvidia.com/"): v[0] for k, v in _counts(docs).items()}
    assert {p: got[p] for p in ("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb")} == {
        "1g.10gb": 7, "1g.20gb": 4, "2g.20gb": 3, "3g.40gb": 1, "4g.40gb": 0, "7g.80gb": 0}
    assert all(status == "proven" and k8s == fits for fits, k8s, status in _counts(docs).values())


def test_the_keps_partition_summary_is_refused(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    (req,) = _run(COMMANDS[1], monkeypatch, capsys)
    assert req["spec"]["defaultPartitionTypeAttribute"] == "gpu.nvidia.com/profile"
    assert req["status"]["pools"][0]["validationError"].startswith("PartitionCostMismatch")


def test_a_shape_of_your_own(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert _counts(_run(COMMANDS[2], monkeypatch, capsys)) == {"pair": (3, 1, "proven")}


def test_plan_fit_agrees(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    (ans,) = _run(COMMANDS[3], monkeypatch, capsys)
    assert ans["optimal"]["pods"] == ans["firstFit"]["pods"] == 1 and ans["optimal"]["proven"]
