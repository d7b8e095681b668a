"""The cluster object's API: node order, commit and release, trials, pods,
adding and removing slices and nodes, and its errors."""

from __future__ import annotations

from typing import Any

import pytest
from randcluster import classes, objects, slice_doc

from dralloc.cluster import Cluster
from dralloc.errors import InputError
from dralloc.features import Features
from dralloc.io.loader import parse_object
from dralloc.models import Node, ResourceClaim
from dralloc.solver import Status

FEATURES = Features.from_gates(["DRAPartitionableDevices", "DRAPrioritizedList"])


def node(name: str, zone: str | None = None, region: str | None = None) -> dict[str, Any]:
    labels = {"kubernetes.io/hostname": name}
    if zone:
        labels["topology.kubernetes.io/zone"] = zone
    if region:
        labels["topology.kubernetes.io/region"] = region
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}}


def gpus(name: str, count: int = 2) -> dict[str, Any]:
    return slice_doc(f"{name}-gpus", "gpu.example.com", name, nodeName=name,
                     devices=[{"name": f"gpu-{i}"} for i in range(count)])


def claim(name: str, count: int = 1, ns: str = "default") -> ResourceClaim:
    obj = parse_object({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                        "metadata": {"name": name, "namespace": ns},
                        "spec": {"devices": {"requests": [{"name": "r", "exactly": {
                            "deviceClassName": "gpu", "allocationMode": "ExactCount", "count": count}}]}}})
    assert isinstance(obj, ResourceClaim)
    return obj


def small(nodes: tuple[str, ...] = ("a", "b"), per_node: int = 2, extra: list[dict[str, Any]] | None = None) -> Cluster:
    docs = [*classes(), *(node(n) for n in nodes), *(gpus(n, per_node) for n in nodes), *(extra or [])]
    return Cluster(objects(docs), features=FEATURES)


def test_nodes_in_the_schedulers_order() -> None:
    """Zones take turns (in the order their first node came), nodes in a zone
    in arrival order; a node whose zone changes moves to the end of the new one."""
    docs = [node("a1", "z-a"), node("b1", "z-b"), node("a2", "z-a"), node("a3", "z-a"), node("c1", "z-c", "r2"),
            node("b2", "z-b")]
    cl = Cluster(objects(docs))
    assert [n.name for n in cl.nodes()] == ["a1", "b1", "c1", "a2", "b2", "a3"]
    moved = objects([node("a1", "z-b")]).nodes[0]
    cl.add_node(moved)
    assert [n.name for n in cl.nodes()] == ["a2", "b1", "c1", "a3", "b2", "a1"]
    cl.remove_node("b1")
    assert [n.name for n in cl.nodes()] == ["a2", "b2", "c1", "a3", "a1"]


def test_commit_and_release_change_what_fits() -> None:
    cl = small()
    two = claim("two", 2)
    assert [n.name for n, _ in cl.fits([two])] == ["a", "b"]
    out = cl.allocate("a", [two])
    done = cl.commit(out, [two])
    assert [c.key for c in cl.allocated()] == ["default/two"]
    assert done[0].status is not None and done[0].status.allocation is not None
    assert [n.name for n, _ in cl.fits([claim("more")])] == ["b"]
    assert cl.release("two") is not None
    assert cl.allocated() == [] and cl.claim("default/two") is not None
    assert [n.name for n, _ in cl.fits([claim("more")])] == ["a", "b"]


def test_a_trial_is_undone() -> None:
    cl = small()
    first = claim("first", 2)
    cl.commit(cl.allocate("a", [first]), [first])
    with cl.trial():
        cl.release("first")
        other = claim("other", 2)
        cl.commit(cl.allocate("a", [other]), [other])
        assert [c.key for c in cl.allocated()] == ["default/other"]
    assert [c.key for c in cl.allocated()] == ["default/first"]
    assert cl.claim("default/other") is None
    assert not cl.allocate("a", [claim("x")]).ok


def test_allocating_an_allocated_claim_again_ignores_its_own_devices() -> None:
    cl = small(nodes=("a",))
    both = claim("both", 2)
    cl.commit(cl.allocate("a", [both]), [both])
    assert cl.allocate("a", ["default/both"]).ok        # its devices are not held against it
    assert not cl.allocate("a", [claim("third")]).ok


