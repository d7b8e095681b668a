"""The server's version (``/version``) is the release answered for when
--kubernetes-version is not given; the flag wins. A newer server is
answered as the newest release dralloc knows, with a warning; an older one
than dralloc answers for is an error asking for the flag."""

from __future__ import annotations

from pathlib import Path

import pytest

from dralloc.cli.main import main
from dralloc.errors import InputError
from dralloc.io import load
from dralloc.io.live import LiveSource, server_release
from tests.live.apiserver import ROOT, FakeAPIServer, objects_of, served

MIG = "examples/quickstart/mig-a100.yaml"


@pytest.mark.parametrize(("info", "expected"), [
    ({"major": "1", "minor": "37", "gitVersion": "v1.37.2"}, "1.37"),
    ({"major": "1", "minor": "36+", "gitVersion": "v1.36.4-gke.1200"}, "1.36"),
    ({"major": "1", "minor": "35+", "gitVersion": "v1.35.0-eks-4096722"}, "1.35"),
    ({"major": "1", "minor": "34+"}, "1.34"),
])
def test_server_release(info: dict[str, str], expected: str) -> None:
    assert server_release(info) == (expected, None)


def test_a_newer_server_is_answered_as_the_newest_release() -> None:
    version, note = server_release({"major": "1", "minor": "39", "gitVersion": "v1.39.1"})
    assert version == "1.37"
    assert note == ("the server runs Kubernetes 1.39 (v1.39.1); dralloc answers for 1.34-1.37, so as 1.37 "
                    "(--kubernetes-version chooses)")


@pytest.mark.parametrize("info", [{"gitVersion": "v1.33.7"}, {"major": "1", "minor": "30"}])
def test_an_older_server_needs_the_flag(info: dict[str, str]) -> None:
    with pytest.raises(InputError, match="dralloc answers for 1.34-1.37: give --kubernetes-version"):
        server_release(info)


def test_a_version_that_is_none_is_an_error() -> None:
    with pytest.raises(InputError, match="is not a Kubernetes version"):
        server_release({"gitVersion": "v2-dev"})


def serve(tmp_path: Path, version: str, files: str = MIG) -> FakeAPIServer:
    minor = ".".join(version.lstrip("v").split(".")[:2])
    server = FakeAPIServer(git_version=version, resources=served(minor if minor >= "1.34" else "1.37")).start()
    server.add(objects_of(files))
    return server


@pytest.fixture
def kubeconfig_of(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    started: list[FakeAPIServer] = []

    def make(version: str, files: str = MIG) -> FakeAPIServer:
        server = serve(tmp_path, version, files)
        started.append(server)
        monkeypatch.setenv("KUBECONFIG", str(server.kubeconfig(tmp_path / f"config-{len(started)}")))
        return server

    yield make
    for s in started:
        s.stop()


def test_the_server_release_is_the_default(kubeconfig_of, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    """A 1.35 server: no partitionable devices by default, so the MIG claim
    cannot be allocated, as with --kubernetes-version 1.35 on the file."""
    kubeconfig_of("v1.35.3")
    on_file = main(["allocate", str(ROOT / MIG), "--kubernetes-version", "1.35", "-o", "yaml"])
    file_out = capsys.readouterr()
    assert on_file == 1
    assert main(["allocate", "--context", "test", "-o", "yaml"]) == 1
    live = capsys.readouterr()
    assert (live.out, live.err) == (file_out.out, file_out.err)


def test_the_flag_wins_over_the_server(kubeconfig_of, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    server = kubeconfig_of("v1.35.3")
    assert main(["allocate", "-A", "--kubernetes-version", "1.37", "-o", "yaml"]) == 0
    assert "gpu-0-mig-3g-20gb-0" in capsys.readouterr().out
    assert not any(r.path == "/version" for r in server.requests)   # not even asked


def test_a_newer_server_warns_and_answers_as_the_newest(kubeconfig_of,  # type: ignore[no-untyped-def]
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    kubeconfig_of("v1.38.0")
    assert main(["allocate", "-A", "-o", "yaml"]) == 0
    out = capsys.readouterr()
    assert "gpu-0-mig-3g-20gb-0" in out.out
    assert "dralloc allocate: warning: context test: the server runs Kubernetes 1.38 (v1.38.0); dralloc answers " \
           "for 1.34-1.37, so as 1.37" in out.err


def test_an_older_server_is_one_line_and_exit_2(kubeconfig_of,  # type: ignore[no-untyped-def]
                                                capsys: pytest.CaptureFixture[str]) -> None:
    kubeconfig_of("v1.33.2")
    assert main(["verify", "-A"]) == 2
    err = capsys.readouterr().err
    assert err == ("dralloc verify: error: the server runs Kubernetes 1.33 (v1.33.2); dralloc answers for "
                   "1.34-1.37: give --kubernetes-version to answer as one of them\n")
    assert main(["verify", "-A", "--kubernetes-version", "1.34", "--no-pending"]) == 0


def test_compare_versions_upgrades_from_the_server_release(kubeconfig_of,  # type: ignore[no-untyped-def]
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    kubeconfig_of("v1.34.1", "examples/upgrade/cluster.yaml")
    code = main(["compare-versions", str(ROOT / "examples/upgrade/cluster.yaml"), "--from", "1.34", "--to", "1.37"])
    expected = capsys.readouterr().out
    assert code == 1 and "1.34" in expected
    assert main(["compare-versions", "--context", "test", "--to", "1.37"]) == code
    assert capsys.readouterr().out == expected


def test_compare_versions_needs_from_without_a_cluster(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare-versions", str(ROOT / "examples/upgrade/cluster.yaml"), "--to", "1.37"]) == 2
    assert "--from is required" in capsys.readouterr().err


def test_the_server_release_decides_the_served_version_warnings(kubeconfig_of) -> None:  # type: ignore[no-untyped-def]
    """A 1.36 server serves gangs in scheduling.k8s.io/v1alpha2 (discovery
    picks it): read as the server's release, no warning; answered as 1.37,
    which does not serve that version, one warning naming the release."""
    server = kubeconfig_of("v1.36.2", "examples/planner/gangs/demand.yaml")
    source = LiveSource()
    objs = load([source])
    assert len(objs.pod_groups) == 2 and source.kubernetes_version == "1.36"
    assert not objs.unserved
    assert any(r.path == "/apis/scheduling.k8s.io/v1alpha2/podgroups" for r in server.requests)
    later = load([LiveSource()], kubernetes_version="1.37")
    assert [w.split(": ", 2)[-1] for w in later.unserved] == [
        "Kubernetes 1.37 does not serve PodGroup in scheduling.k8s.io/v1alpha2 (served in 1.36); it serves PodGroup "
        "in scheduling.k8s.io/v1alpha3, scheduling.k8s.io/v1beta1; read anyway (2 objects)"]
