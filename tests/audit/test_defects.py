"""A state holding each documented Kubernetes defect's answer is flagged with
the rule it breaks (spec §8)."""

from __future__ import annotations

from typing import Any

from verify_build import claim, dclass, device, exact, node, pod, rslice, state

from dralloc.audit import verify_state
from dralloc.checker import ERROR
from dralloc.features import Features

ALL = Features.from_gates(["DRAAdminAccess", "DRAPrioritizedList", "DRAPartitionableDevices",
                           "DRADeviceTaints", "DRAConsumableCapacity"])


def rules(items: list[dict[str, Any]], features: Features = ALL) -> set[str]:
    rep = verify_state(state(items), features, compare=False, pending=False)
    return {f.rule for f in rep.findings if f.level == ERROR}


def base(*devices: dict[str, Any]) -> list[dict[str, Any]]:
    return [node(), dclass(), rslice("s1", list(devices))]


def test_stale_match_attribute_is_flagged() -> None:
    items = base(device("d1", numa=0), device("d2", numa=1))
    items.append(claim("c", [exact(count=2)], [("req-0", "d1"), ("req-0", "d2")],
                       constraints=[{"matchAttribute": f"{'gpu.example.com'}/numa"}]))
    assert rules(items) == {"match-attribute"}


def test_duplicate_distinct_attribute_is_flagged() -> None:
    items = base(device("d1", ifname="eth0"), device("d2", ifname="eth1"), device("d3", ifname="eth0"))
    items.append(claim("c", [exact("a", 2), exact("b", 1)], [("a", "d1"), ("a", "d2"), ("b", "d3")],
                       constraints=[{"distinctAttribute": "gpu.example.com/ifname"}]))
    assert rules(items) == {"distinct-attribute"}


def test_double_allocation_is_flagged() -> None:
    items = base(device("d1"), device("d2"))
    items += [claim("a", [exact()], [("req-0", "d1")]), claim("b", [exact()], [("req-0", "d1")])]
    assert rules(items) == {"double-allocation"}


def test_admin_access_may_share() -> None:
    items = base(device("d1"))
    items += [claim("a", [exact()], [("req-0", "d1")])]
    admin = claim("b", [exact(adminAccess=True)], [("req-0", "d1")])
    admin["status"]["allocation"]["devices"]["results"][0]["adminAccess"] = True
    items.append(admin)
    assert rules(items) == set()


def _partitions(driver: str = "gpu.example.com", pool: str = "pool-1", mem: str = "8Gi") -> list[dict[str, Any]]:
    def part(name: str, gi: int) -> dict[str, Any]:
        d = device(name)
        d["consumesCounters"] = [{"counterSet": "gpu-0", "counters": {"memory": {"value": f"{gi}Gi"}}}]
        return d
    return [rslice(f"{driver}-{pool}", [part("p1", 6), part("p2", 6)], pool=pool, driver=driver),
            rslice(f"{driver}-{pool}-counters", [], pool=pool, driver=driver,
                   counters=[{"name": "gpu-0", "counters": {"memory": {"value": mem}}}])]


def test_leaked_or_exceeded_counters_are_flagged() -> None:
    items = [node(), dclass(), *_partitions()]
    for s in items[2:]:
        s["spec"]["pool"]["resourceSliceCount"] = 2
    items += [claim("a", [exact()], [("req-0", "p1")]), claim("b", [exact()], [("req-0", "p2")])]
    assert rules(items) == {"counters"}


def test_counter_findings_name_the_consumers_in_kubernetes_units() -> None:
    """The message names only the devices that consume the overdrawn counter
    (p3 draws on another counter set) and gives amounts as Kubernetes does."""
    items = [node(), dclass(), *_partitions()]
    other = device("p3")
    other["consumesCounters"] = [{"counterSet": "gpu-1", "counters": {"memory": {"value": "1Gi"}}}]
    items[2]["spec"]["devices"].append(other)
    items[3]["spec"]["sharedCounters"].append({"name": "gpu-1", "counters": {"memory": {"value": "8Gi"}}})
    for s in items[2:]:
        s["spec"]["pool"]["resourceSliceCount"] = 2
    items += [claim("a", [exact()], [("req-0", "p1")]), claim("b", [exact()], [("req-0", "p2")]),
              claim("c", [exact()], [("req-0", "p3")])]
    found = [f for f in verify_state(state(items), ALL, compare=False, pending=False).findings if f.rule == "counters"]
    assert [f.message for f in found] == [
        "counter memory of counter set gpu-0 in pool gpu.example.com/pool-1 holds 8Gi, the allocated devices "
        "(p1, p2) consume 12Gi"]


