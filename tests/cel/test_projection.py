"""Verdicts are cached per projection of the fields a selector reads."""

from __future__ import annotations

import pytest
from cel_helpers import attr

from dralloc.cel import CELRuntimeError, DeviceView, compile_selector
from dralloc.cel.parse import parse
from dralloc.cel.selector import reads
from dralloc.quantity import Quantity


def mig(i: int, profile: str, uuid: str) -> DeviceView:
    return DeviceView("gpu.nvidia.com", {
        "profile": attr(string=profile), "uuid": attr(string=uuid), "index": attr(int=i)},
        {"memory": Quantity("10Gi" if profile == "1g.10gb" else "20Gi")})


def test_reads_finds_paths() -> None:
    assert reads(parse('device.driver == "a" && device.attributes["d"].x == 1')) == {
        ("driver",), ("attributes", "d", "x")}
    assert reads(parse('"y" in device.capacity["d"] && has(device.attributes["d"].z)')) == {
        ("capacity", "d", "y"), ("attributes", "d", "z")}
    assert reads(parse('device.attributes["d"]["x"] == 1 || device.attributes["d"].?w.orValue(0) == 0')) == {
        ("attributes", "d", "x"), ("attributes", "d", "w")}
    assert ("*",) in reads(parse('device.attributes["d"].size() == 1'))
    assert ("*",) in reads(parse('device.attributes.exists(k, k == "d")'))
    assert reads(parse("[1].all(device, device > 0)")) == set()


def test_identical_partitions_share_one_evaluation() -> None:
    sel = compile_selector('device.attributes["gpu.nvidia.com"].profile == "1g.10gb" && '
                           'device.capacity["gpu.nvidia.com"].memory.isGreaterThan(quantity("5Gi"))')
    sel.clear_cache()
    before = sel.evaluations
    devices = [mig(i, "1g.10gb" if i % 2 else "2g.20gb", f"uuid-{i}") for i in range(200)]
    verdicts = [sel.evaluate(d) for d in devices]
    assert verdicts == [bool(i % 2) for i in range(200)]
    assert sel.evaluations - before == 2


def test_whole_map_use_falls_back_to_full_device() -> None:
    sel = compile_selector('device.attributes["gpu.nvidia.com"].size() == 3')
    sel.clear_cache()
    before = sel.evaluations
    assert all(sel.evaluate(mig(i, "1g.10gb", f"u{i}")) for i in range(5))
    assert sel.evaluations - before == 5  # uuid differs, so every device is distinct


def test_absent_and_present_are_different_keys() -> None:
    sel = compile_selector('has(device.attributes["gpu.nvidia.com"].x)')
    with_x = DeviceView("gpu.nvidia.com", {"x": attr(int=1)}, {})
    without = DeviceView("gpu.nvidia.com", {}, {})
    assert sel.evaluate(with_x) is True
    assert sel.evaluate(without) is False


def test_qualified_and_bare_names_project_the_same() -> None:
    sel = compile_selector('device.attributes["gpu.nvidia.com"].x == 1')
    bare = DeviceView("gpu.nvidia.com", {"x": attr(int=1)}, {})
    qualified = DeviceView("gpu.nvidia.com", {"gpu.nvidia.com/x": attr(int=1)}, {})
    other_driver = DeviceView("other", {"x": attr(int=1)}, {})
    assert sel.evaluate(bare) and sel.evaluate(qualified)
    with pytest.raises(CELRuntimeError, match="no such key: x"):
        sel.evaluate(other_driver)


def test_types_are_part_of_the_key() -> None:
    sel = compile_selector('device.attributes["d"].x == 1')
    assert sel.evaluate(DeviceView("d", {"x": attr(int=1)}, {})) is True
    assert sel.evaluate(DeviceView("d", {"x": attr(string="1")}, {})) is False
    assert sel.evaluate(DeviceView("d", {"x": attr(bool=True)}, {})) is False


def test_runtime_errors_are_cached_and_reraised() -> None:
    sel = compile_selector('device.attributes["d"].missing == 1')
    for _ in range(3):
        with pytest.raises(CELRuntimeError, match="no such key: missing"):
            sel.evaluate(DeviceView("d", {}, {}))


def test_malformed_attribute_not_hidden_by_cache() -> None:
    sel = compile_selector('device.attributes["d"].x == 1')
    good = DeviceView("d", {"x": attr(int=1)}, {})
    bad = DeviceView("d", {"x": attr(int=1), "v": attr(version="1")}, {})
    assert sel.evaluate(good) is True
    with pytest.raises(CELRuntimeError, match="attribute v: parse semantic version"):
        sel.evaluate(bad)
    assert sel.evaluate_uncached(good) is True
