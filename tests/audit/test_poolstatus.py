"""The ResourcePoolStatusRequest status dralloc computes, from KEP-5677's
examples (Kubernetes 1.37, second alpha): counts with each device once,
admin access and older generations left out, tainted devices unavailable,
incomplete pools flagged, the partition and shareable summaries."""

from __future__ import annotations

from typing import Any

from dralloc.audit.poolstatus import StatusRequest, pool_status
from dralloc.io import ObjectSet, parse_object

DRIVER = "gpu.example.com"


def _slice(name: str, pool: str, devices: list[dict[str, Any]], *, count: int = 1, generation: int = 1,
           node: str | None = None, **spec: Any) -> dict[str, Any]:
    s: dict[str, Any] = {"driver": DRIVER, "pool": {"name": pool, "generation": generation,
                                                    "resourceSliceCount": count}, "devices": devices, **spec}
    s["nodeName"] = node or pool
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name}, "spec": s}


def _claim(name: str, *results: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": name, "namespace": "ns"},
            "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "c"}}]}},
            "status": {"allocation": {"devices": {"results": [{"request": "r", "driver": DRIVER, **r}
                                                              for r in results]}}}}


def _status(*docs: dict[str, Any], **req: Any) -> dict[str, Any]:
    objs = ObjectSet()
    for d in docs:
        obj = parse_object(d, "test")
        assert obj is not None
        objs.add(obj)
    return pool_status(objs, StatusRequest(DRIVER, **req))


def _part(name: str, profile: str, memory: str) -> dict[str, Any]:
    return {"name": name, "attributes": {"profile": {"string": profile}},
            "consumesCounters": [{"counterSet": "gpu-0", "counters": {"memory": {"value": memory}}}]}


def test_kep_partitionable_pool_example() -> None:
    """node-3: one GPU as one full (80Gi) or two halves (40Gi) over an 80Gi
    counter set, one half in use: the other half still fits, the full one not."""
    sl = _slice("node-3", "node-3", [_part("gpu-0-full", "full", "80Gi"), _part("gpu-0-half-1", "half", "40Gi"),
                                     _part("gpu-0-half-2", "half", "40Gi")],
                sharedCounters=[{"name": "gpu-0", "counters": {"memory": {"value": "80Gi"}}}],
                partitionTypeAttribute=f"{DRIVER}/profile", generation=7)
    got = _status(sl, _claim("a", {"pool": "node-3", "device": "gpu-0-half-1"}))
    pool = got["pools"][0]
    assert {k: pool[k] for k in ("generation", "nodeName", "resourceSliceCount", "totalDevices", "allocatedDevices",
                                 "availableDevices", "unavailableDevices")} == {
        "generation": 7, "nodeName": "node-3", "resourceSliceCount": 1, "totalDevices": 3, "allocatedDevices": 1,
        "availableDevices": 2, "unavailableDevices": 0}
    assert pool["partitionSummary"] == [
        {"attribute": f"{DRIVER}/profile", "type": "full", "total": 1, "allocatable": 0},
        {"attribute": f"{DRIVER}/profile", "type": "half", "total": 2, "allocatable": 1}]
    assert got["poolCount"] == 1 and got["conditions"][0]["message"] == "Calculated status for 1 pools"


def test_the_request_default_groups_pools_that_declare_nothing() -> None:
    sl = _slice("node-3", "node-3", [_part("gpu-0-full", "full", "80Gi")],
                sharedCounters=[{"name": "gpu-0", "counters": {"memory": {"value": "80Gi"}}}])
    assert "partitionSummary" not in _status(sl)["pools"][0]
    got = _status(sl, default_partition_type_attribute=f"{DRIVER}/profile")["pools"][0]
    assert got["partitionSummary"] == [{"attribute": f"{DRIVER}/profile", "type": "full", "total": 1,
                                        "allocatable": 1}]


def test_partitions_of_one_type_with_different_costs_are_flagged() -> None:
    """As on a DynamicMIG GPU, where each placement of a profile draws other
    memory slices: the typed view cannot be computed, the counts stay."""
    sl = _slice("n", "n", [_part("a", "1g", "10Gi"), _part("b", "1g", "20Gi")],
                sharedCounters=[{"name": "gpu-0", "counters": {"memory": {"value": "80Gi"}}}],
                partitionTypeAttribute=f"{DRIVER}/profile")
    pool = _status(sl)["pools"][0]
    assert pool["validationError"].startswith('PartitionCostMismatch: devices of partition type "1g"')
    assert "partitionSummary" not in pool and pool["totalDevices"] == 2


def test_kep_shareable_pool_example() -> None:
    """node-4: three shareable devices, two with claims: each counted once."""
    devs = [{"name": f"gpu-{i}", "allowMultipleAllocations": True, "capacity": {"memory": {"value": "80Gi"}}}
            for i in range(3)]
    claims = [_claim("a", {"pool": "node-4", "device": "gpu-0", "shareID": "a" * 8 + "-0000-0000-0000-" + "0" * 12,
                           "consumedCapacity": {"memory": "40Gi"}}),
              _claim("b", {"pool": "node-4", "device": "gpu-0", "shareID": "b" * 8 + "-0000-0000-0000-" + "0" * 12,
                           "consumedCapacity": {"memory": "10Gi"}}),
              _claim("c", {"pool": "node-4", "device": "gpu-1", "shareID": "c" * 8 + "-0000-0000-0000-" + "0" * 12,
                           "consumedCapacity": {"memory": "40Gi"}})]
    pool = _status(_slice("node-4", "node-4", devs), *claims)["pools"][0]
    assert (pool["allocatedDevices"], pool["availableDevices"]) == (2, 1)
    assert pool["shareableSummary"] == {"fullyAvailableDevices": 1, "partiallyAvailableDevices": 2, "capacity": [
        {"name": "memory", "total": "240Gi", "consumed": "90Gi", "available": "150Gi"}]}


def test_admin_access_taints_generations_and_incomplete_pools() -> None:
    devs = [{"name": "d0"}, {"name": "d1", "taints": [{"key": "k", "effect": "NoSchedule"}]},
            {"name": "d2", "taints": [{"key": "k", "effect": "None"}]}]
    old = _slice("p-old", "p", [{"name": "gone"}], generation=1)
    new = _slice("p-new", "p", devs, generation=2)
    half = _slice("q-1", "q", [{"name": "x"}], count=2, generation=5)
    admin = _claim("admin", {"pool": "p", "device": "d0", "adminAccess": True})
    got = _status(old, new, half, admin)
    p, q = got["pools"]
    assert (p["generation"], p["totalDevices"], p["allocatedDevices"], p["unavailableDevices"],
            p["availableDevices"]) == (2, 3, 0, 1, 2)
    assert q["validationError"] == (f"PoolIncomplete: pool {DRIVER}/q is incomplete: observed 1/2 slices at "
                                    "generation 5")
    assert "totalDevices" not in q and "resourceSliceCount" not in q
    assert got["conditions"][0]["message"] == "Calculated status for 2 pools (1 incomplete)"


def test_limit_and_node_names() -> None:
    a = _slice("a", "a", [{"name": "d"}])
    b1 = _slice("b1", "b", [{"name": "d"}], count=2, node="n1")
    b2 = _slice("b2", "b", [{"name": "e"}], count=2, node="n2")
    got = _status(a, b1, b2, limit=1)
    assert got["poolCount"] == 2 and [p["poolName"] for p in got["pools"]] == ["a"]
    both = _status(a, b1, b2)["pools"]
    assert both[0]["nodeName"] == "a" and "nodeName" not in both[1]
