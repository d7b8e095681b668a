"""Fixtures for reading a live cluster: a fake API server on 127.0.0.1
(:mod:`tests.live.apiserver`) started per test, with a kubeconfig naming it,
and helpers that fill it from object files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.live.apiserver import FakeAPIServer

ROOT = Path(__file__).resolve().parents[2]


def objects_of(*paths: str | Path) -> list[dict[str, Any]]:
    """The objects of YAML files (Lists flattened), as written."""
    out: list[dict[str, Any]] = []
    for p in paths:
        for doc in yaml.safe_load_all(Path(ROOT, p).read_text(encoding="utf-8")):
            if isinstance(doc, dict) and doc.get("kind") == "List":
                out.extend(doc.get("items") or [])
            elif isinstance(doc, dict):
                out.append(doc)
    return out


@pytest.fixture
def apiserver() -> Iterator[FakeAPIServer]:
    server = FakeAPIServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def kubeconfig(apiserver: FakeAPIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A kubeconfig naming the fake server (context ``test``), also in
    $KUBECONFIG, and no ~/.kube/config to fall back on."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    path = apiserver.kubeconfig(tmp_path / "kubeconfig")
    monkeypatch.setenv("KUBECONFIG", str(path))
    return path
