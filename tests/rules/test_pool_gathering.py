"""PG-*: which slices make up which pools for a node, and in what order the
search sees their devices (spec §2)."""

from __future__ import annotations

from tests.rules.rulekit import (
    claim,
    cls,
    dev,
    error,
    picked,
    req,
    run,
    same_in_first_fit,
    slc,
    unsat,
)

PART = ["DRAPartitionableDevices"]
INCUBATING = ["DRAConsumableCapacity"]  # any incubating-only gate: sorted pools and slices


def test_pg1_slices_of_other_nodes_are_not_candidates() -> None:
    out = same_in_first_fit([cls(), slc("s1", [dev("d1")], where={"nodeName": "node-2"}),
                             slc("s2", [dev("d2")], pool="pool-2", where={"allNodes": True})],
                            [claim("c", req("r"))])
    assert picked(out) == [["r=pool-2/d2"]]


def test_pg3_slice_without_node_fields_is_ignored() -> None:
    out = same_in_first_fit([cls(), slc("s1", [dev("d1")], where={})], [claim("c", req("r"))])
    assert unsat(out)


def test_pg4_unparsable_node_selector_is_fatal_before_any_claim() -> None:
    bad = {"nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "region", "operator": "Bogus", "values": ["x"]}]}]}}
    out = run([cls(), slc("s1", [dev("d1")], where=bad)], [])
    assert error(out).startswith(
        "gather pool information: failed to perform node selection for slice s1: failed to parse node selector")


def test_pg5_newest_generation_wins() -> None:
    objs = [cls(), slc("old", [dev("d-old")], gen=1), slc("new", [dev("d-new")], gen=2)]
    assert picked(same_in_first_fit(objs, [claim("c", req("r"))])) == [["r=pool-1/d-new"]]


def test_pg6_more_slices_than_announced_is_incomplete_and_skipped() -> None:
    objs = [cls(), slc("a", [dev("d1")], count=1), slc("b", [dev("d2")], count=1)]
    assert unsat(same_in_first_fit(objs, [claim("c", req("r"))]))


def test_pg7_newer_generation_elsewhere_makes_incomplete_pool_obsolete() -> None:
    # node-1 sees one of two gen-1 slices; node-2 has gen 2: the pool is
    # dropped, so an All request does not complain about an incomplete pool.
    objs = [cls(), slc("a", [dev("d1")], count=2),
            slc("b", [dev("d2")], gen=2, count=1, where={"nodeName": "node-2"}),
            slc("x", [dev("x1")], pool="pool-2")]
    out = same_in_first_fit(objs, [claim("c", req("r", allocationMode="All"))])
    assert picked(out) == [["r=pool-2/x1"]]


def test_pg8_incomplete_pool_is_fatal_for_all() -> None:
    objs = [cls(), slc("a", [dev("d1")], count=2)]
    msg = error(run(objs, [claim("c", req("r", allocationMode="All"))]))
    assert msg == ("claim c, request r: asks for all devices, but resource pool "
                   "driver-a/pool-1 is currently being updated")


def test_pg9_pool_completed_by_slices_of_other_nodes() -> None:
    objs = [cls(), slc("a", [dev("d1")], count=2), slc("b", [dev("d2")], count=2, where={"nodeName": "node-2"})]
    assert picked(same_in_first_fit(objs, [claim("c", req("r"))])) == [["r=pool-1/d1"]]


def test_pg10_stale_generation_used_when_it_looks_complete() -> None:
    objs = [cls(), slc("a", [dev("d-old")], gen=1),
            slc("b", [dev("d-new")], gen=2, where={"nodeName": "node-2"})]
    assert picked(same_in_first_fit(objs, [claim("c", req("r"))])) == [["r=pool-1/d-old"]]


def test_pg11_slices_are_searched_by_name() -> None:
    objs = [cls(), slc("slice-b", [dev("b1")], count=2), slc("slice-a", [dev("a1")], count=2)]
    assert picked(same_in_first_fit(objs, [claim("c", req("r"))], INCUBATING)) == [["r=pool-1/a1"]]


def test_pg12_duplicate_device_names_make_the_pool_invalid_error_only_on_failure() -> None:
    bad = slc("bad", [dev("d1"), dev("d1")], driver="driver-b")
    ok = [cls(), bad, slc("s1", [dev("d1")])]
    assert picked(run(ok, [claim("c", req("r"))])) == [["r=pool-1/d1"]]
    assert error(run(ok, [claim("c", req("r", count=2))])) == "invalid resource pools were encountered"


def test_pg12_counter_set_of_another_pool_is_not_found() -> None:
    counters = slc("cs", [], pool="pool-2", sharedCounters=[{"name": "set", "counters": {"mem": {"value": "8"}}}])
    part = dev("p1", consumesCounters=[{"counterSet": "set", "counters": {"mem": {"value": "1"}}}])
    out = run([cls(), counters, slc("s1", [part])], [claim("c", req("r"))], PART)
    assert error(out) == "invalid resource pools were encountered"


def test_pg14_pools_in_driver_then_pool_order() -> None:
    objs = [cls("class-a", "driver-b"), cls("class-any", "driver-b"),
            slc("s1", [dev("z")], driver="driver-b", pool="pool-b"),
            slc("s2", [dev("y")], driver="driver-b", pool="pool-a")]
    assert picked(same_in_first_fit(objs, [claim("c", req("r"))], INCUBATING)) == [["r=pool-a/y"]]


def test_pg15_binding_condition_pools_last_even_with_feature_off() -> None:
    # An empty bindingConditions list still moves the pool to the end.
    objs = [cls(), slc("s1", [dev("d1", bindingConditions=[])], pool="pool-a"),
            slc("s2", [dev("d2")], pool="pool-b")]
    assert picked(same_in_first_fit(objs, [claim("c", req("r"))], INCUBATING)) == [["r=pool-b/d2"]]
