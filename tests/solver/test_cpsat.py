"""CP-SAT modes on hand-checkable cases: the backtracking trap, the confirmed
distinctAttribute defect, optimal never below first-fit, explanations."""

from __future__ import annotations

from typing import Any

from dralloc.features import Features
from dralloc.inventory.problem import build_problem
from dralloc.io import parse_object
from dralloc.solver import Status, allocate
from dralloc.solver.explain import explain

DRIVER = "driver-a"


def _objs(devices: list[dict[str, Any]], counters: dict[str, str] | None = None) -> list[Any]:
    raw: list[dict[str, Any]] = [
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "c"},
         "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
         "spec": {"driver": DRIVER, "nodeName": "node-1", "pool": {"name": "p", "generation": 1,
                  "resourceSliceCount": 2 if counters else 1}, "devices": devices}},
    ]
    if counters:
        raw.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "t"},
                    "spec": {"driver": DRIVER, "nodeName": "node-1", "pool": {"name": "p", "generation": 1, "resourceSliceCount": 2},
                             "sharedCounters": [{"name": "set", "counters": {k: {"value": v} for k, v in counters.items()}}]}})
    return [parse_object(o) for o in raw]


def _claim(count: int, constraint: dict[str, Any] | None = None) -> Any:
    return parse_object({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                         "metadata": {"name": "claim", "namespace": "default"},
                         "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "c", "count": count}}],
                                              "constraints": [constraint] if constraint else []}}})


def _devices(o: Any) -> list[str]:
    return [r.device for r in o.allocations[0].devices.results]


def trap(n: int) -> tuple[list[Any], Any]:
    """n devices, a claim for k = min(n-1, 32) of them, counters for exactly k
    devices when device-1 (which costs double) is left out."""
    k = min(n - 1, 32)
    devs = [{"name": f"device-{i}", "consumesCounters": [{"counterSet": "set", "counters": {
        "mem": {"value": "20Gi" if i == 1 else "10Gi"}}}]} for i in range(1, n + 1)]
    return _objs(devs, {"mem": f"{k * 10}Gi"}), _claim(k)


def test_backtracking_trap_same_answer_fewer_steps() -> None:
    objs, claim = trap(8)
    ref = allocate(objs, "node-1", [claim], allocated=[], features=["DRAPartitionableDevices"], mode="replay")
    got = allocate(objs, "node-1", [claim], allocated=[], features=["DRAPartitionableDevices"], mode="first-fit")
    assert ref.status is Status.ALLOCATED and got.status is Status.ALLOCATED
    assert _devices(ref) == _devices(got) == [f"device-{i}" for i in range(2, 9)]
    assert ref.steps > 50  # Kubernetes explores every set holding device-1 first


def test_distinct_attribute_defect_is_named() -> None:
    # confirmed on the real allocator: values 0, 1, 0, 3 -> Kubernetes takes the first three
    devs = [{"name": f"d{i}", "attributes": {"v": {"int": v}}} for i, v in enumerate([0, 1, 0, 3])]
    claim = _claim(3, {"distinctAttribute": f"{DRIVER}/v"})
    feats = ["DRAConsumableCapacity"]
    ref = allocate(_objs(devs), "node-1", [claim], allocated=[], features=feats, mode="replay")
    got = allocate(_objs(devs), "node-1", [claim], allocated=[], features=feats, mode="first-fit")
    assert _devices(ref) == ["d0", "d1", "d2"]
    assert _devices(got) == ["d0", "d1", "d3"]
    assert any(d.startswith("distinct-attribute-duplicates") for d in got.defects)


def test_optimal_never_below_first_fit_and_prefers_smallest() -> None:
    devs = [{"name": "big", "capacity": {"memory": {"value": "80Gi"}}},
            {"name": "small", "capacity": {"memory": {"value": "10Gi"}}}]
    claim = _claim(1)
    ff = allocate(_objs(devs), "node-1", [claim], allocated=[], features=[], mode="first-fit")
    opt = allocate(_objs(devs), "node-1", [claim], allocated=[], features=[], mode="optimal", objective="claims,best-fit")
    assert _devices(ff) == ["big"]
    assert _devices(opt) == ["small"]


def test_explain_names_the_counter() -> None:
    objs, _ = trap(3)
    claim = _claim(3)
    p = build_problem([o for o in objs if o.kind == "ResourceSlice"], [o for o in objs if o.kind == "DeviceClass"],
                      parse_object({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"}}),
                      [claim], [], Features.from_gates(["DRAPartitionableDevices"]))
    text = "\n".join(explain(p))
    assert "counter driver-a/p/set/mem" in text
    assert "request default/claim/r must be served" in text


def test_replay_time_limit_aborts_like_the_scheduler_context() -> None:
    objs, claim = trap(40)  # an exponential search for Kubernetes
    out = allocate(objs, "node-1", [claim], allocated=[], features=["DRAPartitionableDevices"],
                   mode="replay", time_limit=0.2)
    assert out.status is Status.ERROR
    assert out.error == "filter operation aborted: context deadline exceeded"
    assert out.steps > 1000