def test_counters_keyed_by_pool_name_is_flagged() -> None:
    """Two drivers with a pool of the same name: driver-b's own counter set
    holds 6Gi, yet both of its partitions were allocated."""
    items = [node(), dclass("b", "driver-b"), *_partitions("driver-a", mem="12Gi"), *_partitions("driver-b", mem="6Gi")]
    for s in items[2:]:
        s["spec"]["pool"]["resourceSliceCount"] = 2
    items += [claim("b1", [exact(cls="b")], [("req-0", "p1")], driver="driver-b"),
              claim("b2", [exact(cls="b")], [("req-0", "p2")], driver="driver-b")]
    found = verify_state(state(items), ALL, compare=False, pending=False).findings
    assert {f.rule for f in found if f.level == ERROR} == {"counters"}
    assert any("driver-b/pool-1" in f.message for f in found)


def test_shared_device_capacity_exceeded_is_flagged() -> None:
    d = device("d1")
    d["allowMultipleAllocations"] = True
    d["capacity"] = {"memory": {"value": "8Gi"}}
    items = base(d)
    for i, gi in enumerate((6, 6)):
        c = claim(f"s{i}", [exact(capacity={"requests": {"memory": f"{gi}Gi"}})], [("req-0", "d1")])
        r = c["status"]["allocation"]["devices"]["results"][0]
        r["shareID"] = f"00000000-0000-0000-0000-00000000000{i}"
        r["consumedCapacity"] = {"memory": f"{gi}Gi"}
        items.append(c)
    assert rules(items) == {"capacity"}


def test_all_with_prioritized_list_missing_devices_is_flagged() -> None:
    items = base(device("d1"), device("d2"))
    req = {"name": "r", "firstAvailable": [{"name": "all", "deviceClassName": "gpu", "allocationMode": "All"},
                                           {"name": "one", "deviceClassName": "gpu", "count": 1}]}
    items.append(claim("c", [req], [("r/all", "d1")]))
    assert rules(items) == {"all-devices"}


def test_all_with_invalid_pool_is_flagged() -> None:
    items = [node(), dclass(), rslice("s1", [device("d1")]),
             # two slices of one pool publish device x: each is valid, the pool is not
             rslice("bad-1", [device("x")], pool="broken", count=2), rslice("bad-2", [device("x")], pool="broken", count=2)]
    items.append(claim("c", [exact(allocationMode="All")], [("req-0", "d1")]))
    assert "all-devices" in rules(items)


def test_untolerated_taint_and_wrong_selector_are_flagged() -> None:
    d = device("d1")
    d["taints"] = [{"key": "broken", "effect": "NoSchedule"}]
    items = base(d, device("d2"))
    items.append(claim("c", [exact()], [("req-0", "d1")]))
    items.append(claim("e", [exact(cls="none")], [("req-0", "d2")]))
    items.append({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "none"},
                  "spec": {"selectors": [{"cel": {"expression": "false"}}]}})
    assert rules(items) == {"taint", "selector"}


def test_pod_on_a_node_the_claim_does_not_admit_is_flagged() -> None:
    items = base(device("d1")) + [node("node-2"), claim("c", [exact()], [("req-0", "d1")]),
                                  pod("p", "c", node_name="node-2")]
    found = rules(items)
    assert "pod-node" in found


def test_wrong_node_selector_count_and_unknown_device_are_flagged() -> None:
    items = base(device("d1"), device("d2"))
    items.append(claim("c", [exact(count=2)], [("req-0", "d1"), ("req-0", "nope")], node=None))
    items.append(claim("e", [exact(count=2)], [("req-0", "d2")]))
    assert rules(items) == {"device-exists", "count"}
    items[-2] = claim("c", [exact()], [("req-0", "d1")], node=None)
    assert rules(items) == {"node-selector", "count"}


def test_rule_checker_imports_no_solver() -> None:
    """The checker must stay independent of what it checks."""
    import subprocess
    import sys

    code = ("import sys, dralloc.checker.rules; "
            "bad = [m for m in sys.modules if m.startswith(('ortools', 'dralloc.solver', 'dralloc.encoders'))]; "
            "print(bad); sys.exit(1 if bad else 0)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0
