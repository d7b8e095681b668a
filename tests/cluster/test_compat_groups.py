"""A Cluster with DRADeviceCompatibilityGroups on remembers the groups each
committed claim recorded: after a MIG partition is committed, no vGPU
partition of that GPU fits any more, and releasing the claim brings it back."""

from __future__ import annotations

from pathlib import Path

import yaml

from dralloc import Cluster
from dralloc.features import DEFAULT_GATES
from dralloc.io import ObjectSet, parse_object

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "kep137" / "compat-example-3-vgpu-refused.yaml"


def _objects() -> ObjectSet:
    sc = yaml.safe_load(SCENARIO.read_text())
    objs = ObjectSet()
    docs = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"}}, *sc["objects"]]
    for name, typ in (("mig", "mig-1g"), ("vgpu", "vgpu")):
        docs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                     "metadata": {"name": name, "namespace": "default"},
                     "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                         "deviceClassName": "gpu.example.com",
                         "selectors": [{"cel": {"expression": f"device.attributes['gpu.example.com'].type == '{typ}'"}}]}}]}}})
    for d in docs:
        obj = parse_object(d, "test")
        assert obj is not None
        objs.add(obj)
    return objs


def test_committed_groups_keep_other_groups_off_the_counter_set() -> None:
    cluster = Cluster(_objects(), features=(*DEFAULT_GATES, "DRADeviceCompatibilityGroups"))
    assert cluster.fits(["default/vgpu"])
    found = cluster.fits(["default/mig"], limit=1)
    assert found
    node, answer = found[0]
    committed = cluster.commit(answer, ["default/mig"])
    results = committed[0].status.allocation.devices.results  # type: ignore[union-attr]
    assert results[0].compatibility_groups == {"gpu-0-counters": ["mig"]}
    assert not cluster.fits(["default/vgpu"])
    cluster.release("default/mig")
    assert cluster.fits(["default/vgpu"])
