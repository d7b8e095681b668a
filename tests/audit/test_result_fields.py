"""Every field Kubernetes writes into an allocation result is a rule: a state
whose result differs from what Kubernetes writes for that request and device
is flagged with the field's rule, and the field as Kubernetes writes it is
clean (one regression state per corruption class of issue 16)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from verify_build import DRIVER, claim, dclass, device, exact, node, pod, rslice, state

from dralloc.audit import verify_state
from dralloc.checker import ERROR
from dralloc.errors import InputErrors
from dralloc.features import Features
from dralloc.validation import apply_defaults

ALL = Features.from_gates(["DRAAdminAccess", "DRAPrioritizedList", "DRAPartitionableDevices",
                           "DRADeviceTaints", "DRAConsumableCapacity", "DRADeviceBindingConditions"])
SHARE = "4b0e5d4c-9e7a-5f7e-8a55-0d1c2b3a4f5e"


def rules(items: list[dict[str, Any]], features: Features = ALL, admitted: bool = True) -> set[str]:
    """The rules broken; ``admitted=False`` skips the front door's validation
    (as for the allocator's own input) to reach the checker alone."""
    objs = state(items)
    if not admitted:
        apply_defaults(objs)
        objs.admitted = True
    rep = verify_state(objs, features, compare=False, pending=False)
    return {f.rule for f in rep.findings if f.level == ERROR}


def result(c: dict[str, Any], i: int = 0) -> dict[str, Any]:
    r: dict[str, Any] = c["status"]["allocation"]["devices"]["results"][i]
    return r


def one(req: dict[str, Any] | None = None, *devices: dict[str, Any]) -> list[dict[str, Any]]:
    return [node(), dclass(), rslice("s1", list(devices) or [device("d1")]),
            claim("c", [req or exact()], [("req-0", "d1")])]


def test_admin_access_flipped_on_is_flagged() -> None:
    items = one()
    assert rules(items) == set()
    result(items[-1])["adminAccess"] = True
    assert rules(items) == {"admin-access"}


def test_admin_access_flipped_on_hides_no_double_allocation() -> None:
    """Flipping one holder to admin would make a double allocation look shared."""
    items = one() + [claim("b", [exact()], [("req-0", "d1")])]
    assert rules(items) == {"double-allocation"}
    result(items[-1])["adminAccess"] = True
    assert rules(items) == {"admin-access"}


def test_admin_access_dropped_is_flagged_and_false_passes() -> None:
    items = one(exact(adminAccess=True))
    result(items[-1])["adminAccess"] = True
    assert rules(items) == set()
    del result(items[-1])["adminAccess"]
    assert rules(items) == {"admin-access"}
    plain = one()
    result(plain[-1])["adminAccess"] = False  # the same as absent (API: unset or false)
    assert rules(plain) == set()


def test_untolerated_taint_is_flagged_with_admin_access_too() -> None:
    d = device("d1")
    d["taints"] = [{"key": "broken", "effect": "NoExecute"}]
    items = one(exact(adminAccess=True), d)
    result(items[-1])["adminAccess"] = True
    assert rules(items) == {"taint"}
    assert rules(items, Features.from_gates(["DRAAdminAccess"])) == set()  # DRADeviceTaints off: taints ignored


TOL = {"key": "broken", "operator": "Exists", "effect": "NoExecute"}


def test_tolerations_are_the_requests_whole_list() -> None:
    items = one(exact(tolerations=[TOL]))
    assert rules(items) == {"tolerations"}  # Kubernetes copies them even when no taint needs them
    result(items[-1])["tolerations"] = [dict(TOL)]
    assert rules(items) == set()
    result(items[-1])["tolerations"] = [{**TOL, "key": "other"}]
    assert rules(items) == {"tolerations"}
    plain = one()
    result(plain[-1])["tolerations"] = [dict(TOL)]
    assert rules(plain) == {"tolerations"}


def _bound() -> dict[str, Any]:
    d = device("d1")
    d["bindingConditions"] = ["attached"]
    d["bindingFailureConditions"] = ["failed"]
    d["bindsToNode"] = True
    return d


def test_binding_conditions_are_the_devices() -> None:
    items = one(None, _bound())
    assert rules(items) == {"binding-conditions"}
    result(items[-1]).update(bindingConditions=["attached"], bindingFailureConditions=["failed"])
    assert rules(items) == set()
    result(items[-1])["bindingConditions"] = ["other"]
    assert rules(items) == {"binding-conditions"}


def test_binding_conditions_absent_with_the_feature_off() -> None:
    plain = one()
    result(plain[-1]).update(bindingConditions=["attached"], bindingFailureConditions=["failed"])
    assert rules(plain) == {"binding-conditions"}
    assert rules(one(), Features.from_gates(["DRAAdminAccess"])) == set()


def _shared(capacity: str | None = "8Gi") -> dict[str, Any]:
    d = device("d1")
    d["allowMultipleAllocations"] = True
    if capacity:
        d["capacity"] = {"memory": {"value": capacity}}
    return d


def test_share_id_is_present_exactly_on_shared_devices() -> None:
    items = one(None, _shared())
    result(items[-1]).update(shareID=SHARE, consumedCapacity={"memory": "8Gi"})
    assert rules(items) == set()
    no_id = copy.deepcopy(items)
    del result(no_id[-1])["shareID"]
    assert "share-id" in rules(no_id)
    bad = copy.deepcopy(items)
    result(bad[-1])["shareID"] = "share-1"
    with pytest.raises(InputErrors, match="not a lower-case UUID"):  # the front door refuses it...
        rules(bad)
    assert rules(bad, admitted=False) == {"share-id"}               # ...and the checker on its own too
    plain = one()
    result(plain[-1])["shareID"] = SHARE
    assert rules(plain) == {"share-id"}
    assert rules(items, Features.from_gates(["DRAAdminAccess"])) >= {"share-id"}  # DRAConsumableCapacity off


def test_two_shares_with_one_id_are_flagged() -> None:
    items = one(exact(capacity={"requests": {"memory": "2Gi"}}), _shared())
    items.append(claim("b", [exact(capacity={"requests": {"memory": "2Gi"}})], [("req-0", "d1")]))
    for c, sid in ((items[-2], SHARE), (items[-1], SHARE.replace("4b0e", "4b0f"))):
        result(c).update(shareID=sid, consumedCapacity={"memory": "2Gi"})
    assert rules(items) == set()
    result(items[-1])["shareID"] = SHARE
    assert rules(items) == {"share-id"}


def test_consumed_capacity_is_what_the_request_consumes() -> None:
    items = one(exact(capacity={"requests": {"memory": "2Gi"}}), _shared())
    result(items[-1]).update(shareID=SHARE, consumedCapacity={"memory": "1Gi"})
    assert rules(items) == {"consumed-capacity"}
    del result(items[-1])["consumedCapacity"]
    assert rules(items) == {"consumed-capacity"}
    no_caps = one(None, _shared(None))
    result(no_caps[-1]).update(shareID=SHARE)
    assert rules(no_caps) == set()  # a shared device without capacities records none (T-41)
    result(no_caps[-1])["consumedCapacity"] = {"memory": "1Gi"}
    assert rules(no_caps) == {"consumed-capacity"}


def test_capacity_request_must_fit_a_device_that_is_not_shared() -> None:
    d = device("d1")
    d["capacity"] = {"memory": {"value": "8Gi"}}
    items = one(exact(capacity={"requests": {"memory": "16Gi"}}), d)
    assert rules(items) == {"capacity"}
    items = one(exact(capacity={"requests": {"cores": "1"}}), d)
    assert rules(items) == {"capacity"}


def _configured() -> list[dict[str, Any]]:
    items = [node(), dclass(), rslice("s1", [device("d1"), device("d2")])]
    items[1]["spec"]["config"] = [{"opaque": {"driver": DRIVER, "parameters": {"from": "class"}}}]
    c = claim("c", [exact("a"), exact("b")], [("a", "d1"), ("b", "d2")])
    c["spec"]["devices"]["config"] = [{"requests": ["b"], "opaque": {"driver": DRIVER, "parameters": {"x": 1}}}]
    c["status"]["allocation"]["devices"]["config"] = [
        {"source": "FromClass", "opaque": {"driver": DRIVER, "parameters": {"from": "class"}}},
        {"source": "FromClaim", "requests": ["b"], "opaque": {"driver": DRIVER, "parameters": {"x": 1}}}]
    items.append(c)
    return items


def test_config_is_the_one_kubernetes_copies() -> None:
    items = _configured()
    assert rules(items) == set()
    dropped = copy.deepcopy(items)
    dropped[-1]["status"]["allocation"]["devices"]["config"].pop()
    assert rules(dropped) == {"config"}
    changed = copy.deepcopy(items)
    changed[-1]["status"]["allocation"]["devices"]["config"][1]["opaque"]["parameters"] = {"x": 2}
    assert rules(changed) == {"config"}
    swapped = copy.deepcopy(items)
    swapped[-1]["status"]["allocation"]["devices"]["config"].reverse()  # drivers apply them in order
    assert rules(swapped) == {"config"}


def test_all_request_with_an_extra_device_is_flagged() -> None:
    items = [node(), dclass(), dclass("other", "other.example.com"), rslice("s1", [device("d1")]),
             rslice("s2", [device("x1")], pool="pool-2", driver="other.example.com")]
    c = claim("c", [exact(allocationMode="All")], [("req-0", "d1")])
    items.append(c)
    assert rules(items) == set()
    result(c)["device"] = "x1"
    c["status"]["allocation"]["devices"]["results"].insert(0, {"request": "req-0", "driver": DRIVER,
                                                               "pool": "pool-1", "device": "d1"})
    c["status"]["allocation"]["devices"]["results"][1].update(driver="other.example.com", pool="pool-2")
    assert "all-devices" in rules(items)


def test_pod_on_a_node_missing_from_the_state_is_flagged() -> None:
    items = one() + [pod("p", "c", node_name="node-1")]
    assert rules(items) == set()
    items[-1]["spec"]["nodeName"] = "gone"
    assert rules(items) >= {"pod-node"}
    network = [node(), dclass(), rslice("s1", [device("d1")], node=None),
               claim("c", [exact()], [("req-0", "d1")], node=None), pod("p", "c", node_name="gone")]
    assert rules(network) == {"pod-node"}  # usable anywhere, but the Node does not exist


def test_pod_moved_to_a_node_the_claim_admits_stays_clean() -> None:
    """Not a violation: a claim without a nodeSelector (network-attached
    devices) may be used on any node; one pinned to node-1 may not move."""
    network = [node(), node("node-2"), dclass(), rslice("s1", [device("d1")], node=None),
               claim("c", [exact()], [("req-0", "d1")], node=None), pod("p", "c", node_name="node-2")]
    assert rules(network) == set()
    local = one() + [node("node-2"), pod("p", "c", node_name="node-2")]
    assert "pod-node" in rules(local)
