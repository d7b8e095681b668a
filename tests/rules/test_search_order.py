"""S-*: the depth-first search — combinations in device order, backtracking
across requests, claims and sub-request choices, the 32-result signal, and the
exact number of allocateOne invocations Kubernetes pins (spec §4.2, §10)."""

from __future__ import annotations

import pytest

from tests.rules.rulekit import (
    all_req,
    claim,
    cls,
    dev,
    picked,
    prio,
    req,
    run,
    same_in_first_fit,
    slc,
    sub,
    unsat,
)

TYPE_X = 'device.attributes["driver-a"].type == "X"'
TYPE_Y = 'device.attributes["driver-a"].type == "Y"'
XYY = [cls(), slc("s1", [dev("device-1", {"type": "X"}), dev("device-2", {"type": "Y"}),
                         dev("device-3", {"type": "Y"})])]
PRIO = ["DRAPrioritizedList"]


@pytest.mark.parametrize(("variant", "steps"), [("incubating", 12), ("stable", 14)])
def test_t2_backtracking_revisits_earlier_request(variant: str, steps: int) -> None:
    c = claim("claim-0", req("req-1", count=2), req("req-2", "class-a", 1, TYPE_X))
    out = run(XYY, [c], variant=variant)
    assert picked(out) == [["req-1=pool-1/device-2", "req-1=pool-1/device-3", "req-2=pool-1/device-1"]]
    assert out.steps == steps


@pytest.mark.parametrize(("variant", "steps"), [("incubating", 16), ("stable", 65)])
def test_t3_combinations_not_permutations(variant: str, steps: int) -> None:
    objs = [cls(), slc("s1", [dev(f"d{i}") for i in range(4)])]
    out = run(objs, [claim("c", req("r", count=5))], variant=variant)
    assert unsat(out)
    assert out.steps == steps


def test_t1_backtracking_across_claims() -> None:
    big = 'device.attributes["driver-a"].size >= 2'
    objs = [cls(), slc("s1", [dev("d2", {"size": 2}), dev("d1", {"size": 1})])]
    out = same_in_first_fit(objs, [claim("small", req("r")), claim("large", req("r", "class-a", 1, big))])
    assert picked(out) == [["r=pool-1/d1"], ["r=pool-1/d2"]]


def test_s4_prioritized_list_with_backtracking_into_the_choice() -> None:
    # T-17: req-0 would take the only X device with its first alternative;
    # req-1 needs it, so req-0 falls back to its second alternative.
    c = claim("c", prio("req-0", sub("x", "class-a", 1, TYPE_X), sub("y", "class-a", 1, TYPE_Y)),
              req("req-1", "class-a", 1, TYPE_X))
    out = same_in_first_fit(XYY, [c], PRIO)
    assert picked(out) == [["req-0/y=pool-1/device-2", "req-1=pool-1/device-1"]]


@pytest.mark.parametrize(("variant", "steps"), [("incubating", 26), ("stable", 32)])
def test_check_combinations_with_prioritized_list_steps(variant: str, steps: int) -> None:
    c = claim("claim-0",
              prio("req-1", sub("subReq-0", "class-a", 3, TYPE_Y), sub("subReq-1", "class-a", 2)),
              prio("req-2", sub("subReq-0", "class-a", 2), sub("subReq-1", "class-a", 1, TYPE_X)))
    out = run(XYY, [c], PRIO, variant=variant)
    assert picked(out) == [["req-1/subReq-1=pool-1/device-2", "req-1/subReq-1=pool-1/device-3",
                            "req-2/subReq-1=pool-1/device-1"]]
    assert out.steps == steps


def test_t18_max_size_signal_skips_to_next_alternative() -> None:
    # 42 invocations, as the Go test pins for this case.
    objs = [cls("class-a", "driver-a"), cls("class-b", "driver-b"),
            slc("slice-1", [dev(f"device-{i}") for i in range(31)]),
            slc("slice-2", [dev(f"device-{i}") for i in range(2)], driver="driver-b", pool="pool-2")]
    c = claim("claim-0", prio("req-0", sub("subReq-0", "class-a", 0, allocationMode="All"),
                              sub("subReq-1", "class-a", 2)), req("req-1", "class-b", 2))
    out = run(objs, [c], PRIO)
    assert picked(out) == [["req-0/subReq-1=pool-1/device-0", "req-0/subReq-1=pool-1/device-1",
                            "req-1=pool-2/device-0", "req-1=pool-2/device-1"]]
    assert out.steps == 42


def test_t6_all_with_no_devices_moves_to_next_alternative() -> None:
    c = claim("c", prio("r", sub("none", "class-a", 0, 'device.driver == "nobody"', allocationMode="All"),
                        sub("one")))
    assert picked(same_in_first_fit(XYY, [c], PRIO)) == [["r/one=pool-1/device-1"]]


def test_t8_all_fails_when_a_matching_device_is_in_use() -> None:
    # claim-0 takes device-1; claim-1 wants all devices: no allocation, no skip
    out = same_in_first_fit(XYY, [claim("c0", req("r")), claim("c1", all_req("r"))])
    assert unsat(out)


def test_t35_no_claims_is_success_with_no_results() -> None:
    out = run(XYY, [])
    assert picked(out) == []
    assert out.steps == 1


def test_t40_count_zero_succeeds_without_devices() -> None:
    out = same_in_first_fit(XYY, [claim("c", req("r", count=0))])
    assert picked(out) == [[]]
    assert out.allocations is not None and out.allocations[0].node_selector is None


def test_s2_in_use_devices_are_skipped_before_cel() -> None:
    # T-24: device-1 is held, so the request selector that would fail on it
    # (missing attribute) is never evaluated there.
    from tests.rules.rulekit import held

    bad = 'device.attributes["driver-a"].type == "Y"'
    objs = [cls(), slc("s1", [dev("device-1"), dev("device-2", {"type": "Y"})])]
    out = run(objs, [claim("c", req("r", "class-a", 1, bad))], allocated=[held("device-1")])
    assert picked(out) == [["r=pool-1/device-2"]]
