"""CT-*: matchAttribute / distinctAttribute as the search checks them,
including the Kubernetes quirks (spec §4.4, T-4, T-5, T-19..T-22)."""

from __future__ import annotations

from dralloc.features import Features
from tests.rules.rulekit import (
    all_req,
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

INCUBATING = ["DRAConsumableCapacity"]
LISTS = ["DRAListTypeAttributes"]


def test_t4_missing_attribute_rejects_the_device() -> None:
    objs = [cls(), slc("s1", [dev("d1")])]
    c = claim("c", req("r"), constraints=[{"matchAttribute": "driver-a/nope"}])
    assert unsat(same_in_first_fit(objs, [c]))


def test_ct2_bare_id_found_only_for_the_driver_domain() -> None:
    objs = [cls(), slc("s1", [dev("d1", {"model": "a"}), dev("d2", {"model": "a"})])]
    ok = claim("c", req("r", count=2), constraints=[{"matchAttribute": "driver-a/model"}])
    assert picked(same_in_first_fit(objs, [ok])) == [["r=pool-1/d1", "r=pool-1/d2"]]
    other = claim("c", req("r", count=2), constraints=[{"matchAttribute": "other.io/model"}])
    assert unsat(same_in_first_fit(objs, [other]))


def test_t5_all_mode_constraint_violation_is_fatal() -> None:
    objs = [cls(), slc("s1", [dev("d1", {"n": 1}), dev("d2", {"n": 2})])]
    c = claim("c", all_req("r"), constraints=[{"matchAttribute": "driver-a/n"}])
    assert error(run(objs, [c])) == (
        "claim c, request r: cannot add device driver-a/pool-1/d2 because a claim constraint would not be satisfied")


def test_t19_distinct_remembers_only_the_last_device_per_request() -> None:
    objs = [cls(), slc("s1", [dev("d1", {"v": "X"}), dev("d2", {"v": "Y"}), dev("d3", {"v": "X"})])]
    c = claim("c", req("a", count=2), req("b", "class-a", 1, 'device.attributes["driver-a"].v == "X"'),
              constraints=[{"distinctAttribute": "driver-a/v"}])
    # b's X duplicates a's first device: Kubernetes accepts it
    assert picked(run(objs, [c], INCUBATING)) == [["a=pool-1/d1", "a=pool-1/d2", "b=pool-1/d3"]]
    three = claim("c", req("a", count=3), constraints=[{"distinctAttribute": "driver-a/v"}])
    assert picked(run(objs, [three], INCUBATING)) == [["a=pool-1/d1", "a=pool-1/d2", "a=pool-1/d3"]]


def test_ct11_value_less_attribute_passes_when_nothing_is_remembered() -> None:
    # a: d1, d2 -> b conflicts with d2 -> undo d2 forgets a's value entirely;
    # d3 (list-only, no scalar) is then compared with nothing and accepted.
    objs = [cls(), slc("s1", [dev("d1", {"v": 1}), dev("d2", {"v": 2}),
                              dev("d3", {"v": {"strings": ["s"]}}), dev("d4", {"v": 2, "b": True})])]
    only_b = 'has(device.attributes["driver-a"].b)'
    not_b = '!has(device.attributes["driver-a"].b)'
    c = claim("c", req("a", "class-a", 2, not_b), req("b", "class-a", 1, only_b),
              constraints=[{"distinctAttribute": "driver-a/v"}])
    assert picked(run(objs, [c], INCUBATING)) == [["a=pool-1/d1", "a=pool-1/d3", "b=pool-1/d4"]]


def test_t20_constraint_on_a_subrequest_name() -> None:
    from tests.rules.rulekit import prio, sub

    objs = [cls(), slc("s1", [dev("d1", {"n": 1}), dev("d2", {"n": 2}), dev("d3", {"n": 2})])]
    c = claim("c", prio("r", sub("s0", count=2)), req("q"), constraints=[{"matchAttribute": "driver-a/n",
                                                                          "requests": ["r/s0"]}])
    assert picked(same_in_first_fit(objs, [c], ["DRAPrioritizedList"])) == [
        ["r/s0=pool-1/d2", "r/s0=pool-1/d3", "q=pool-1/d1"]]


def test_t21_sticky_intersection_in_set_mode() -> None:
    lists = [dev("d1", {"v": {"strings": ["a", "b"]}}), dev("d2", {"v": {"strings": ["b", "c"]}}),
             dev("d3", {"v": {"strings": ["a"]}})]
    objs = [cls(), slc("s1", lists)]
    d2 = 'device.attributes["driver-a"].v.exists(x, x == "c")'
    c = claim("c", req("a", count=2), req("b", "class-a", 1, d2),
              constraints=[{"matchAttribute": "driver-a/v", "requests": ["a"]}])
    # {d1,d2} leaves {b}; b needs d2, so a backtracks to {d1,d3}: {a,b}∩{a}
    # would be {a}, but in 1.36 the intersection stays {b} and d3 is refused.
    assert unsat(run(objs, [c], Features.from_gates(LISTS, "1.36")))  # type: ignore[arg-type]
    # 1.37 (KEP-5491's second alpha, kubernetes/kubernetes#140325) restores it.
    assert picked(same_in_first_fit(objs, [c], Features.from_gates(LISTS, "1.37"))) == [  # type: ignore[arg-type]
        ["a=pool-1/d1", "a=pool-1/d3", "b=pool-1/d2"]]


def test_ct8_set_mode_accepts_overlapping_lists() -> None:
    objs = [cls(), slc("s1", [dev("d1", {"v": {"ints": [1, 2]}}), dev("d2", {"v": {"ints": [2, 3]}})])]
    c = claim("c", req("r", count=2), constraints=[{"matchAttribute": "driver-a/v"}])
    assert picked(same_in_first_fit(objs, [c], LISTS)) == [["r=pool-1/d1", "r=pool-1/d2"]]


def test_t22_scalar_mode_never_matches_two_list_attributes() -> None:
    objs = [cls(), slc("s1", [dev("d1", {"v": {"ints": [1]}}), dev("d2", {"v": {"ints": [1]}})])]
    c = claim("c", req("r", count=2), constraints=[{"matchAttribute": "driver-a/v"}])
    assert unsat(run(objs, [c], INCUBATING))
    assert picked(run(objs, [claim("c", req("r"), constraints=[{"matchAttribute": "driver-a/v"}])],
                      INCUBATING)) == [["r=pool-1/d1"]]


def test_ct13_distinct_sets_must_be_disjoint() -> None:
    objs = [cls(), slc("s1", [dev("d1", {"v": {"ints": [1, 2]}}), dev("d2", {"v": {"ints": [2, 3]}}),
                              dev("d3", {"v": 4})])]
    c = claim("c", req("a"), req("b"), constraints=[{"distinctAttribute": "driver-a/v"}])
    assert picked(run(objs, [c], LISTS)) == [["a=pool-1/d1", "b=pool-1/d3"]]


def test_ct11_value_less_attribute_accepted_only_as_the_first_device() -> None:
    # distinctAttribute over [list-only, 1, 1, 2]: the list-only device is taken
    # first (nothing remembered yet) and conflicts with nothing later; the
    # scalars must still differ. CP-SAT first-fit encodes the same rule.
    objs = [cls(), slc("s1", [dev("d0", {"v": {"strings": ["s"]}}), dev("d1", {"v": 1}),
                              dev("d2", {"v": 1}), dev("d3", {"v": 2})])]
    c = claim("c", req("a", "class-a", 3), constraints=[{"distinctAttribute": "driver-a/v"}])
    assert picked(same_in_first_fit(objs, [c], INCUBATING)) == [["a=pool-1/d0", "a=pool-1/d1", "a=pool-1/d3"]]
    # the same device later in the search order is refused
    objs = [cls(), slc("s1", [dev("d1", {"v": 1}), dev("d0", {"v": {"strings": ["s"]}}), dev("d3", {"v": 2})])]
    assert unsat(same_in_first_fit(objs, [c], INCUBATING))
