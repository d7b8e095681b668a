"""The device variable: qualification, missing keys vs domains, CEL-4 conversion
errors, error absorption by && and ||, result type."""

from __future__ import annotations

import pytest
from cel_helpers import attr, gpu, run

from dralloc.cel import CELRuntimeError, DeviceView
from dralloc.models import Device
from dralloc.quantity import Quantity


def test_fields() -> None:
    d = gpu()
    assert run('device.driver == "gpu.nvidia.com"', d)
    assert run("device.allowMultipleAllocations == false", d)
    shared = DeviceView("gpu.nvidia.com", {}, {}, allow_multiple_allocations=True)
    assert run("device.allowMultipleAllocations", shared)


def test_unqualified_names_get_driver_domain() -> None:
    assert run('device.attributes["gpu.nvidia.com"].index == 3')
    assert run('device.attributes["gpu.nvidia.com"]["productName"] == "NVIDIA A100"')
    assert run('device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("40Gi")) == 0')


def test_qualified_names_keep_their_domain() -> None:
    assert run('device.attributes["dra.net"].rdma')
    assert run('device.capacity["dra.net"].queues == quantity("16")')
    assert run('!("rdma" in device.attributes["gpu.nvidia.com"])')


def test_missing_domain_is_empty_map() -> None:
    assert run('device.attributes["nothing.example.com"].size() == 0')
    assert run('!has(device.attributes["nothing.example.com"].x)')
    assert run('device.attributes["nothing.example.com"].?x.orValue(1) == 1')


def test_missing_key_is_runtime_error() -> None:
    with pytest.raises(CELRuntimeError, match="^no such key: x$"):
        run('device.attributes["gpu.nvidia.com"].x == 1')
    with pytest.raises(CELRuntimeError, match="^no such key: x$"):
        run('device.attributes["nothing.example.com"].x == 1')
    with pytest.raises(CELRuntimeError, match="no such key: power"):
        run('device.capacity["gpu.nvidia.com"].power.isGreaterThan(quantity("1"))')


@pytest.mark.parametrize("expr,verdict", [
    ('false && device.attributes["gpu.nvidia.com"].x == 1', False),
    ('device.attributes["gpu.nvidia.com"].x == 1 && false', False),
    ('true || device.attributes["gpu.nvidia.com"].x == 1', True),
    ('device.attributes["gpu.nvidia.com"].x == 1 || true', True),
    ('[1, 0].exists(i, 1 / i == 1)', True),
    ('![1, 0].all(i, 1 / i == 5)', True),
])
def test_errors_absorbed_when_other_side_decides(expr: str, verdict: bool) -> None:
    assert run(expr) is verdict


@pytest.mark.parametrize("expr", [
    'true && device.attributes["gpu.nvidia.com"].x == 1',
    'device.attributes["gpu.nvidia.com"].x == 1 && true',
    'false || device.attributes["gpu.nvidia.com"].x == 1',
    'device.attributes["gpu.nvidia.com"].x == 1 || false',
])
def test_errors_kept_when_other_side_does_not_decide(expr: str) -> None:
    with pytest.raises(CELRuntimeError, match="no such key"):
        run(expr)


def test_attribute_types() -> None:
    assert run('device.attributes["gpu.nvidia.com"].mig == false')
    assert run('device.attributes["gpu.nvidia.com"].tags == ["fast", "cheap"]')
    d = gpu(nums=attr(ints=[1, 2]), vs=attr(versions=["1.0.0", "2.0.0"]))
    assert run('device.attributes["gpu.nvidia.com"].nums.sum() == 3', d)
    assert run('device.attributes["gpu.nvidia.com"].vs[1].major() == 2', d)


@pytest.mark.parametrize("bad,msg", [
    (attr(), "attribute broken: unsupported attribute value"),
    (attr(version="1.2"), "attribute broken: parse semantic version: "),
    (attr(versions=["1.0.0", "x"]), "attribute broken: parse semantic version: "),
])
def test_malformed_attribute_fails_every_selector(bad: object, msg: str) -> None:
    d = gpu(broken=bad)
    for expr in ('device.driver == "gpu.nvidia.com"', "true", 'device.attributes["x"].size() == 0'):
        with pytest.raises(CELRuntimeError, match=msg):
            run(expr, d)
    assert run("true", gpu()) is True  # the healthy twin is unaffected (cache keyed correctly)


def test_first_set_field_wins() -> None:
    d = gpu(both=attr(ints=[1], version="bogus"))
    assert run('device.attributes["gpu.nvidia.com"].both == [1]', d)


def test_non_bool_result_is_runtime_error() -> None:
    with pytest.raises(CELRuntimeError, match="could not be converted to bool"):
        run('device.attributes["gpu.nvidia.com"].index')


def test_from_device() -> None:
    dev = Device.model_validate({
        "name": "gpu-0", "attributes": {"model": {"string": "h100"}},
        "capacity": {"memory": {"value": "80Gi"}}, "allowMultipleAllocations": True})
    v = DeviceView.from_device("gpu.example.com", dev)
    assert v.capacity == {"memory": Quantity("80Gi")}
    assert v.allow_multiple_allocations is True
    assert DeviceView.from_device("gpu.example.com", dev, allow_multiple=False).allow_multiple_allocations is False
    assert run('device.attributes["gpu.example.com"].model == "h100" && device.allowMultipleAllocations', v)
