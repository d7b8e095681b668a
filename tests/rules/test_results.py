"""OUT-*: what each claim's AllocationResult carries — request names,
adminAccess, tolerations, binding conditions, configs, node selector
(spec §5, T-30, T-36, T-37)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.rules.rulekit import (
    claim,
    cls,
    dev,
    error,
    opaque,
    picked,
    prio,
    req,
    run,
    same_in_first_fit,
    slc,
    sub,
)

BINDING = ["DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus"]


def test_out3_admin_access_true_or_absent_and_all_tolerations_copied() -> None:
    tols = [{"key": "a", "operator": "Exists"}, {"key": "unused", "operator": "Exists"}]
    objs = [cls(), slc("s1", [dev("d1", taints=[{"key": "a", "value": "x", "effect": "NoSchedule"}]), dev("d2")])]
    c = claim("c", req("t", tolerations=tols), req("adm", adminAccess=True))
    out = run(objs, [c], ["DRADeviceTaints", "DRAAdminAccess"])
    assert out.allocations is not None
    res = out.allocations[0].dump()["devices"]["results"]
    assert [r.get("adminAccess") for r in res] == [None, True]
    assert [t["key"] for t in res[0]["tolerations"]] == ["a", "unused"]
    assert "tolerations" not in res[1]


def test_out4_binding_conditions_copied_only_with_the_feature() -> None:
    objs = [cls(), slc("s1", [dev("d1", bindingConditions=["ready"], bindingFailureConditions=["bad"])])]
    out = run(objs, [claim("c", req("r"))], BINDING)
    assert out.allocations is not None
    r = out.allocations[0].devices.results[0]
    assert r.binding_conditions == ["ready"] and r.binding_failure_conditions == ["bad"]


def _configs(out: Any) -> list[tuple[str, list[str] | None, str]]:
    return [(c.source, c.requests, c.opaque.parameters["p"]) for c in out.allocations[0].devices.config or []]


def test_t36_configs_of_chosen_subrequests_collapse_and_others_drop() -> None:
    objs = [cls("class-a", "driver-a", config=[opaque("class")]), slc("s1", [dev("d1"), dev("d2")])]
    c = claim("c", prio("req-0", sub("subReq-0", "class-a", 1), sub("subReq-1", "class-a", 1)), req("req-1"),
              config=[{"requests": ["req-0/subReq-0", "req-1"], **opaque("both")},
                      {"requests": ["req-0/subReq-1"], **opaque("other-sub")},
                      {**opaque("all")}])
    out = same_in_first_fit(objs, [c], ["DRAPrioritizedList"])
    assert _configs(out) == [("FromClass", None, "class"), ("FromClaim", None, "both"), ("FromClaim", None, "all")]


def test_out5_class_config_lists_each_request_once_per_class() -> None:
    objs = [cls("class-a", "driver-a", config=[opaque("a")]), cls("class-b", "driver-a"),
            slc("s1", [dev("d1"), dev("d2"), dev("d3")])]
    c = claim("c", req("x"), req("y", "class-b"), req("z"))
    assert _configs(run(objs, [c])) == [("FromClass", ["x", "z"], "a")]


NET = {"nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [
    {"key": "region", "operator": "In", "values": ["region-1"]}]}]}}


@pytest.mark.parametrize(("where", "extra", "expected"), [
    ({"allNodes": True}, {}, None),
    (NET, {}, {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "region", "operator": "In", "values": ["region-1"]}]}]}),
    (NET, {"bindsToNode": True}, {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}]}),
    ({"nodeName": "", "allNodes": True}, {}, {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}]}),
])
def test_out6_node_selector(where: dict[str, Any], extra: dict[str, Any], expected: Any) -> None:
    objs = [cls(), slc("s1", [dev("d1", **extra)], where=where)]
    out = run(objs, [claim("c", req("r"))], BINDING)
    assert out.allocations is not None
    sel = out.allocations[0].node_selector
    assert (sel.dump() if sel else None) == expected


def test_t30_one_local_device_pins_the_whole_claim() -> None:
    objs = [cls(), slc("net", [dev("n1")], pool="pool-0", where=NET), slc("loc", [dev("l1")])]
    out = same_in_first_fit(objs, [claim("c", req("a"), req("b"))], ["DRAConsumableCapacity"])
    assert picked(out) == [["a=pool-0/n1", "b=pool-1/l1"]]
    assert out.allocations is not None and out.allocations[0].node_selector is not None
    assert out.allocations[0].node_selector.dump() == {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}]}


def test_out6_more_than_one_term_is_an_error() -> None:
    two = {"nodeSelector": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "region", "operator": "Exists"}]},
        {"matchExpressions": [{"key": "zone", "operator": "Exists"}]}]}}
    out = run([cls(), slc("s1", [dev("d1")], where=two)], [claim("c", req("r"))])
    assert error(out) == "create NodeSelector for claim c: unsupported ResourceSlice.NodeSelector with 2 terms"
