"""Nodes of one type share what is identical: a load stores their devices'
parts once (dralloc.io.share), and what differs per node (names, UUIDs,
allocations) stays its own. Models read back exactly as validation builds
them, and allocating on one node does not change another."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from dralloc.cluster import Cluster
from dralloc.io import load, parse_object, share
from dralloc.models import Device, DeviceAttribute, ResourceClaim, ResourceSlice
from dralloc.planner.generate import clusters as gen
from dralloc.planner.generate.nodes import NodeType

TYPES = [(NodeType("gpu", gpus=2, nics=2), 2), (NodeType("mig", gpus=1, profiles=("1g.5gb", "3g.20gb")), 2)]


@pytest.fixture(scope="module")
def cluster_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("share") / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": gen.mixed_cluster(TYPES, seed=3)}))
    return path


def _devices(objs: Any, node: str, driver: str) -> list[Device]:
    return [d for s in objs.slices if s.spec.node_name == node and s.spec.driver == driver
            for d in s.spec.devices or []]


def test_identical_nodes_share_their_device_bodies(cluster_file: Path) -> None:
    objs = load([cluster_file])
    a, b = _devices(objs, "mig-0000", gen.GPU_DRIVER), _devices(objs, "mig-0001", gen.GPU_DRIVER)
    assert [d.name for d in a] == [d.name for d in b] and a
    for x, y in zip(a, b, strict=True):
        # the partition is the same hardware: capacity map and counter consumption are one object
        assert x.capacity is y.capacity and x.consumes_counters is y.consumes_counters
        assert x.name is y.name
        # the GPU's UUID differs, so the attribute maps do; every other value is one object
        assert x.attributes is not y.attributes
        assert x.attributes["parentUUID"] != y.attributes["parentUUID"]
        assert x.attributes["profile"] is y.attributes["profile"]
    # the MIG devices of one GPU with one profile share their GPU's attribute map
    by_profile: dict[str, list[Device]] = {}
    for d in a:
        by_profile.setdefault(d.attributes["profile"].string, []).append(d)
    assert all(d.attributes is ds[0].attributes for ds in by_profile.values() for d in ds)
    # NICs without per-node addresses are the same device on every node of the type
    nics = [_devices(objs, n, gen.NIC_DRIVER) for n in ("gpu-0000", "gpu-0001")]
    rdma = [(x, y) for x, y in zip(*nics, strict=True) if x.attributes and "dra.net/rdma" in x.attributes
            and x.attributes["dra.net/rdma"].bool_]
    assert rdma and all(x is y for x, y in rdma)


def test_shared_models_equal_what_validation_builds(cluster_file: Path) -> None:
    objs = load([cluster_file])
    raw = {(d["metadata"]["name"]): d for d in json.loads(cluster_file.read_text())["items"]
           if d["kind"] == "ResourceSlice"}
    for s in objs.slices:
        want = ResourceSlice.model_validate(raw[s.name])
        assert s == want and s.dump() == want.dump()
        for got, exp in zip(s.spec.devices or [], want.spec.devices or [], strict=True):
            assert got.model_fields_set == exp.model_fields_set
            assert repr(got) == repr(exp)


def test_allocating_on_one_node_leaves_its_twin_alone(cluster_file: Path) -> None:
    objs = load([cluster_file])
    claim = parse_object({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                          "metadata": {"name": "c", "namespace": "default"},
                          "spec": gen.claim_template("m", "mig.nvidia.com",
                                                     'device.attributes["gpu.nvidia.com"].profile == "3g.20gb"')
                          ["spec"]["spec"]})
    assert isinstance(claim, ResourceClaim)
    before = [d.dump() for d in _devices(objs, "mig-0001", gen.GPU_DRIVER)]
    cl = Cluster(objs)
    first = cl.allocate("mig-0000", [claim])
    assert first.ok
    cl.commit(first, [claim])
    # the twin still has every partition free: it gets the same device, under its own pool
    twin = cl.allocate("mig-0001", [claim.model_copy(update={"metadata": claim.metadata.model_copy(
        update={"name": "d"})})])
    assert twin.ok and twin.allocations and first.allocations
    got = [(r.device, r.pool) for a in twin.allocations for r in a.devices.results or []]   # type: ignore[union-attr]
    want = [(r.device, r.pool) for a in first.allocations for r in a.devices.results or []]  # type: ignore[union-attr]
    assert [d for d, _ in got] == [d for d, _ in want] and {p for _, p in got} == {"mig-0001"}
    # a model changed by copying (how dralloc changes models) changes no other node's device
    dev = _devices(objs, "mig-0000", gen.GPU_DRIVER)[0]
    changed = dev.model_copy(update={"attributes": {**(dev.attributes or {}), "x": DeviceAttribute(int_=1)}})
    assert "x" in (changed.attributes or {}) and "x" not in (dev.attributes or {})
    # a shared model refuses to be changed in place
    with pytest.raises(ValidationError, match="frozen"):
        dev.name = "other"
    with pytest.raises(ValidationError, match="frozen"):
        dev.capacity = {}
    assert [d.dump() for d in _devices(objs, "mig-0001", gen.GPU_DRIVER)] == before


def test_sharing_lasts_one_load() -> None:
    docs = gen.mixed_cluster(TYPES[1:], seed=1)
    with share.sharing() as outer:
        with share.sharing() as inner:
            assert inner is outer
        assert share.current() is outer
    assert share.current() is not outer   # outside a load: fresh tables (sharing within one object)
    one, two = gen.objects(docs), gen.objects(docs)
    a, b = one.slices[1].spec.devices or [], two.slices[1].spec.devices or []
    assert a and a == b
    assert a[0].capacity is not b[0].capacity   # two loads share nothing: dropping one frees it


def test_an_assembled_model_is_the_validated_model() -> None:
    make = share.Assembler(DeviceAttribute)
    got = make({"string": "x"}, ("string",))
    want = DeviceAttribute.model_validate({"string": "x"})
    assert got == want and got.model_fields_set == want.model_fields_set == {"string"}
    assert got.dump() == want.dump() == {"string": "x"} and hash(got) == hash(want)
    assert got.model_copy(update={"string": "y"}).string == "y" and got.string == "x"


def _slice_doc(name: str, maps: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name},
            "spec": {"driver": "d.example.com", "nodeName": "n", "pool": {"name": "p", "generation": 1,
                     "resourceSliceCount": 1},
                     "devices": [{"name": f"dev-{i}", "attributes": m} for i, m in enumerate(maps)]}}


@pytest.mark.parametrize("twin", [{"int": True}, {"int": 1.0}, {"int": 2}, {"bool": 1}, {"string": 1}])
def test_a_map_built_from_an_earlier_one_keeps_1_1_0_and_true_apart(twin: dict[str, Any]) -> None:
    # A map new to a load is built from the latest map of the same names plus
    # the entries that differ; Python finds 1, 1.0 and True equal, JSON and
    # validation do not: the result is what validating the object alone gives.
    first = _slice_doc("a", [{"n": {"int": 1}, "uuid": {"string": "u-0"}}])
    second = _slice_doc("b", [{"n": {"int": 1}, "uuid": {"string": "u-1"}},
                              {"n": twin, "uuid": {"string": "u-2"}}])
    try:
        want: Any = parse_object(json.loads(json.dumps(second)), "b.json")
    except Exception as e:  # noqa: BLE001 - the same error is expected below
        want = e
    with share.sharing():
        parse_object(first, "a.json")
        try:
            got: Any = parse_object(second, "b.json")
        except Exception as e:  # noqa: BLE001
            got = e
    if isinstance(want, Exception):
        assert type(got) is type(want) and str(got) == str(want)
        return
    assert got == want and got.dump() == want.dump()
    for g, w in zip(got.spec.devices, want.spec.devices, strict=True):
        assert repr(g) == repr(w)
        assert [type(v.int_) for v in g.attributes.values()] == [type(v.int_) for v in w.attributes.values()]
