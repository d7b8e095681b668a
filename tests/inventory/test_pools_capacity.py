"""Inventory rules a user relies on: which slices make a node's pools, in
which order, and how much of a shared device a request consumes."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from dralloc.errors import AllocationError
from dralloc.features import Features, Variant
from dralloc.inventory.capacity import (
    UnknownCapacity,
    calculate_consumed,
    consumed_from_request,
    request_over_capacity_ok,
    violates_policy,
)
from dralloc.inventory.nodesel import node_matches
from dralloc.inventory.pools import gather_pools
from dralloc.io.loader import parse_object
from dralloc.models import DeviceCapacity, Node, ObjectMeta, ResourceSlice
from dralloc.quantity import Quantity

NODE = Node(metadata=ObjectMeta(name="node-1", labels={"zone": "a"}))
FEATS = Features.from_gates(["DRAPartitionableDevices"])


def _slice(name: str, pool: str, devices: list[str], gen: int = 1, count: int = 1,
           driver: str = "d.example.com", **where: Any) -> ResourceSlice:
    spec: dict[str, Any] = {"driver": driver, "pool": {"name": pool, "generation": gen, "resourceSliceCount": count},
                            "devices": [{"name": d} for d in devices]}
    spec.update(where or {"nodeName": "node-1"})
    obj = parse_object({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                        "metadata": {"name": name}, "spec": spec})
    assert isinstance(obj, ResourceSlice)
    return obj


def _names(pools: list[Any]) -> list[tuple[str, str, list[str]]]:
    return [(p.driver, p.name, [pd.device.name for pd in p.devices]) for p in pools]


def test_pools_sorted_by_driver_then_name_devices_by_slice_name() -> None:
    slices = [_slice("z", "p2", ["a"]), _slice("b", "p1", ["x"], count=2), _slice("a", "p1", ["y"], count=2),
              _slice("c", "p0", ["q"], driver="a.example.com")]
    got = _names(gather_pools(slices, NODE, FEATS, Variant.INCUBATING))
    assert got == [("a.example.com", "p0", ["q"]), ("d.example.com", "p1", ["y", "x"]), ("d.example.com", "p2", ["a"])]


def test_newest_generation_wins() -> None:
    slices = [_slice("old", "p", ["old-dev"], gen=1), _slice("new", "p", ["new-dev"], gen=2)]
    (pool,) = gather_pools(slices, NODE, FEATS, Variant.INCUBATING)
    assert [pd.device.name for pd in pool.devices] == ["new-dev"] and pool.generation == 2


def test_pool_missing_a_slice_is_incomplete_and_unusable() -> None:
    (pool,) = gather_pools([_slice("s", "p", ["a"], count=2)], NODE, FEATS, Variant.INCUBATING)
    assert pool.incomplete and not pool.usable


def test_slices_for_other_nodes_are_not_candidates() -> None:
    slices = [_slice("mine", "p1", ["a"]), _slice("theirs", "p2", ["b"], nodeName="node-2"),
              _slice("sel", "p3", ["c"], nodeSelector={"nodeSelectorTerms": [
                  {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]}]}),
              _slice("all", "p4", ["d"], allNodes=True)]
    assert [p.name for p in gather_pools(slices, NODE, FEATS, Variant.INCUBATING)] == ["p1", "p4"]


def test_duplicate_device_names_make_the_pool_invalid() -> None:
    slices = [_slice("a", "p", ["dev"], count=2), _slice("b", "p", ["dev"], count=2)]
    (pool,) = gather_pools(slices, NODE, FEATS, Variant.INCUBATING)
    assert pool.invalid is not None and "duplicate device name" in pool.invalid


def test_bad_node_selector_is_a_fatal_error_naming_the_slice() -> None:
    bad = _slice("broken", "p", ["a"], nodeSelector={"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "zone", "operator": "Gt", "values": ["x", "y"]}]}]})
    with pytest.raises(AllocationError, match="broken"):
        gather_pools([bad], NODE, FEATS, Variant.INCUBATING)


@pytest.mark.parametrize(("name", "all_nodes", "want"), [("node-1", None, True), ("node-2", None, False),
                                                        (None, True, True), (None, None, False)])
def test_node_matches(name: str | None, all_nodes: bool | None, want: bool) -> None:
    assert node_matches(NODE, name, all_nodes, None) is want


def _cap(value: str, **policy: Any) -> DeviceCapacity:
    return DeviceCapacity.model_validate({"value": value, **({"requestPolicy": policy} if policy else {})})


@pytest.mark.parametrize(("requested", "cap", "want"), [
    (None, _cap("80Gi"), Quantity("80Gi").value),                           # no request, no policy: all of it
    (None, _cap("80Gi", default="1Gi"), Quantity("1Gi").value),             # no request: the default
    ("3", _cap("16", default="2", validRange={"min": "2", "step": "2"}), Fraction(4)),   # rounded up to a step
    ("1", _cap("16", default="2", validRange={"min": "2", "step": "2"}), Fraction(2)),   # below min: min
    ("5Gi", _cap("80Gi", default="1Gi", validValues=["1Gi", "8Gi", "16Gi"]), Quantity("8Gi").value),
    ("1536Mi", _cap("80Gi"), Quantity("1536Mi").value),                     # no policy: as asked
])
def test_consumed_capacity_rounding(requested: str | None, cap: DeviceCapacity, want: Fraction) -> None:
    got = calculate_consumed(Quantity(requested) if requested else None, cap)
    assert got == want and isinstance(got, Fraction)


def test_policy_violations() -> None:
    rng = _cap("16", default="2", validRange={"min": "2", "max": "8", "step": "2"}).request_policy
    assert violates_policy(Fraction(10), rng)        # above max
    assert violates_policy(Fraction(5), rng)         # off the step grid
    assert not violates_policy(Fraction(6), rng)
    vals = _cap("80Gi", default="1Gi", validValues=["1Gi", "8Gi"]).request_policy
    assert violates_policy(Quantity("2Gi").value, vals) and not violates_policy(Quantity("8Gi").value, vals)


def test_over_capacity_counts_committed_and_tentative_shares() -> None:
    caps = {"memory": _cap("10Gi")}
    req = {"memory": Quantity("4Gi")}
    assert request_over_capacity_ok(req, caps, None, None)
    assert request_over_capacity_ok(req, caps, {"memory": Quantity("6Gi").value}, None)
    assert not request_over_capacity_ok(req, caps, {"memory": Quantity("4Gi").value},
                                        {"memory": Quantity("4Gi").value})
    with pytest.raises(UnknownCapacity):
        request_over_capacity_ok({"cores": Quantity("1")}, caps, None, None)


def test_consumed_capacity_record_keeps_exact_quantities() -> None:
    caps = {"memory": _cap("80Gi", default="1Gi"), "cores": _cap("4", default="1", validRange={"min": "1", "step": "1"})}
    got = consumed_from_request({"memory": Quantity("1536Mi")}, caps)
    assert {k: str(v) for k, v in got.items()} == {"memory": "1536Mi", "cores": "1"}
