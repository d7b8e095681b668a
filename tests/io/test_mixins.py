"""KEP-5234 mixins: flattened on load with the KEP's precedence and limits."""

from __future__ import annotations

from typing import Any

import pytest

from dralloc.errors import InputError
from dralloc.io import parse_object
from dralloc.io.mixins import flatten_slice
from dralloc.models import ResourceSlice


def slice_with(devices: list[dict[str, Any]] | None = None, mixins: dict[str, Any] | None = None,
               counters: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"driver": "gpu.example.com", "nodeName": "n",
                            "pool": {"name": "p", "resourceSliceCount": 1}}
    if devices is not None:
        spec["devices"] = devices
    if counters is not None:
        spec["sharedCounters"] = counters
    if mixins is not None:
        spec["mixins"] = mixins
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"}, "spec": spec}


def load_slice(data: dict[str, Any]) -> ResourceSlice:
    obj = parse_object(data, "m.yaml#0")
    assert isinstance(obj, ResourceSlice)
    return obj


DEVICE_MIXINS = {"device": [
    {"name": "first", "attributes": {"model": {"string": "a"}, "gen": {"int": 1}},
     "capacity": {"memory": {"value": "1Gi"}}},
    {"name": "second", "attributes": {"model": {"string": "b"}, "fast": {"bool": True}}},
]}

# (case, includes, own attributes, expected attributes)
PRECEDENCE: list[tuple[str, list[str], dict[str, Any], dict[str, Any]]] = [
    ("one mixin", ["first"], {}, {"model": "a", "gen": 1}),
    ("later mixin wins", ["first", "second"], {}, {"model": "b", "gen": 1, "fast": True}),
    ("order matters", ["second", "first"], {}, {"model": "a", "gen": 1, "fast": True}),
    ("device wins over mixins", ["first", "second"], {"model": {"string": "own"}},
     {"model": "own", "gen": 1, "fast": True}),
    ("no includes", [], {"model": {"string": "own"}}, {"model": "own"}),
]


def _values(attrs: dict[str, Any]) -> dict[str, Any]:
    return {k: next(v for v in (a.string, a.int_, a.bool_) if v is not None) for k, a in attrs.items()}


@pytest.mark.parametrize(("case", "includes", "own", "want"), PRECEDENCE, ids=[p[0] for p in PRECEDENCE])
def test_device_mixin_precedence(case: str, includes: list[str], own: dict[str, Any], want: dict[str, Any]) -> None:
    dev: dict[str, Any] = {"name": "gpu-0", "includes": includes}
    if own:
        dev["attributes"] = own
    s = load_slice(slice_with([dev], DEVICE_MIXINS))
    flat = s.spec.devices[0]  # type: ignore[index]
    assert _values(flat.attributes or {}) == want
    assert flat.includes is None and s.spec.mixins is None


def test_capacity_merges_and_device_capacity_wins() -> None:
    dev = {"name": "gpu-0", "includes": ["first"], "capacity": {"cores": {"value": "8"}}}
    flat = load_slice(slice_with([dev], DEVICE_MIXINS)).spec.devices[0]  # type: ignore[index]
    assert {k: str(v.value) for k, v in (flat.capacity or {}).items()} == {"memory": "1Gi", "cores": "8"}


def test_counter_set_and_consumption_mixins() -> None:
    mixins = {"counterSet": [{"name": "gpu", "counters": {"memory": {"value": "40Gi"}, "sm": {"value": "8"}}}],
              "deviceCounterConsumption": [{"name": "half", "counters": {"memory": {"value": "20Gi"},
                                                                         "sm": {"value": "4"}}}]}
    counters = [{"name": "gpu-0", "includes": ["gpu"], "counters": {"sm": {"value": "7"}}}]
    s = load_slice(slice_with(counters=counters, mixins=mixins))
    cs = s.spec.shared_counters[0]  # type: ignore[index]
    assert {k: str(c.value) for k, c in (cs.counters or {}).items()} == {"memory": "40Gi", "sm": "7"}
    dev = {"name": "mig", "consumesCounters": [{"counterSet": "gpu-0", "includes": ["half"],
                                                "counters": {"memory": {"value": "10Gi"}}}]}
    flat = load_slice(slice_with([dev], mixins)).spec.devices[0]  # type: ignore[index]
    cc = flat.consumes_counters[0]  # type: ignore[index]
    assert {k: str(c.value) for k, c in (cc.counters or {}).items()} == {"memory": "10Gi", "sm": "4"}
    assert cc.includes is None


ERRORS: list[tuple[str, dict[str, Any], str, str]] = [
    ("undefined device mixin", slice_with([{"name": "d", "includes": ["nope"]}], DEVICE_MIXINS),
     "spec.devices[0].includes[0]", "device mixin 'nope' is not defined"),
    ("too many includes", slice_with([{"name": "d", "includes": ["first"] * 9}], DEVICE_MIXINS),
     "spec.devices[0].includes", "9 includes, at most 8"),
    ("duplicate mixin name", slice_with([{"name": "d"}], {"device": [{"name": "x"}, {"name": "x"}]}),
     "spec.mixins.device[1].name", "duplicate device mixin name"),
    ("counter set mixin of the wrong kind", slice_with(
        counters=[{"name": "c", "includes": ["first"]}], mixins=DEVICE_MIXINS),
     "spec.sharedCounters[0].includes[0]", "counterSet mixin 'first' is not defined"),
    ("consumption mixin missing", slice_with([{"name": "d", "consumesCounters": [
        {"counterSet": "c", "includes": ["half"]}]}], {}),
     "spec.devices[0].consumesCounters[0].includes[0]", "deviceCounterConsumption mixin 'half'"),
]


@pytest.mark.parametrize(("case", "data", "fieldpath", "text"), ERRORS, ids=[e[0] for e in ERRORS])
def test_mixin_errors_name_slice_and_field(case: str, data: dict[str, Any], fieldpath: str, text: str) -> None:
    with pytest.raises(InputError) as exc:
        parse_object(data, "m.yaml#0")
    assert exc.value.field == fieldpath and text in exc.value.message
    assert exc.value.obj == "ResourceSlice s" and exc.value.source == "m.yaml#0"


def test_flattened_device_over_32_attributes_is_a_validation_finding() -> None:
    from dralloc.io import ObjectSet
    from dralloc.validation import validate
    many = {"device": [{"name": "big", "attributes": {f"a{i}": {"int": i} for i in range(30)}}]}
    s = load_slice(slice_with([{"name": "d", "includes": ["big"], "capacity": {
        f"c{i}": {"value": "1"} for i in range(3)}}], many))
    objs = ObjectSet()
    objs.add(s, "m.yaml#0")
    assert [f.rule for f in validate(objs)] == ["device.attributes.max"]


def test_slice_without_mixins_is_returned_unchanged() -> None:
    s = load_slice(slice_with([{"name": "d"}]))
    assert flatten_slice(s) is s
