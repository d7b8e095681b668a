"""CC-*: consumable capacity on shared devices (spec §4.6, T-31..T-34, T-41).
Exact quantities only."""

from __future__ import annotations

from typing import Any

from tests.rules.rulekit import (
    all_req,
    claim,
    cls,
    dev,
    picked,
    req,
    run,
    same_in_first_fit,
    slc,
    unsat,
)

CC = ["DRAConsumableCapacity"]


def shared(name: str, policy: dict[str, Any] | None = None, value: str = "8Gi") -> dict[str, Any]:
    cap: dict[str, Any] = {"value": value}
    if policy:
        cap["requestPolicy"] = policy
    return dev(name, allowMultipleAllocations=True, capacity={"mem": cap})


def need(q: str) -> dict[str, Any]:
    return {"requests": {"mem": q}}


def consumed(out: Any) -> list[list[str | None]]:
    return [[str(r.consumed_capacity["mem"]) if r.consumed_capacity else None for r in a.devices.results]
            for a in out.allocations]


def test_t31_no_request_no_policy_consumes_the_whole_device() -> None:
    objs = [cls(), slc("s1", [shared("d1")])]
    out = same_in_first_fit(objs, [claim("c0", req("r")), claim("c1", req("r"))], CC)
    assert unsat(out)
    one = run(objs, [claim("c0", req("r"))], CC)
    assert consumed(one) == [["8Gi"]]
    assert one.allocations is not None and one.allocations[0].devices.results[0].share_id == "share"


def test_t31_policy_default_is_consumed() -> None:
    objs = [cls(), slc("s1", [shared("d1", {"default": "2Gi", "validRange": {"min": "1Gi"}})])]
    out = same_in_first_fit(objs, [claim("c0", req("r")), claim("c1", req("r"))], CC)
    assert picked(out) == [["r=pool-1/d1"], ["r=pool-1/d1"]]
    assert consumed(out) == [["2Gi"], ["2Gi"]]


def test_t32_step_rounding() -> None:
    objs = [cls(), slc("s1", [shared("d1", {"default": "2", "validRange": {"min": "2", "step": "2"}}, "10")])]
    out = run(objs, [claim("c", req("r", capacity=need("3")))], CC)
    assert consumed(out) == [["4"]]


def test_t32_unknown_capacity_name_skips_the_device() -> None:
    objs = [cls(), slc("s1", [shared("d1"), dev("plain", capacity={"other": {"value": "1"}})])]
    c = claim("c", req("r", capacity={"requests": {"other": "1"}}))
    assert picked(same_in_first_fit(objs, [c], CC)) == [["r=pool-1/plain"]]


def test_t33_one_shared_device_serves_several_requests_and_claims() -> None:
    objs = [cls(), slc("s1", [shared("d1")])]
    c0 = claim("c0", req("a", capacity=need("2Gi")), req("b", capacity=need("2Gi")))
    c1 = claim("c1", req("a", capacity=need("4Gi")))
    out = same_in_first_fit(objs, [c0, c1], CC)
    assert picked(out) == [["a=pool-1/d1", "b=pool-1/d1"], ["a=pool-1/d1"]]
    assert unsat(same_in_first_fit(objs, [c0, claim("c1", req("a", capacity=need("5Gi")))], CC))


def test_t34_all_list_uses_committed_capacity_only() -> None:
    objs = [cls(), slc("s1", [shared("d1")])]
    c0 = claim("c0", req("r", capacity=need("6Gi")))
    c1 = claim("c1", all_req("r", capacity=need("4Gi")))
    # d1 is in c1's All list (8Gi free when the list is built); c0's tentative
    # 6Gi then makes the All request fail instead of shrinking the list.
    assert unsat(run(objs, [c0, c1], CC))


def test_t41_device_without_capacities_still_gets_a_share() -> None:
    objs = [cls(), slc("s1", [dev("d1", allowMultipleAllocations=True)])]
    out = same_in_first_fit(objs, [claim("c0", req("r")), claim("c1", req("r"))], CC)
    assert picked(out) == [["r=pool-1/d1"], ["r=pool-1/d1"]]
    assert out.allocations is not None
    first = out.allocations[0].devices.results[0]
    assert first.share_id == "share" and first.consumed_capacity is None
