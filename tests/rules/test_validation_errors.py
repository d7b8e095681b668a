"""VR-*: request validation before the search, error texts exactly as
Kubernetes words them, first failure wins (spec §3)."""

from __future__ import annotations

import pytest

from tests.rules.rulekit import all_req, claim, cls, dev, error, picked, prio, req, run, slc, sub

OBJS = [cls(), slc("s1", [dev("d1"), dev("d2")])]
BINDING = ["DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus"]  # selects incubating


def test_vr1_subrequests_without_prioritized_list() -> None:
    out = run(OBJS, [claim("c", prio("r", sub("s")), namespace="ns")])
    assert error(out) == "claim ns/c, request r: has subrequests, but the DRAPrioritizedList feature is disabled"


def test_vr2_capacity_request_without_consumable_capacity() -> None:
    c = claim("c", req("r", capacity={"requests": {"mem": "1"}}))
    assert error(run(OBJS, [c], BINDING)) == (
        "claim c, request r: has capacity requests, but the DRAConsumableCapacity feature is disabled")
    c2 = claim("c", prio("r", sub("s0", capacity={"requests": {"mem": "1"}})))
    assert error(run(OBJS, [c2], [*BINDING, "DRAPrioritizedList"])) == (
        "claim c, subrequest s0: has capacity requests, but the DRAConsumableCapacity feature is disabled")


def test_vr4_admin_access_false_is_still_an_error_when_disabled() -> None:
    out = run(OBJS, [claim("c", req("r", adminAccess=False))])
    assert error(out) == "claim c, request r: admin access is requested, but the feature is disabled"


def test_vr6_unknown_class() -> None:
    out = run(OBJS, [claim("c", req("r", "no-such-class"))])
    assert error(out).startswith("claim c, request r: could not retrieve device class no-such-class")


def test_vr8_unsupported_mode() -> None:
    out = run(OBJS, [claim("c", req("r", allocationMode="Some"))])
    assert error(out) == "claim c, request r: unsupported count mode Some"


def test_vr8_all_with_an_invalid_pool_of_another_driver() -> None:
    objs = [*OBJS, slc("bad", [dev("x"), dev("x")], driver="driver-b")]
    out = run(objs, [claim("c", all_req("r"))])
    assert error(out) == ("claim c, request r: asks for all devices, but resource pool "
                          "driver-b/pool-1 is currently invalid")


def test_vr8_subrequest_errors_name_the_subrequest_only() -> None:
    objs = [*OBJS, slc("half", [dev("x")], pool="pool-2", count=2)]
    c = claim("c", prio("r", sub("first"), sub("second", allocationMode="All")))
    # the later All alternative fails the whole call although "first" would fit (T-7)
    assert error(run(objs, [c], ["DRAPrioritizedList"])) == (
        "claim c, request second: asks for all devices, but resource pool driver-a/pool-2 is currently being updated")


def test_vr9_claim_limit_uses_the_smallest_alternative() -> None:
    many = [cls(), slc("s1", [dev(f"d{i}") for i in range(40)])]
    assert error(run(many, [claim("c", req("a", count=20), req("b", count=13))])) == (
        "claim c: number of requested devices 33 exceeds the claim limit of 32")
    c = claim("c", req("a", count=20), prio("b", sub("big", count=13), sub("small", count=12)))
    assert picked(run(many, [c], ["DRAPrioritizedList"]))[0][-1] == "b/small=pool-1/d31"


def test_vr9_all_matching_more_than_32_is_fatal() -> None:
    many = [cls(), slc("s1", [dev(f"d{i}") for i in range(33)])]
    assert error(run(many, [claim("c", all_req("r"))])) == (
        "claim c: number of requested devices 33 exceeds the claim limit of 32")


@pytest.mark.parametrize(("features", "expected"), [
    ([], "claim c, constraint #0: empty constraint (unsupported constraint type?)"),
    (BINDING, None),  # T-39: the variant decides, not DRAConsumableCapacity
])
def test_vr10_distinct_attribute_depends_on_variant(features: list[str], expected: str | None) -> None:
    objs = [cls(), slc("s1", [dev("d1", {"x": 1}), dev("d2", {"x": 1}), dev("d3", {"x": 2})])]
    c = claim("c", req("r", count=2), constraints=[{"distinctAttribute": "driver-a/x"}])
    out = run(objs, [c], features)
    if expected:
        assert error(out) == expected
    else:
        assert picked(out) == [["r=pool-1/d1", "r=pool-1/d3"]]


def test_validation_runs_claim_by_claim_request_by_request() -> None:
    c0 = claim("c0", req("ok"), req("bad", "missing-class"))
    c1 = claim("c1", prio("r", sub("s")))
    assert error(run(OBJS, [c0, c1])).startswith("claim c0, request bad: could not retrieve device class")
    assert error(run(OBJS, [c1, c0])).startswith("claim c1, request r: has subrequests")
