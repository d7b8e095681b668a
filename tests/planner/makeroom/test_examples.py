"""examples/makeroom: every command of its README runs and gives the answer
the README states."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from dralloc.cli.main import main

ROOT = Path(__file__).resolve().parents[3]
README = (ROOT / "examples" / "makeroom" / "README.md").read_text(encoding="utf-8")
COMMANDS = [line for block in re.findall(r"```\n(.*?)```", README, re.S)
            for line in block.splitlines() if line.startswith("dralloc ")]


def _run(line: str, tmp: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict]:
    monkeypatch.chdir(ROOT)
    argv = [a.replace("/tmp/mr", str(tmp / "mr")) for a in shlex.split(line, comments=True)[1:]]
    expanded = []
    for a in argv:   # the README's globs, as a shell expands them
        expanded.extend(sorted(str(p.relative_to(ROOT)) for p in ROOT.glob(a)) if "*" in a else [a])
    code = main([*expanded, "-o", "json"])
    return code, json.loads(capsys.readouterr().out)


def test_the_readme_has_the_commands() -> None:
    assert len(COMMANDS) == 5


def test_evictions(tmp_path, monkeypatch, capsys) -> None:
    code, d = _run(COMMANDS[0], tmp_path, monkeypatch, capsys)
    assert code == 0 and d["proven"] and d["evictions"] == ["default/a1", "default/a2", "default/a3"]


def test_a_budget_blocks(tmp_path, monkeypatch, capsys) -> None:
    code, d = _run(COMMANDS[1], tmp_path, monkeypatch, capsys)
    assert code == 1 and d["status"] == "no plan" and "default/batch" in d["blocked"][0]


def test_moves_and_pictures(tmp_path, monkeypatch, capsys) -> None:
    code, d = _run(COMMANDS[2], tmp_path, monkeypatch, capsys)
    assert code == 0 and d["moves"] == {f"default/a{i}": "node-b" for i in (1, 2, 3)} and d["evictions"] == []
    assert (tmp_path / "mr-before-after.png").stat().st_size > 1000


def test_drain_a_node(tmp_path, monkeypatch, capsys) -> None:
    code, d = _run(COMMANDS[3], tmp_path, monkeypatch, capsys)
    assert code == 0 and [p["pod"] for p in d["displaced"]] == ["default/a1", "default/a2", "default/a3"]
    assert d["fitElsewhere"]["kubernetes"]["pods"] == d["fitElsewhere"]["optimal"]["pods"] == 3


def test_drain_by_taint_rule(tmp_path, monkeypatch, capsys) -> None:
    code, d = _run(COMMANDS[4], tmp_path, monkeypatch, capsys)
    assert code == 0 and [p["pod"] for p in d["displaced"]] == ["default/b-big"]
    assert d["fitElsewhere"]["optimal"]["placement"] == {"default/b-big#0": "node-a"}


def test_options_of_one_question_refused_by_another(capsys) -> None:
    files = [str(ROOT / "examples/makeroom/cluster.yaml"), str(ROOT / "examples/makeroom/pending.yaml")]
    assert main(["plan", "fit", *files, "--for", "default/big"]) == 2
    assert "--for is for plan make-room" in capsys.readouterr().err
    assert main(["plan", "make-room", *files]) == 2
    assert "say which pending work" in capsys.readouterr().err
    assert main(["plan", "make-room", *files, "--for", "default/nope"]) == 2
    assert "no pending Pod default/nope" in capsys.readouterr().err


def test_docs_cli_quotes_the_current_checklist(capsys) -> None:
    doc = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    files = [str(ROOT / "examples/makeroom/cluster.yaml"), str(ROOT / "examples/makeroom/pending.yaml")]
    assert main(["plan", "make-room", *files, "--for", "default/big"]) == 0
    assert capsys.readouterr().out.strip() in doc
