"""Negative capacities of shared devices (the API server accepts them; validate
warns). Kubernetes checks a share when it picks it -- what is committed, plus
the shares picked before, plus its own, within the capacity (spec CC-1) -- so
with a negative amount every pick's check counts, not only the total (fuzz seed
777000111, input 745: first-fit refused a device of capacity -1 that
Kubernetes shares). Expectations from the spec; both engines must give them."""

from __future__ import annotations

from typing import Any

import pytest

from dralloc.check import check_scenario
from dralloc.io.scenario import parse_scenario

SHARE = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"


def _claim(name: str, amount: str | None) -> dict[str, Any]:
    exactly: dict[str, Any] = {"deviceClassName": "shared", "count": 1}
    if amount is not None:
        exactly["capacity"] = {"requests": {"queues": amount}}
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "r", "exactly": exactly}]}}}


def _result(device: str, consumed: str) -> dict[str, Any]:
    return {"devices": {"results": [{"request": "r", "driver": "d", "pool": "p", "device": device,
                                     "shareID": SHARE, "consumedCapacity": {"queues": consumed}}]},
            "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}]}}


def _scenario(capacity: str, amounts: list[str | None], expect: list[dict[str, Any] | None]) -> dict[str, Any]:
    devices = [{"name": "shared-0", "allowMultipleAllocations": True, "capacity": {"queues": {"value": capacity}}},
               {"name": "shared-1", "allowMultipleAllocations": True, "capacity": {"queues": {"value": "8"}}}]
    return {
        "name": f"negative-capacity-{capacity}-{'-'.join(str(a) for a in amounts)}",
        "features": ["DRAConsumableCapacity"],
        "node": {"name": "node-1"},
        "objects": [
            {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "shared"},
             "spec": {"selectors": [{"cel": {"expression": 'device.driver == "d"'}}]}},
            {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
             "spec": {"driver": "d", "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
                      "nodeName": "node-1", "devices": devices}}],
        "claims": [_claim(f"c{i}", a) for i, a in enumerate(amounts)],
        "expect": {"allocations": expect},
    }


CASES = {
    # a request naming no capacity takes it whole: -1, then -2, each within -1
    "whole-negative-shared-twice": ("-1", [None, None], [_result("shared-0", "-1"), _result("shared-0", "-1")]),
    # the first pick, 3, is over 1 (later shares of -5 would bring the total down): the other device
    "positive-first-over": ("1", ["3", "-5"], [_result("shared-1", "3"), _result("shared-0", "-5")]),
    # -5 first, then 3: each pick within 1
    "negative-first": ("1", ["-5", "3"], [_result("shared-0", "-5"), _result("shared-0", "3")]),
}


@pytest.mark.parametrize("mode", ["replay", "first-fit", "optimal"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_each_pick_is_checked_as_kubernetes_does(case: str, mode: str) -> None:
    capacity, amounts, expect = CASES[case]
    sc = parse_scenario(_scenario(capacity, amounts, expect), f"{case}.yaml")
    r = check_scenario(sc, mode if mode != "optimal" else "first-fit")
    assert r.passed, r.differences
