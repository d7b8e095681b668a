"""The cluster object keeps selectability verdicts on its devices across
calls; a verdict that depends on more than the device and the request's
shape is not reused: with DRADeviceCompatibilityGroups off (Kubernetes 1.37),
a device drawing from a counter set on which an allocated device recorded
compatibility groups is skipped while that claim holds it, and selectable
again once it is released (and the other way round)."""

from __future__ import annotations

from typing import Any

from dralloc import Cluster
from dralloc.features import DEFAULT_GATES
from dralloc.io import ObjectSet, parse_object

DRIVER = "gpu.example.com"


def _slice(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name},
            "spec": {"driver": DRIVER, "nodeName": "node-1",
                     "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 2}, **spec}}


def _objects() -> ObjectSet:
    use = {"counterSet": "gpu-0", "counters": {"sm": {"value": "1"}}}
    docs: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": DRIVER},
         "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}},
        _slice("counters", {"sharedCounters": [{"name": "gpu-0", "counters": {"sm": {"value": "4"}}}]}),
        _slice("devices", {"devices": [{"name": "plain", "attributes": {"kind": {"string": "plain"}},
                                        "consumesCounters": [use]},
                                       {"name": "other", "consumesCounters": [use]}]}),
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
         "metadata": {"name": "want", "namespace": "default"},
         "spec": {"devices": {"requests": [{"name": "r", "exactly": {
             "deviceClassName": DRIVER,
             "selectors": [{"cel": {"expression": f'device.attributes["{DRIVER}"].kind == "plain"'}}]}}]}}},
    ]
    objs = ObjectSet()
    for d in docs:
        obj = parse_object(d, "test")
        assert obj is not None
        objs.add(obj)
    return objs


def _grouped_holder() -> Any:
    """A claim allocated earlier (the gate on then) that recorded group mig
    for counter set gpu-0 on device other."""
    return parse_object({
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": {"name": "holder", "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": DRIVER}}]}},
        "status": {"allocation": {"devices": {"results": [
            {"request": "r", "driver": DRIVER, "pool": "node-1", "device": "other",
             "compatibilityGroups": {"gpu-0": ["mig"]}}]},
            "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}]}}}}, "test")


def test_a_verdict_that_recorded_groups_decide_is_not_kept() -> None:
    cluster = Cluster(_objects(), features=DEFAULT_GATES, kubernetes_version="1.37")
    assert cluster.fits(["default/want"])                       # kept on the device: selectable
    cluster.add([_grouped_holder()])
    assert not cluster.fits(["default/want"])                   # the recorded groups skip it now
    assert "compatibility groups" in str(cluster.allocate("node-1", ["default/want"], mode="replay"))
    cluster.release("default/holder")
    assert cluster.fits(["default/want"])                       # and not after the release
