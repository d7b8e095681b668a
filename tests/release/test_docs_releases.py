"""docs/releases.md: its commands run as written, the output it quotes is
what compare-versions prints, and its gate table is the release table's."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from dralloc.cli.main import main
from dralloc.release import RELEASES, Release

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "releases.md").read_text(encoding="utf-8")
COMMANDS = [line for block in re.findall(r"```sh\n(.*?)```", DOC, re.S)
            for line in block.splitlines() if line.startswith("dralloc ")]


@pytest.mark.parametrize("line", COMMANDS)
def test_documented_command_runs(line: str, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(ROOT)
    assert main(shlex.split(line)[1:]) in (0, 1)
    assert "error" not in capsys.readouterr().err


def test_quoted_comparison_is_current(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(ROOT)
    main(["compare-versions", "examples/upgrade/cluster.yaml", "--from", "1.34", "--to", "1.37"])
    out = capsys.readouterr().out
    assert out.strip() in DOC


def _cell(version: str, gate: str) -> str:
    stage = Release(version).stage(gate)
    if stage is None:
        return "-"
    on = "on" if stage.default else "off"
    return f"{stage.stage}, {on}" + (" (locked)" if stage.locked else "")


def test_gate_table_is_the_release_table() -> None:
    rows = {m.group(1): [c.strip() for c in m.group(2).split("|")[:4]]
            for m in re.finditer(r"^\| (DRA\w+|GenericWorkload)[^|]*\|(.*)\|$", DOC, re.M)}
    assert len(rows) >= 12
    for gate, cells in rows.items():
        if gate == "DRAResourceSliceMixins":
            continue
        assert [c.replace(" (locked)", "") for c in cells] == \
            [_cell(v, gate).replace(" (locked)", "") for v in RELEASES], gate
        assert [("(locked)" in c) for c in cells] == [("(locked)" in _cell(v, gate)) for v in RELEASES], gate
