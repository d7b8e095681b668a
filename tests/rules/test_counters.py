"""CN-*: shared counters of partitionable devices (spec §4.5, T-10, T-11,
T-13, T-14, T-15)."""

from __future__ import annotations

from typing import Any

from tests.rules.rulekit import (
    claim,
    cls,
    dev,
    held,
    picked,
    req,
    run,
    same_in_first_fit,
    slc,
    unsat,
)

PART = ["DRAPartitionableDevices"]


def counters(name: str = "cs-slice", pool: str = "pool-1", driver: str = "driver-a",
             where: dict[str, Any] | None = None, count: int = 2, **values: str) -> Any:
    sets = [{"name": "set", "counters": {k: {"value": v} for k, v in values.items()}}]
    return slc(name, [], pool=pool, driver=driver, count=count, where=where or {"nodeName": "node-1"},
               sharedCounters=sets)


def part(name: str, taints: list[dict[str, str]] | None = None, **use: str) -> dict[str, Any]:
    extra: dict[str, Any] = {"taints": taints} if taints else {}
    return dev(name, consumesCounters=[{"counterSet": "set", "counters": {k: {"value": v} for k, v in use.items()}}],
               **extra)


def test_cn3_partitions_exhaust_the_counter_set() -> None:
    objs = [cls(), counters(mem="8Gi"), slc("devs", [part("p1", mem="6Gi"), part("p2", mem="4Gi"),
                                                     part("p3", mem="2Gi")], count=2)]
    out = same_in_first_fit(objs, [claim("c", req("r", count=2))], PART)
    assert picked(out) == [["r=pool-1/p1", "r=pool-1/p3"]]


def test_dc10_counter_consumers_refused_without_the_feature() -> None:
    objs = [cls(), slc("devs", [part("p1", mem="1")])]
    assert unsat(same_in_first_fit(objs, [claim("c", req("r"))]))


def test_t10_allocated_device_on_another_node_consumes_the_set() -> None:
    objs = [cls(), counters(where={"allNodes": True}, count=3, mem="8Gi"),
            slc("remote", [part("far", mem="6Gi")], count=3, where={"nodeName": "node-2"}),
            slc("local", [part("big", mem="6Gi"), part("small", mem="2Gi")], count=3)]
    out = same_in_first_fit(objs, [claim("c", req("r"))], PART, allocated=[held("far")])
    assert picked(out) == [["r=pool-1/small"]]


def test_t11_counters_leak_after_a_taint_refusal() -> None:
    taint = [{"key": "k", "value": "v", "effect": "NoSchedule"}]
    objs = [cls(), counters(mem="8"), slc("devs", [part("p1", mem="6", taints=taint), part("p2", mem="4")])]
    # p1 passes the counter check, is refused by its taint and keeps its 6;
    # p2 then sees 10 > 8. The true usage (4) would fit.
    assert unsat(run(objs, [claim("c", req("r"))], [*PART, "DRADeviceTaints"]))


def test_t13_counters_keyed_by_pool_name_across_drivers() -> None:
    objs = [cls(), cls("class-b", "driver-b"),
            counters(mem="4"), slc("devs", [part("a1", mem="1")]),
            counters("cs-b", driver="driver-b", mem="8"),
            slc("devs-b", [part("b1", mem="6")], driver="driver-b")]
    # driver-a/pool-1's set (4) is cached for the name "pool-1" and checked
    # against 1 + 6: refused although driver-b's own set holds 8.
    assert unsat(run(objs, [claim("c", req("a"), req("b", "class-b"))], PART))
    assert picked(run(objs, [claim("c", req("b", "class-b"))], PART)) == [["b=pool-1/b1"]]


def test_t14_an_overdrawn_counter_blocks_the_whole_pool() -> None:
    sets = [{"name": "set", "counters": {"mem": {"value": "4"}}},
            {"name": "other", "counters": {"x": {"value": "5"}}}]
    objs = [cls(), slc("cs", [], count=2, sharedCounters=sets),
            slc("devs", [part("p1", mem="4"), part("p2", mem="4"),
                         dev("p3", consumesCounters=[{"counterSet": "other", "counters": {"x": {"value": "1"}}}])],
                count=2)]
    assert unsat(run(objs, [claim("c", req("r", "class-a", 1, 'device.attributes.size() >= 0'))], PART,
                     allocated=[held("p1", "p2")]))


def test_t15_admin_access_on_an_allocated_partition_counts_again() -> None:
    objs = [cls(), counters(mem="8"), slc("devs", [part("p1", mem="6")])]
    admin = claim("c", req("r", adminAccess=True))
    assert unsat(run(objs, [admin], [*PART, "DRAAdminAccess"], allocated=[held("p1")]))
    roomy = [cls(), counters(mem="12"), slc("devs", [part("p1", mem="6")])]
    assert picked(run(roomy, [admin], [*PART, "DRAAdminAccess"], allocated=[held("p1")])) == [["r=pool-1/p1"]]
