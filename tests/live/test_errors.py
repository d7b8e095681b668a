"""Each way reading a cluster can fail is one clear line on stderr and exit
code 2, never a traceback: a server that cannot be reached or does not
answer in time, refused credentials (401), a forbidden list (403), an
unknown context, a missing, broken or incomplete kubeconfig, no client
installed, an answer that is not the API's; and objects of the cluster
that the API server would refuse are the front door's errors, naming the
object as for a file."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from dralloc.cli.main import main
from tests.live.apiserver import ROOT, FakeAPIServer, Resource, status
from tests.live.clusters import gpu_cluster


def one_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one error line of a command that must fail with exit code 2."""
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    lines = [line for line in err.splitlines() if "warning:" not in line]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith(f"dralloc {argv[0]}: error: "), err
    return lines[0].removeprefix(f"dralloc {argv[0]}: error: ")


def config_for(path: Path, server: str, token: str = "admin-token", context: str = "test") -> Path:
    path.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "clusters": [{"name": "c", "cluster": {"server": server}}],
        "users": [{"name": "u", "user": {"token": token}}],
        "contexts": [{"name": context, "context": {"cluster": "c", "user": "u"}}], "current-context": context}))
    return path


@pytest.fixture
def no_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unreachable_server(no_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    port = closed_port()
    config = config_for(no_home / "config", f"http://127.0.0.1:{port}")
    line = one_line(["verify", "--kubeconfig", str(config)], capsys)
    assert line.startswith(f"cannot reach the API server http://127.0.0.1:{port} (context test): ")
    assert line.endswith("): Failed to establish a new connection: [Errno 111] Connection refused"), line


@pytest.fixture
def silent() -> Iterator[int]:
    """A server that accepts connections and never answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        sock.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(sock.accept()[0])
            except OSError:
                continue

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    yield int(sock.getsockname()[1])
    stop.set()
    t.join()
    for c in held:
        c.close()
    sock.close()


def test_a_server_that_does_not_answer_in_time(no_home: Path, silent: int,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    config = config_for(no_home / "config", f"http://127.0.0.1:{silent}")
    line = one_line(["validate", "--kubeconfig", str(config), "--request-timeout", "0.2"], capsys)
    assert line.startswith(f"cannot reach the API server http://127.0.0.1:{silent} (context test): ")
    assert "timed out" in line and "object at 0x" not in line, line


def test_refused_credentials(apiserver: FakeAPIServer, no_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = config_for(no_home / "config", apiserver.url, token="stolen")
    assert one_line(["verify", "--kubeconfig", str(config)], capsys) == (
        f"the API server {apiserver.url} refused the credentials of context test (401 Unauthorized)")


def test_a_forbidden_list_says_how_to_read_less(apiserver: FakeAPIServer, kubeconfig: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A user who may read pods in one namespace only: every namespace is
    forbidden (403), with the API server's message and the way out; -n
    reads what is allowed."""
    apiserver.add(gpu_cluster(nodes=2, claims_per_node=3))

    def policy(user: str, verb: str, r: Resource, namespace: str | None) -> bool:
        return not r.namespaced or namespace == "ml"

    apiserver.allow = policy
    assert one_line(["verify", "-A"], capsys) == (
        'resourceclaims.resource.k8s.io is forbidden: User "admin" cannot list resource "resourceclaims" in API '
        'group "resource.k8s.io" at the cluster scope (403 Forbidden, context test); give -n NAMESPACE to read '
        'one namespace')
    assert main(["verify", "-n", "ml", "--no-pending"]) == 0
    assert "verified 2 allocated claim(s) of 2" in capsys.readouterr().out


def test_a_forbidden_cluster_scoped_kind(apiserver: FakeAPIServer, kubeconfig: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    apiserver.allow = lambda user, verb, r, ns: r.plural != "nodes"
    assert one_line(["validate", "-n", "ml"], capsys) == (
        'nodes is forbidden: User "admin" cannot list resource "nodes" in API group "" at the cluster scope '
        '(403 Forbidden, context test)')


def test_an_unknown_context(apiserver: FakeAPIServer, kubeconfig: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert one_line(["verify", "--context", "prod"], capsys) == (
        f"context prod not found in kubeconfig {kubeconfig} (contexts: test)")
    assert apiserver.requests == []


def test_no_current_context(apiserver: FakeAPIServer, no_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = apiserver.kubeconfig(no_home / "config", contexts={"a": "admin-token", "b": "admin-token"})
    doc = yaml.safe_load(path.read_text())
    del doc["current-context"]
    path.write_text(yaml.safe_dump(doc))
    assert one_line(["plan", "fit", "--kubeconfig", str(path)], capsys) == (
        f"kubeconfig {path} sets no current-context: give --context (contexts: a, b)")


@pytest.mark.parametrize(("text", "expected"), [
    ("clusters: [\n", "kubeconfig {path}: not YAML: expected the node content, but found '<stream end>' (line 2, "
                      "column 1)"),
    ("", "kubeconfig {path}: the file is empty"),
    ("just a string\n", "kubeconfig {path}: not a kubeconfig (a mapping of clusters, users and contexts)"),
    ("apiVersion: v1\nkind: Config\ncontexts: [{name: test, context: {cluster: gone, user: u}}]\n"
     "current-context: test\nusers: [{name: u, user: {token: t}}]\n",
     "kubeconfig {path}: context test: Expected object with name gone in {path}/clusters list"),
])
def test_a_broken_kubeconfig(text: str, expected: str, no_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = no_home / "config"
    path.write_text(text)
    line = one_line(["verify", "--kubeconfig", str(path)], capsys)
    assert line == expected.format(path=path)


def test_a_missing_kubeconfig(no_home: Path, capsys: pytest.CaptureFixture[str],
                              monkeypatch: pytest.MonkeyPatch) -> None:
    assert one_line(["verify", "--kubeconfig", str(no_home / "nope")], capsys) == (
        f"--kubeconfig {no_home / 'nope'}: no such file")
    home_config = no_home / "home" / ".kube" / "config"
    assert one_line(["verify", "-A"], capsys) == (
        f"no kubeconfig found ({home_config}: no such file); give --kubeconfig FILE or set KUBECONFIG to read "
        "a cluster")
    monkeypatch.setenv("KUBECONFIG", str(no_home / "gone"))
    assert one_line(["verify", "-A"], capsys).startswith("no kubeconfig found ($KUBECONFIG: no such file)")


def test_without_the_client(kubeconfig: Path, capsys: pytest.CaptureFixture[str],
                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "kubernetes", None)   # import kubernetes raises ImportError
    assert one_line(["verify", "-A"], capsys) == (
        "reading a cluster needs the kubernetes client: pip install 'dralloc[live]' (or kubernetes>=37)")


def test_nothing_to_read(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["verify"], ["allocate"], ["validate"], ["flatten"], ["plan", "fit"],
                 ["compare-versions", "--from", "1.36", "--to", "1.37"]):
        line = one_line(argv, capsys)
        assert line == ("nothing to read: give files or folders (- for stdin), or a cluster (--context, "
                        "--kubeconfig, -n or -A)"), argv


def test_answers_that_are_not_the_api(apiserver: FakeAPIServer, kubeconfig: Path,
                                      capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A server error and a proxy's HTML page: one line each."""
    original = apiserver.route

    def failing(user, path, query):  # type: ignore[no-untyped-def]
        if path.endswith("/deviceclasses"):
            return 500, status(500, "InternalError", "etcdserver: request timed out")
        return original(user, path, query)

    monkeypatch.setattr(apiserver, "route", failing)
    assert one_line(["verify", "-A"], capsys) == (
        f"the API server {apiserver.url} (context test) answered 500 InternalError to GET "
        "/apis/resource.k8s.io/v1/deviceclasses: etcdserver: request timed out")

    def html(user, path, query):  # type: ignore[no-untyped-def]
        return (200, b"<html>") if path == "/apis" else original(user, path, query)

    monkeypatch.setattr(apiserver, "route", html)
    assert one_line(["verify", "-A"], capsys) == (
        f"the API server {apiserver.url} (context test) answered GET /apis with something that is not JSON "
        "(6 bytes)")

    def array(user, path, query):  # type: ignore[no-untyped-def]
        return (200, []) if path == "/api" else original(user, path, query)

    monkeypatch.setattr(apiserver, "route", array)
    assert one_line(["verify", "-A"], capsys) == (
        f"the API server {apiserver.url} (context test) answered GET /api with something that is not an APIVersions")


def test_a_cluster_object_the_api_server_would_refuse(apiserver: FakeAPIServer, kubeconfig: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """The front door, as for a file: the object named by its context,
    resource and key, then its kind and name and the field."""
    apiserver.add(gpu_cluster(nodes=1, claims_per_node=0))
    apiserver.put({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                   "metadata": {"name": "bad", "namespace": "ml"},
                   "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu",
                                                                                  "count": 0}}]}}})
    line = one_line(["verify", "-A"], capsys)
    assert line.startswith("context test: resourceclaims.resource.k8s.io ml/bad: ResourceClaim ml/bad: "
                           "spec.devices.requests[0].exactly.count: "), line
    assert main(["validate", "-A"]) == 1
    assert "context test: resourceclaims.resource.k8s.io ml/bad" in capsys.readouterr().out


def test_the_command_line_prints_no_traceback(no_home: Path) -> None:
    config = config_for(no_home / "config", f"http://127.0.0.1:{closed_port()}")
    done = subprocess.run([sys.executable, "-m", "dralloc.cli.main", "verify", "--kubeconfig", str(config)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "cannot reach the API server" in done.stderr


def test_the_documented_cluster_role_is_enough(apiserver: FakeAPIServer, kubeconfig: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """docs/inputs.md's ClusterRole, as RBAC would apply it (a list is allowed
    when a rule names its group, resource and the verb): every command
    reads the cluster with it, and leaving a resource out is that 403."""
    import re

    import yaml

    from tests.live.apiserver import ROOT, objects_of

    doc = (ROOT / "docs/inputs.md").read_text(encoding="utf-8")
    role = yaml.safe_load(re.search(r"```yaml\n(apiVersion: rbac.*?)```", doc, re.S).group(1))  # type: ignore[union-attr]
    granted = {(g, r) for rule in role["rules"] if "list" in rule["verbs"]
               for g in rule["apiGroups"] for r in rule["resources"]}
    apiserver.add(objects_of("examples/makeroom/cluster.yaml", "examples/makeroom/budget.yaml"))
    apiserver.allow = lambda user, verb, r, ns: (r.group, r.plural) in granted
    assert main(["validate", "--context", "test"]) == 0, capsys.readouterr().err
    assert "16 object(s) read" in capsys.readouterr().err
    listed = {(r.path.split("/")[2] if r.path.startswith("/apis/") else "", r.path.rsplit("/", 1)[1])
              for r in apiserver.requests if r.query.get("limit")}
    assert listed <= granted and len(listed) == 12
    granted.discard(("policy", "poddisruptionbudgets"))
    assert one_line(["validate", "--context", "test"], capsys).startswith(
        'poddisruptionbudgets.policy is forbidden: User "admin" cannot list resource "poddisruptionbudgets"')
