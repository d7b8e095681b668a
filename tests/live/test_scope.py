"""-n/--namespace and -A/--all-namespaces: which part of the cluster is
read. Cluster-scoped kinds (nodes, slices, classes) are always read whole;
namespaced kinds (claims, templates, pods, gangs) from one namespace with
-n, from every namespace otherwise (-A, the default: the devices a claim of
any namespace holds are not free)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dralloc.cli.main import main
from dralloc.io import load
from dralloc.io.live import LiveSource
from tests.live.apiserver import FakeAPIServer
from tests.live.clusters import NAMESPACES, gpu_cluster


@pytest.fixture
def cluster(apiserver: FakeAPIServer, kubeconfig: Path) -> FakeAPIServer:
    apiserver.add(gpu_cluster(nodes=4, claims_per_node=3, pending=3))
    return apiserver


def test_a_namespace_reads_its_namespaced_kinds_and_every_cluster_scoped_one(cluster: FakeAPIServer) -> None:
    objs = load([LiveSource(namespace="web")])
    assert {c.namespace for c in objs.claims} == {"web"} and len(objs.claims) == 4
    assert {p.namespace for p in objs.pods} == {"web"} and len(objs.pods) == 5
    assert [t.namespace for t in objs.templates] == ["web"]
    assert len(objs.nodes) == 4 and len(objs.slices) == 4 and len(objs.classes) == 1
    paths = {r.path for r in cluster.requests if r.query.get("limit")}
    assert "/apis/resource.k8s.io/v1/namespaces/web/resourceclaims" in paths
    assert "/api/v1/namespaces/web/pods" in paths
    assert "/api/v1/nodes" in paths and "/apis/resource.k8s.io/v1/resourceslices" in paths
    assert not any("/namespaces/" in p and "/web/" not in p for p in paths)
    assert any("namespace web only: claims of other namespaces are not read, so the devices they hold count "
               "as free" in w for w in objs.warnings)


def test_every_namespace_by_default(cluster: FakeAPIServer) -> None:
    objs = load([LiveSource()])
    assert {c.namespace for c in objs.claims} == set(NAMESPACES) and len(objs.claims) == 12
    assert not any("/namespaces/" in r.path for r in cluster.requests)
    assert not any("namespace" in w for w in objs.warnings)


def test_the_namespace_changes_what_is_free(cluster: FakeAPIServer, capsys: pytest.CaptureFixture[str]) -> None:
    """Every node has 3 of its 4 GPUs allocated, to claims of the three
    namespaces: with -A one GPU is free per node; with -n web the devices
    ml's and batch's claims hold look free, and the warning says so."""
    assert main(["allocate", "--pod", "web/waiting-001", "--all-nodes", "-A", "-o", "yaml"]) == 0
    every = capsys.readouterr()
    assert main(["allocate", "--pod", "web/waiting-001", "--all-nodes", "-n", "web", "-o", "yaml"]) == 0
    one = capsys.readouterr()
    assert every.out.count("device: gpu-3") == 4 and "device: gpu-0" not in every.out
    assert one.out.count("device: gpu-0") >= 1   # held by an ml claim in fact
    assert "namespace web only" in one.err and "namespace web only" not in every.err


def test_minus_a_is_the_default(cluster: FakeAPIServer, capsys: pytest.CaptureFixture[str]) -> None:
    main(["verify", "--context", "test", "-o", "yaml", "--no-pending"])
    default = capsys.readouterr().out
    main(["verify", "--context", "test", "-A", "-o", "yaml", "--no-pending"])
    assert capsys.readouterr().out == default and "claims: 12" in default


def test_namespace_and_all_namespaces_exclude_each_other(cluster: FakeAPIServer,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["verify", "-n", "web", "-A"])
    assert e.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
    assert cluster.requests == []


def test_a_namespace_alone_reads_the_current_context(cluster: FakeAPIServer,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "-n", "batch"]) == 0
    err = capsys.readouterr().err
    # 4 nodes, 4 slices, the class; batch's template, 4 claims, their 4 pods and 1 waiting
    assert "19 object(s) read, 0 error(s)" in err
    assert any(r.path == "/api/v1/namespaces/batch/pods" for r in cluster.requests)
