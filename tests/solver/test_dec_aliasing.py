"""Go's inf.Dec aliasing of capacity requests (defect ``quantity-dec-aliasing``).

Go's ``ParseQuantity`` keeps most texts in an int64 and the rest in a shared
``*inf.Dec``; the allocator's over-capacity check adds the device's tentative
capacity into a by-value copy of the request, which grows a Dec-backed request
in place. The replay reproduces it; CP-SAT follows the rules and names it."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from dralloc.check import run_scenario
from dralloc.defects import DEFECTS, EVENT_DEFECT
from dralloc.inventory.capacity import (
    RequestCell,
    consumed_from_request_live,
    request_cells,
    request_over_capacity_live,
)
from dralloc.io.scenario import parse_scenario
from dralloc.models import DeviceCapacity
from dralloc.quantity import Quantity
from dralloc.solver.api import Status

GI = 2**30


@pytest.mark.parametrize(("text", "dec"), [
    ("512Mi", False), ("0.5Gi", True), (".5Gi", True), ("-0.5Gi", True),
    ("1.Gi", False), ("1.0Gi", True), ("0Gi", False), ("0.0Gi", True),
    ("99999999999Ki", False), ("100000000000Ki", True),
    ("99999999Mi", False), ("100000000Mi", True),
    ("99999Gi", False), ("100000Gi", True), ("99Ti", False), ("100Ti", True),
    ("1Pi", True), ("1Ei", True),
    ("0", False), ("1.5", False), ("1n", False), ("1.5n", True),
    ("0.000000001", False), ("0.0000000001", True), ("1e-9", False), ("1e-10", True),
    ("123456789012345678", False), ("1234567890123456789", True),
    ("000000000000000000001", False), ("1e100", False), ("40960Mi", False),
])
def test_which_texts_go_holds_as_inf_dec(text: str, dec: bool) -> None:
    assert Quantity(text).inf_dec is dec


def test_inf_dec_does_not_change_equality_or_hash() -> None:
    a, b = Quantity("0.5Gi"), Quantity("512Mi")
    assert a.inf_dec and not b.inf_dec
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert (a + b).inf_dec and Quantity(a).inf_dec and not Quantity(GI).inf_dec


def _cap(value: str, **policy: Any) -> DeviceCapacity:
    return DeviceCapacity.model_validate({"value": value, "requestPolicy": policy or None})


@pytest.mark.parametrize(("cap", "fits", "grows"), [
    (_cap("80Gi", default="1Gi"), True, True),                     # policy leaves the request alone
    (_cap("80Gi", validRange={"min": "256Mi"}), True, True),       # inside a range without step
    (_cap("80Gi"), True, False),                                   # no policy: DeepCopy
    (_cap("80Gi", validRange={"min": "1Gi"}), True, False),        # below min: min is returned
    (_cap("80Gi", validRange={"min": "256Mi", "step": "256Mi"}), True, False),  # a new quantity
    (_cap("80Gi", validValues=["1Gi"]), True, False),              # a valid value is returned
    (_cap("80Gi", validValues=["256Mi"]), False, False),           # shared, but refused before the sum
])
def test_over_capacity_grows_the_request_only_where_go_shares_it(cap: DeviceCapacity, fits: bool,
                                                                  grows: bool) -> None:
    cells = request_cells({"memory": Quantity("0.5Gi")})
    assert cells is not None
    assert request_over_capacity_live(cells, {"memory": cap}, None, {"memory": Fraction(2 * GI)}) is fits
    assert cells["memory"].value == (Fraction(5 * GI, 2) if grows else Fraction(GI, 2))
    assert cells["memory"].grew is grows


def test_no_growth_for_int64_requests_committed_shares_or_no_tentative() -> None:
    cap = {"memory": _cap("80Gi", default="1Gi")}
    assert request_cells({"memory": Quantity("512Mi")}) is None
    cells = {"memory": RequestCell(Quantity("0.5Gi"))}
    request_over_capacity_live(cells, cap, {"memory": Fraction(GI)}, {"memory": Fraction(GI)})
    request_over_capacity_live(cells, cap, None, None)
    assert cells["memory"].value == GI // 2 and not cells["memory"].grew


def test_consumed_entries_keep_sharing_the_request() -> None:
    cells = {"memory": RequestCell(Quantity("0.5Gi"))}
    caps = {"memory": _cap("80Gi", default="1Gi"), "cores": _cap("4")}
    now, shared = consumed_from_request_live(cells, caps)
    assert now == {"memory": Quantity("512Mi"), "cores": Quantity("4")}
    assert shared == {"memory": cells["memory"]}


def _scenario(request: str, device_memory: str) -> dict[str, Any]:
    gpu = {"name": "gpu-0", "allowMultipleAllocations": True,
           "capacity": {"memory": {"value": device_memory, "requestPolicy": {"default": "1Gi"}}}}

    def claim(name: str, memory: str) -> dict[str, Any]:
        return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                "metadata": {"name": name, "namespace": "default"},
                "spec": {"devices": {"requests": [{"name": "r", "exactly": {
                    "deviceClassName": "gpu", "capacity": {"requests": {"memory": memory}}}}]}}}

    return {
        "name": "dec-aliasing", "features": ["DRAConsumableCapacity"], "variant": "incubating",
        "node": {"name": "node-1"},
        "objects": [
            {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
             "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}},
            {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
             "spec": {"driver": "gpu.example.com", "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
                      "nodeName": "node-1", "devices": [gpu]}},
        ],
        "claims": [claim("a", "2Gi"), claim("b", request)],
    }


def _memory(out: Any, claim: int) -> str:
    return str(out.allocations[claim].devices.results[0].consumed_capacity["memory"])


def test_replay_grows_a_fractional_binary_request_as_kubernetes_does() -> None:
    # claim b asks 0.5Gi; the device already holds 2Gi for claim a (tentatively):
    # the candidate check (DC-7) and the allocation check (DC-17) each add 2Gi.
    out = run_scenario(parse_scenario(_scenario("0.5Gi", "80Gi"), "t"), "replay")
    assert out.status is Status.ALLOCATED
    assert (_memory(out, 0), _memory(out, 1)) == ("2Gi", "4608Mi")
    assert "quantity-dec-aliasing" in out.notes
    same_value = run_scenario(parse_scenario(_scenario("512Mi", "80Gi"), "t"), "replay")
    assert _memory(same_value, 1) == "512Mi" and "quantity-dec-aliasing" not in same_value.notes


def test_growth_can_refuse_a_device_and_first_fit_names_the_defect() -> None:
    # 2Gi + 0.5Gi fits in 4Gi, but the grown request (4.5Gi) does not.
    sc = parse_scenario(_scenario("0.5Gi", "4Gi"), "t")
    assert run_scenario(sc, "replay").status is Status.UNSATISFIABLE
    assert run_scenario(parse_scenario(_scenario("512Mi", "4Gi"), "t"), "replay").status is Status.ALLOCATED
    ff = run_scenario(sc, "first-fit")
    assert ff.status is Status.ALLOCATED and _memory(ff, 1) == "512Mi"
    assert any(d.startswith("quantity-dec-aliasing") for d in ff.defects)


def test_defect_is_registered() -> None:
    assert EVENT_DEFECT["quantity-dec-aliasing"] in DEFECTS