def test_pod_claims_from_templates_and_names() -> None:
    template = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                "metadata": {"name": "one-gpu", "namespace": "default"},
                "spec": {"spec": {"devices": {"requests": [{"name": "r", "exactly": {
                    "deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 1}}]}}}}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"resourceClaims": [{"name": "g", "resourceClaimTemplateName": "one-gpu"}],
                    "containers": [{"name": "main"}]}}
    cl = small(extra=[template, pod])
    assert [c.key for c in cl.pod_claims("default/p")] == ["default/p-g"]
    out = cl.allocate("a", pod="default/p")
    assert out.ok and out.claims == ["default/p-g"]
    cl.commit(out, cl.pod_claims("default/p"))
    assert cl.claim("p-g") is not None and cl.allocated()[0].key == "default/p-g"
    with pytest.raises(InputError, match="pod default/nope not found"):
        cl.allocate("a", pod="default/nope")


def test_slices_and_nodes_come_and_go() -> None:
    cl = small()
    assert [n.name for n, _ in cl.fits([claim("c", 2)])] == ["a", "b"]
    cl.remove_slices(["a-gpus"])
    assert [n.name for n, _ in cl.fits([claim("c", 2)])] == ["b"]
    cl.add_slices(objects([gpus("a", 3)]).slices)
    assert [n.name for n, _ in cl.fits([claim("c", 3)])] == ["a"]
    shared = slice_doc("fabric", "gpu.example.com", "fabric", allNodes=True,
                       devices=[{"name": f"g{i}"} for i in range(4)])
    cl.add_slices(objects([shared]).slices)
    assert [n.name for n, _ in cl.fits([claim("c", 5)])] == ["a", "b"]
    gone = cl.remove_node("b")
    assert gone is not None and gone.name == "b"
    assert [n.name for n, _ in cl.fits([claim("c", 5)])] == ["a"]
    with pytest.raises(InputError, match="node b not found among the 1 Node"):
        cl.allocate("b", [claim("c", 4)])
    bare = Node.model_validate({"metadata": {"name": "b"}})
    assert cl.allocate(bare, [claim("c", 4)]).ok   # the shared slice still reaches a node named b


def test_a_replaced_slice_takes_effect_on_cached_views() -> None:
    cl = small()
    assert cl.allocate("a", [claim("c", 2)]).ok      # caches a's view
    cl.add_slices(objects([gpus("a", 1)]).slices)    # same name: replaces
    assert cl.allocate("a", [claim("c", 2)]).status is Status.UNSATISFIABLE


def test_problem_holds_only_the_nodes_pools() -> None:
    cl = small(nodes=("a", "b", "c"))
    problem = cl.problem("b", [claim("c")])
    assert [p.name for p in problem.pools] == ["b"]


def test_bad_questions_are_input_errors() -> None:
    cl = small()
    with pytest.raises(InputError, match="claim default/nope not found"):
        cl.allocate("a", ["default/nope"])
    with pytest.raises(InputError, match="claims or a pod"):
        cl.allocate("a", [claim("x")], pod="default/p")
    failed = cl.allocate("a", [claim("big", 9)])
    with pytest.raises(InputError, match="cannot commit"):
        cl.commit(failed)
    with pytest.raises(InputError, match="claim default/fresh is not held by the cluster: pass the claim objects"):
        cl.commit(cl.allocate("a", [claim("fresh")]))
    with pytest.raises(InputError, match="limit 0"):
        cl.fits([claim("x")], limit=0)
    docs = [*classes(), node("a"), node("a")]
    with pytest.raises(InputError, match="duplicate Node a"):
        Cluster(objects(docs))                               # admission refuses it
    with pytest.raises(InputError, match="Node a is given twice"):
        Cluster(objects(docs), admission=False)              # and so does the cluster


def test_a_node_not_held_is_an_error_or_a_bare_node() -> None:
    """As allocate(): a name that is none of the cluster's Nodes is "not
    found"; without admission (the allocator's own input) it is a bare node."""
    with pytest.raises(InputError, match="node ghost not found among the 2 Node"):
        small().allocate("ghost", [claim("c")])
    docs = [*classes(), node("a"), gpus("a")]
    raw = Cluster(objects(docs), features=FEATURES, admission=False)
    assert raw.node("ghost") == Node.model_validate({"metadata": {"name": "ghost"}})
    assert not raw.allocate("ghost", [claim("c")]).ok


def _rack_pool(name: str = "rack-a", values: tuple[str, ...] = ("a",)) -> Any:
    sel = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "rack", "operator": "In", "values": list(values)}]}]}
    doc = slice_doc(name, "gpu.example.com", name, nodeSelector=sel, devices=[{"name": f"g{i}"} for i in range(4)])
    return objects([doc]).slices[0]


def _relabel(cl: Cluster, name: str, **labels: str) -> None:
    node = cl.node(name)
    meta = node.metadata.model_copy(update={"labels": dict(node.labels) | labels})
    cl.add_node(node.model_copy(update={"metadata": meta}))


def test_a_label_selected_pool_reaches_nodes_with_cached_views() -> None:
    cl = small()
    _relabel(cl, "a", rack="a")
    assert not cl.allocate("a", [claim("c", 5)]).ok       # caches a's view: 2 GPUs of its own
    cl.add_slices([_rack_pool()])
    assert cl.allocate("a", [claim("c", 5)]).ok           # + 4 in the rack-a pool
    assert not cl.allocate("b", [claim("c", 5)]).ok


def test_a_relabelled_node_sees_the_pools_its_labels_select() -> None:
    cl = small(extra=[{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "rack-b"},
                       "spec": {"driver": "gpu.example.com", "pool": {"name": "rack-b", "resourceSliceCount": 1},
                                "nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [
                                    {"key": "rack", "operator": "In", "values": ["b"]}]}]},
                                "devices": [{"name": f"g{i}"} for i in range(4)]}}])
    assert not cl.allocate("a", [claim("c", 5)]).ok
    _relabel(cl, "a", rack="b")
    assert cl.allocate("a", [claim("c", 5)]).ok
    _relabel(cl, "a", rack="c")
    assert not cl.allocate("a", [claim("c", 5)]).ok
