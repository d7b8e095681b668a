"""The commands docs/cli.md shows in its ``sh`` blocks run as written (from
the repository root), and the outputs it quotes are what they print."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from dralloc.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
COMMANDS = [line for block in re.findall(r"```sh\n(.*?)```", DOC, re.S)
            for line in block.splitlines() if line.startswith("dralloc ")]


def test_the_page_has_commands() -> None:
    assert len(COMMANDS) >= 8


@pytest.mark.parametrize("line", COMMANDS)
def test_documented_command_runs(line: str, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(ROOT)
    argv = shlex.split(line, comments=True)[1:]
    try:
        code = main(argv)
    except SystemExit as e:  # --help, --version
        code = int(e.code or 0)
    assert code in (0, 1), capsys.readouterr().err
    assert "error" not in capsys.readouterr().err


def test_quoted_all_nodes_table_is_current(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(ROOT)
    main(["allocate", "examples/verify/cluster.yaml", "--pod", "ml/train-d-pod", "--all-nodes"])
    out = capsys.readouterr().out
    assert out.strip() in DOC
