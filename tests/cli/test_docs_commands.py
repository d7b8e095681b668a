"""The commands docs/cli.md shows in its ``sh`` blocks run as written (from
the repository root), and the outputs it quotes are what they print."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from dralloc.cli.main import main
from tests.live.apiserver import FakeAPIServer, objects_of, served

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
COMMANDS = [line for block in re.findall(r"```sh\n(.*?)```", DOC, re.S)
            for line in block.splitlines() if line.startswith("dralloc ")]


def test_the_page_has_commands() -> None:
    assert len(COMMANDS) >= 8


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The cluster the page's live commands read: a 1.36 API server (the
    Workload API off, its default) on 127.0.0.1 serving the verify and
    planner examples, as context ``prod`` of a kubeconfig."""
    server = FakeAPIServer(git_version="v1.36.4-gke.1200", resources=served("1.36", workload_api=False)).start()
    server.add(objects_of("examples/verify/cluster.yaml", "examples/planner/fit/cluster.yaml"))
    yield server.kubeconfig(tmp_path_factory.mktemp("kube") / "config", contexts={"prod": "admin-token"})
    server.stop()


@pytest.mark.parametrize("line", COMMANDS)
def test_documented_command_runs(line: str, cluster: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("KUBECONFIG", str(cluster))
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
