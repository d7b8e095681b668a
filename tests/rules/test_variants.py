"""IN-11/IN-12 and §7: which allocator variant the features select, and the
stable/experimental deltas."""

from __future__ import annotations

from dralloc.features import Features, Variant
from tests.rules.rulekit import claim, cls, dev, error, held, picked, req, run, slc, unsat


def test_in12_variant_selection() -> None:
    assert Features.from_gates([]).variant() is Variant.STABLE
    assert Features.from_gates(["DRAPrioritizedList", "DRADeviceTaints"]).variant() is Variant.STABLE
    assert Features.from_gates(["DRAConsumableCapacity"]).variant() is Variant.INCUBATING
    assert Features.from_gates(["DRADeviceBindingConditions"]).variant() is Variant.INCUBATING
    assert Features.from_gates(["DRAListTypeAttributes"]).variant() is Variant.EXPERIMENTAL


def test_v3_stable_keeps_input_order_of_slices_in_a_pool() -> None:
    # slice-b (all nodes) comes first in the input, slice-a (this node) second.
    objs = [cls(), slc("slice-b", [dev("b1")], count=2, where={"allNodes": True}),
            slc("slice-a", [dev("a1")], count=2)]
    assert picked(run(objs, [claim("c", req("r"))])) == [["r=pool-1/b1"]]
    assert picked(run(objs, [claim("c", req("r"))], ["DRAConsumableCapacity"])) == [["r=pool-1/a1"]]


def test_v3_stable_takes_counter_slices_from_any_node() -> None:
    sets = [{"name": "set", "counters": {"mem": {"value": "4"}}}]
    use = [{"counterSet": "set", "counters": {"mem": {"value": "4"}}}]
    objs = [cls(), slc("cs", [], gen=2, count=1, where={"nodeName": "node-2"}, sharedCounters=sets),
            slc("devs", [dev("p1", consumesCounters=use)], gen=1, count=1)]
    # stable: the newer counter slice of node-2 replaces the device slice in
    # the pool, so nothing is offered; incubating never sees node-2's slice,
    # so the device references a counter set its pool lacks (invalid pool).
    assert unsat(run(objs, [claim("c", req("r"))], ["DRAPartitionableDevices"]))
    assert error(run(objs, [claim("c", req("r"))], ["DRAPartitionableDevices", "DRAConsumableCapacity"])) \
        == "invalid resource pools were encountered"


def test_v1_stable_ignores_capacity_requests_and_binding_devices() -> None:
    objs = [cls(), slc("s1", [dev("bound", bindingConditions=["x"]), dev("d1")])]
    c = claim("c", req("r", capacity={"requests": {"mem": "1"}}))
    assert picked(run(objs, [c])) == [["r=pool-1/d1"]]


def test_in2_shares_are_exclusive_when_consumable_capacity_is_off() -> None:
    objs = [cls(), slc("s1", [dev("d1", allowMultipleAllocations=True)])]
    share = held("d1", shareID="11111111-2222-3333-4444-555555555555")
    # incubating with shares: the device stays shareable; with the feature off
    # (stable) the scheduler records the result as an exclusive allocation
    assert picked(run(objs, [claim("c", req("r"))], ["DRAConsumableCapacity"], allocated=[share])) \
        == [["r=pool-1/d1"]]
    assert unsat(run(objs, [claim("c", req("r"))], allocated=[share]))


def test_v7_experimental_without_list_flag_is_scalar_mode() -> None:
    objs = [cls(), slc("s1", [dev("d1", {"v": {"ints": [1]}}), dev("d2", {"v": {"ints": [1]}})])]
    c = claim("c", req("r", count=2), constraints=[{"matchAttribute": "driver-a/v"}])
    assert unsat(run(objs, [c], ["DRAConsumableCapacity"], variant="experimental"))
    assert picked(run(objs, [c], ["DRAListTypeAttributes"])) == [["r=pool-1/d1", "r=pool-1/d2"]]
