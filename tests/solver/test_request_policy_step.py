"""A capacity whose request step is not positive (the API server refuses it;
Kubernetes' allocator would divide by it) reaches the engines only through a
scenario file, which is not admitted: there it is an input error naming the
device and field, in every mode (fuzz seed 8675309, input 5792:
ZeroDivisionError in replay and first-fit)."""

from __future__ import annotations

import pytest

from dralloc.errors import InputError
from dralloc.io.scenario import parse_scenario
from dralloc.solver import allocate


def _scenario(step: str) -> dict[str, object]:
    policy = {"default": "2", "validRange": {"min": "2", "max": "4", "step": step}}
    return {
        "name": f"step-{step}", "features": ["DRAConsumableCapacity"], "node": {"name": "node-1"},
        "objects": [
            {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "c"},
             "spec": {"selectors": [{"cel": {"expression": 'device.driver == "d"'}}]}},
            {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
             "spec": {"driver": "d", "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
                      "nodeName": "node-1",
                      "devices": [{"name": "dev-0", "allowMultipleAllocations": True,
                                   "capacity": {"cap-0": {"value": "8", "requestPolicy": policy}}}]}}],
        "claims": [{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                    "metadata": {"name": "claim-0", "namespace": "default"},
                    "spec": {"devices": {"requests": [{"name": "r", "exactly": {
                        "deviceClassName": "c", "capacity": {"requests": {"cap-0": "3"}}}}]}}}],
    }


@pytest.mark.parametrize("step", ["0", "-2"])
@pytest.mark.parametrize("mode", ["replay", "first-fit", "optimal"])
def test_a_step_that_is_not_positive_is_an_input_error(mode: str, step: str) -> None:
    sc = parse_scenario(_scenario(step), "s.yaml")
    with pytest.raises(InputError) as e:
        allocate(sc.objects, sc.node, sc.claims, features=sc.features, mode=mode, admission=False)
    assert "ResourceSlice s device dev-0" in str(e.value)
    assert "capacity[cap-0].requestPolicy.validRange.step" in str(e.value)


@pytest.mark.parametrize("mode", ["replay", "first-fit"])
def test_a_positive_step_rounds_the_request_up(mode: str) -> None:
    sc = parse_scenario(_scenario("2"), "s.yaml")
    out = allocate(sc.objects, sc.node, sc.claims, features=sc.features, mode=mode, admission=False)
    assert out.ok, out
    (result,) = out.allocations[0].devices.results  # type: ignore[index, union-attr]
    assert str(result.consumed_capacity["cap-0"]) == "4"  # type: ignore[index]
