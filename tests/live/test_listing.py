"""Listing a cluster through the kubernetes client, page by page, as
client-go's pager does: ``limit``/``continue``, every page of one snapshot,
an expired continue token (410, reason Expired) restarting the list whole
at the newest snapshot, and what comes out is exactly the server's objects."""

from __future__ import annotations

from pathlib import Path

import pytest

from dralloc.errors import InputError
from dralloc.io import load
from dralloc.io.live import LiveSource
from dralloc.io.loader import object_key
from tests.live.apiserver import FakeAPIServer, Resource
from tests.live.clusters import gpu_cluster

# 1,000 objects: 60 nodes and their slices, a class, 3 templates, 180 allocated
# claims and their pods, 2 pending pods and 514 pods without claims
THOUSAND = dict(nodes=60, claims_per_node=3, pending=2, plain=514)


def keys(objs: list[dict]) -> set[tuple[str, str, str]]:
    return {(o["kind"], o["metadata"].get("namespace", "") if o["kind"] not in ("Node", "ResourceSlice", "DeviceClass")
             else "", o["metadata"]["name"]) for o in objs}


def read_keys(source: LiveSource) -> set[tuple[str, str, str]]:
    return {object_key(o) for o in load([source]).all()}


def lists(server: FakeAPIServer, plural: str) -> list[tuple[str, str, int]]:
    """(limit, continue given?, status) of every list request of ``plural``."""
    return [(r.query.get("limit", ""), "continue" if "continue" in r.query else "", r.code)
            for r in server.requests if r.path.endswith("/" + plural)]


def test_a_1000_object_cluster_in_pages_of_100_with_one_expired_token(apiserver: FakeAPIServer,
                                                                     kubeconfig: Path) -> None:
    objects = gpu_cluster(**THOUSAND)
    assert len(objects) == 1000
    apiserver.add(objects)
    changed: list[str] = []

    def after(r: Resource, page: int) -> None:
        # after the 3rd page of pods, one pod goes and another comes, and the
        # store is compacted: the token the 3rd page carried has expired
        if r.plural == "pods" and page == 3 and not changed:
            apiserver.delete("v1", "Pod", "web-0000", "ml")
            apiserver.put({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-late", "namespace": "web"},
                           "spec": {"nodeName": "node-000", "containers": [{"name": "c", "image": "nginx"}]}})
            apiserver.compact()
            changed.append("pods")

    apiserver.on_page = after
    source = LiveSource(chunk_size=100)
    got = read_keys(source)

    now = apiserver.objects()
    assert len(now) == 1000 and got == keys(now)   # the newest snapshot, nothing of the older one
    assert ("Pod", "ml", "web-0000") not in got and ("Pod", "web", "web-late") in got
    pods = lists(apiserver, "pods")
    assert pods[:3] == [("100", "", 200), ("100", "continue", 200), ("100", "continue", 200)]
    assert pods[3] == ("100", "continue", 410)          # the expired token
    assert pods[4:] == [("", "", 200)]                  # then the whole list, as client-go's pager does
    assert source.listings["Pod"].restarts == 1
    slices = lists(apiserver, "resourceslices")         # 60 slices: one page
    assert slices == [("100", "", 200)]
    claims = lists(apiserver, "resourceclaims")         # 180 claims: two pages, the second continued
    assert claims == [("100", "", 200), ("100", "continue", 200)]
    assert sum(r.code == 410 for r in apiserver.requests) == 1


