"""Fixtures for reading a live cluster: a fake API server on 127.0.0.1
(:mod:`tests.live.apiserver`) started per test, and a kubeconfig naming it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.live.apiserver import FakeAPIServer


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
