"""Which cluster is read: the kubeconfig (--kubeconfig, else $KUBECONFIG --
several files merged as kubectl merges them --, else ~/.kube/config) and
its context (--context, else the current one), each context with its own
server and credentials."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from dralloc.cli.main import main
from dralloc.io import load
from dralloc.io.live import LiveSource
from tests.live.apiserver import FakeAPIServer
from tests.live.clusters import gpu_cluster


@pytest.fixture
def two() -> Iterator[tuple[FakeAPIServer, FakeAPIServer]]:
    """Two clusters, each with its own token: 2 nodes in a, 3 in b."""
    a = FakeAPIServer(tokens={"token-a": "alice"}).start()
    b = FakeAPIServer(tokens={"token-b": "bob"}).start()
    a.add(gpu_cluster(nodes=2, claims_per_node=1))
    b.add(gpu_cluster(nodes=3, claims_per_node=2))
    yield a, b
    a.stop()
    b.stop()


def config(entries: dict[str, tuple[FakeAPIServer, str]], current: str | None) -> dict[str, Any]:
    """A kubeconfig: context name -> (server, token)."""
    return {"apiVersion": "v1", "kind": "Config",
            "clusters": [{"name": f"cluster-{n}", "cluster": {"server": s.url}} for n, (s, _) in entries.items()],
            "users": [{"name": f"user-{n}", "user": {"token": t}} for n, (_, t) in entries.items()],
            "contexts": [{"name": n, "context": {"cluster": f"cluster-{n}", "user": f"user-{n}"}} for n in entries],
            **({"current-context": current} if current else {})}


def write(path: Path, doc: dict[str, Any]) -> str:
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return str(path)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path


def nodes(source: LiveSource) -> int:
    return len(load([source]).nodes)


def test_the_context_picks_server_and_credentials(two: tuple[FakeAPIServer, FakeAPIServer], home: Path) -> None:
    a, b = two
    path = write(home / "config", config({"a": (a, "token-a"), "b": (b, "token-b")}, current="a"))
    assert nodes(LiveSource(kubeconfig=path)) == 2                 # the current context
    assert nodes(LiveSource(kubeconfig=path, context="b")) == 3
    assert nodes(LiveSource(kubeconfig=path, context="a")) == 2
    assert LiveSource(kubeconfig=path, context="b").label == "context b"


def test_kubeconfig_comes_from_the_environment_then_home(two: tuple[FakeAPIServer, FakeAPIServer], home: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = two
    (home / "home" / ".kube").mkdir(parents=True)
    write(home / "home" / ".kube" / "config", config({"a": (a, "token-a")}, current="a"))
    assert nodes(LiveSource()) == 2                                # ~/.kube/config
    monkeypatch.setenv("KUBECONFIG", write(home / "env", config({"b": (b, "token-b")}, current="b")))
    assert nodes(LiveSource()) == 3                                # $KUBECONFIG wins over home
    flag = write(home / "flag", config({"a": (a, "token-a")}, current="a"))
    assert nodes(LiveSource(kubeconfig=flag)) == 2                 # --kubeconfig wins over both


def test_kubeconfig_files_merge_as_kubectl_merges_them(two: tuple[FakeAPIServer, FakeAPIServer], home: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """$KUBECONFIG lists files: their contexts are merged, the first file's
    current-context is used; a missing file in the list is skipped."""
    a, b = two
    first = write(home / "first", config({"a": (a, "token-a")}, current="a"))
    second = write(home / "second", config({"b": (b, "token-b")}, current="b"))
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join([str(home / "missing"), first, second]))
    assert nodes(LiveSource()) == 2
    assert nodes(LiveSource(context="b")) == 3


def test_context_on_the_command_line(two: tuple[FakeAPIServer, FakeAPIServer], home: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    a, b = two
    path = write(home / "config", config({"a": (a, "token-a"), "b": (b, "token-b")}, current="a"))
    assert main(["validate", "--kubeconfig", path, "--context", "b"]) == 0
    # b: 3 nodes, 3 slices, the class, 3 templates, 6 claims and their 6 pods
    assert "22 object(s) read" in capsys.readouterr().err
    asked = len(b.requests)
    assert main(["validate", "--kubeconfig", path]) == 0
    assert "12 object(s) read" in capsys.readouterr().err       # a: 2, 2, 1, 3, 2 and 2
    assert len(b.requests) == asked                             # nothing sent to b