def test_pages_read_one_snapshot(apiserver: FakeAPIServer, kubeconfig: Path) -> None:
    """Changes made while the list is read (no compaction) are not seen by
    its later pages: the list is the state of its first page."""
    apiserver.add(gpu_cluster(nodes=25, claims_per_node=0))
    seen: list[int] = []

    def after(r: Resource, page: int) -> None:
        if r.plural == "nodes" and page == 1:
            apiserver.delete("v1", "Node", "node-024")
            apiserver.put({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-100"}})
            seen.append(page)

    apiserver.on_page = after
    objs = load([LiveSource(chunk_size=10)])
    names = [n.name for n in objs.nodes]
    assert seen and names == [f"node-{i:03d}" for i in range(25)]
    assert [r.code for r in apiserver.requests if r.path == "/api/v1/nodes"] == [200, 200, 200]


def test_an_expired_first_page_is_an_error(apiserver: FakeAPIServer, kubeconfig: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A 410 Expired on the first page (no continue token) is no paging
    matter: client-go's pager returns it, and so does dralloc, as one line."""
    from tests.live.apiserver import status

    apiserver.add(gpu_cluster(nodes=3, claims_per_node=0))
    original = apiserver.list

    def expired(r, namespace, query):  # type: ignore[no-untyped-def]
        if r.plural == "nodes":
            return 410, status(410, "Expired", "too old resource version: 1 (200)")
        return original(r, namespace, query)

    monkeypatch.setattr(apiserver, "list", expired)
    with pytest.raises(InputError, match=r"answered 410 Expired to GET /api/v1/nodes: too old resource version"):
        load([LiveSource(chunk_size=2)])
    assert [r.code for r in apiserver.requests if r.path == "/api/v1/nodes"] == [410]


def test_chunk_size_0_lists_each_kind_in_one_request(apiserver: FakeAPIServer, kubeconfig: Path) -> None:
    apiserver.add(gpu_cluster(nodes=30, claims_per_node=2))
    objs = load([LiveSource(chunk_size=0)])
    assert len(objs.nodes) == 30 and len(objs.claims) == 60
    assert all("limit" not in r.query for r in apiserver.requests)
    assert len([r for r in apiserver.requests if r.path.endswith("/resourceclaims")]) == 1


def test_a_token_that_does_not_advance_is_an_error(apiserver: FakeAPIServer, kubeconfig: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    apiserver.add(gpu_cluster(nodes=5, claims_per_node=0))
    original = apiserver.list

    def stuck(r, namespace, query):  # type: ignore[no-untyped-def]
        code, body = original(r, namespace, {**query, "continue": ""})
        if "continue" in body["metadata"]:
            body["metadata"]["continue"] = "same"
        return code, body

    monkeypatch.setattr(apiserver, "list", stuck)
    with pytest.raises(InputError, match="same continue token twice"):
        load([LiveSource(chunk_size=2)])


def test_list_items_get_their_kind_and_are_named_by_resource(apiserver: FakeAPIServer, kubeconfig: Path) -> None:
    """The API server leaves apiVersion and kind out of list items: the
    list's are given to each; messages name the context, resource and key."""
    apiserver.add(gpu_cluster(nodes=1, claims_per_node=1))
    objs = load([LiveSource()])
    claim = objs.claims[0]
    assert (claim.api_version, claim.kind) == ("resource.k8s.io/v1", "ResourceClaim")
    assert objs.where(claim) == "context test: resourceclaims.resource.k8s.io ml/claim-000-0"
    assert objs.where(objs.nodes[0]) == "context test: nodes node-000"
    assert claim.metadata.resource_version and claim.status and claim.status.allocation


def test_a_cluster_object_from_a_live_cluster(apiserver: FakeAPIServer, kubeconfig: Path, tmp_path: Path) -> None:
    """dralloc.Cluster reads a live cluster as it reads files: the same
    answers as on the dump, under the server's release unless told."""
    from dralloc import Cluster

    apiserver.git_version = "v1.36.1"
    apiserver.add(gpu_cluster(nodes=3, claims_per_node=3, pending=2))
    live = Cluster.load([LiveSource()])
    dumped = Cluster.load([apiserver.dump(tmp_path / "dump.yaml")], kubernetes_version="1.36")
    assert live.features == dumped.features and live.features.kubernetes_version == "1.36"
    for pod in ("ml/waiting-000", "web/waiting-001"):
        got = [(node, str(a)) for node, a in live.fits(live.pod_claims(pod))]
        assert got == [(node, str(a)) for node, a in dumped.fits(dumped.pod_claims(pod))] and len(got) == 3
    assert Cluster.load([LiveSource()], kubernetes_version="1.37").features.kubernetes_version == "1.37"


def test_one_source_read_from_two_threads(apiserver: FakeAPIServer, kubeconfig: Path) -> None:
    """A source is shared safely: each read is a list of its own."""
    import threading

    apiserver.add(gpu_cluster(nodes=20, claims_per_node=2))
    source = LiveSource(chunk_size=7)
    results: list[set[tuple[str, str, str]]] = []
    threads = [threading.Thread(target=lambda: results.append(read_keys(source))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 2 and results[0] == results[1] == keys(apiserver.objects())
    assert source.listings["ResourceClaim"].requests == 6 and source.listings["ResourceClaim"].pages == []
