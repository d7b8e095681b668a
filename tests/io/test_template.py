"""A slice built from an earlier slice of the same shape (dralloc.io.template)
is exactly what validating it on its own gives -- whatever differs from the
template, including values Python finds equal and JSON does not (1, 1.0,
true) -- and admission refuses a bad value in it under the slice's own path."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import ValidationError

from dralloc.errors import InputError, InputErrors
from dralloc.io import build, share
from dralloc.io.template import Derived
from dralloc.models import ResourceSlice
from dralloc.validation.admission import admit
from tests.io.test_build import _fields_set

MIG = {"name": "gpu-0-mig-1g-0", "attributes": {
    "uuid": {"string": "GPU-aaaa"}, "profile": {"string": "1g.10gb"}, "numa": {"int": 0},
    "rdma": {"bool": True}, "driverVersion": {"version": "580.1.0"}},
    "capacity": {"memory": {"value": "10Gi"}},
    "consumesCounters": [{"counterSet": "gpu-0", "counters": {"memory": {"value": "10Gi"}}}]}


def _device(i: int, uuid: str = "GPU-aaaa") -> dict[str, Any]:
    d = copy.deepcopy(MIG)
    d["name"] = f"gpu-0-mig-1g-{i}"
    d["attributes"]["uuid"] = {"string": uuid}
    return d


def _slice(node: str, devices: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{node}-gpu"},
            "spec": {"driver": "gpu.example.com", "nodeName": node, "pool": {"name": node, "resourceSliceCount": 1},
                     "devices": devices}}


def _template() -> dict[str, Any]:
    return _slice("node-a", [_device(0), _device(1), _device(2)])


def _twin(change: Any = None) -> dict[str, Any]:
    s = _slice("node-b", [_device(0, "GPU-bbbb"), _device(1, "GPU-bbbb"), _device(2, "GPU-bbbb")])
    if change is not None:
        change(s["spec"]["devices"])
    return s


def _built(*raws: dict[str, Any]) -> tuple[list[Any], share.Tables]:
    """Every slice built in one load (later ones from the first), or its error."""
    out: list[Any] = []
    with share.sharing() as tables:
        for raw in raws:
            try:
                out.append(build.validate(ResourceSlice, copy.deepcopy(raw)))
            except ValidationError as e:
                out.append(e.errors(include_url=False, include_context=False))
    return out, tables


def _alone(raw: dict[str, Any]) -> Any:
    try:
        return ResourceSlice.model_validate(copy.deepcopy(raw))
    except ValidationError as e:
        return e.errors(include_url=False, include_context=False)


def test_a_twin_is_built_from_the_template_and_shares_its_parts() -> None:
    (first, second), tables = _built(_template(), _twin())
    assert second == _alone(_twin()) and _fields_set(second) == _fields_set(_alone(_twin()))
    how = tables.derived[id(second)][1]
    assert isinstance(how, Derived) and how.changes == [("uuid",)] * 3
    a, b = first.spec.devices, second.spec.devices
    for x, y in zip(a, b, strict=True):
        assert x.capacity is y.capacity and x.consumes_counters is y.consumes_counters and x.name is y.name
        assert x.attributes["profile"] is y.attributes["profile"]
        assert y.attributes["uuid"].string == "GPU-bbbb"
    assert b[0].attributes is b[1].attributes   # the devices of one GPU share its map


def test_an_identical_slice_holds_the_template_devices() -> None:
    other = _template()
    other["metadata"]["name"] = "again"
    (first, second), tables = _built(_template(), other)
    assert all(x is y for x, y in zip(first.spec.devices, second.spec.devices, strict=True))
    assert tables.derived[id(second)][1].changes == [()] * 3


CHANGES = {
    "int-to-bool": lambda ds: ds[1]["attributes"].update(numa={"int": False}),
    "int-to-float": lambda ds: ds[1]["attributes"].update(numa={"int": 0.0}),
    "bool-to-int": lambda ds: ds[2]["attributes"].update(rdma={"bool": 1}),
    "string-to-version": lambda ds: ds[0]["attributes"].update(profile={"version": "1g.10gb"}),
    "int-value": lambda ds: ds[0]["attributes"].update(numa={"int": 1}),
    "list-elements": lambda ds: [d["attributes"].update(ids={"ints": [True, 2]}) for d in ds],
    "attribute-added": lambda ds: ds[0]["attributes"].update(extra={"string": "x"}),
    "attribute-removed": lambda ds: ds[0]["attributes"].pop("numa"),
    "attributes-null": lambda ds: ds[0].update(attributes=None),
    "capacity": lambda ds: ds[1]["capacity"].update(memory={"value": "20Gi"}),
    "capacity-number": lambda ds: ds[1]["capacity"].update(memory={"value": 10}),
    "consumption": lambda ds: ds[1]["consumesCounters"][0].update(counterSet="gpu-1"),
    "name": lambda ds: ds[2].update(name="other"),
    "taints": lambda ds: ds[0].update(taints=[{"key": "k", "effect": "NoSchedule"}]),
    "device-not-a-map": lambda ds: ds.__setitem__(1, ["x"]),
    "bad-value": lambda ds: ds[1]["attributes"].update(numa={"int": "x"}),
    "unknown-field": lambda ds: ds[1].update(unknown=1),
    "one-device-less": lambda ds: ds.pop(),
}


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_whatever_differs_the_twin_is_what_validation_gives(name: str) -> None:
    """Built after its template in one load, a slice equals (to the fields
    set) the slice validated alone -- or fails with the same errors."""
    _assert_built_as_alone(_twin(CHANGES[name]))


def _assert_built_as_alone(twin: dict[str, Any]) -> None:
    (_, got), _ = _built(_template(), twin)
    want = _alone(twin)
    assert got == want
    if isinstance(want, ResourceSlice):
        assert _fields_set(got) == _fields_set(want)
        assert got.dump() == want.dump()


@pytest.mark.parametrize("name", ["int-to-bool", "int-to-float", "bool-to-int", "list-elements"])
def test_a_value_python_finds_equal_is_not_taken_from_the_template(name: str) -> None:
    """{"int": false} == {"int": 0} in Python; the API server refuses the
    first, and so does the build of a twin whose template holds the second."""
    (first, got), _ = _built(_template(), _twin(CHANGES[name]))
    assert isinstance(first, ResourceSlice)
    assert isinstance(got, list) and got == _alone(_twin(CHANGES[name]))
    assert got[0]["loc"][:3] == ("spec", "devices", 0 if name == "list-elements" else 1 + (name == "bool-to-int"))


def _admit_errors(*raws: dict[str, Any]) -> list[InputError]:
    from dralloc.io import ObjectSet
    from dralloc.io.loader import parse_object
    objs = ObjectSet()
    with share.sharing() as tables:
        for k, raw in enumerate(raws):
            obj = parse_object(copy.deepcopy(raw), f"doc {k}")
            assert obj is not None
            objs.add(obj, f"doc {k}")
    objs.derived.update(tables.derived)
    try:
        admit(objs)
    except InputErrors as e:
        return list(e.errors)
    return []


def test_admission_refuses_a_bad_value_that_only_the_twin_holds() -> None:
    long = "GPU-" + "b" * 80   # string attributes are at most 64 bytes
    twin = _slice("node-b", [_device(0, long), _device(1, long), _device(2, long)])
    errors = _admit_errors(_template(), twin)
    assert errors and all(e.source == "doc 1" for e in errors)
    assert {e.field for e in errors} == {f"spec.devices[{i}].attributes[uuid]" for i in range(3)}


def test_admission_refuses_the_twins_of_a_bad_template() -> None:
    bad = _template()
    for d in bad["spec"]["devices"]:
        d["attributes"]["driverVersion"] = {"version": "not-semver"}
    twin = copy.deepcopy(bad)
    twin["metadata"]["name"], twin["spec"]["nodeName"] = "node-b-gpu", "node-b"
    errors = _admit_errors(bad, twin)
    assert {e.source for e in errors} == {"doc 0", "doc 1"}


def test_admission_of_twins_is_what_admission_of_lone_slices_says() -> None:
    bad = {
        "long-uuid": lambda ds: ds[0]["attributes"].update(uuid={"string": "x" * 65}),
        "bad-version": lambda ds: ds[2]["attributes"].update(driverVersion={"version": "1.0"}),
        "bad-name": lambda ds: ds[1].update(name="Not_A_Label"),
        "bad-taint": lambda ds: ds[0].update(taints=[{"key": "k", "effect": "Sometimes"}]),
        "duplicate-name": lambda ds: ds[1].update(name=ds[0]["name"]),
    }
    twins = [_twin(change) for change in [*bad.values(), CHANGES["int-value"], CHANGES["capacity"]]]
    for k, t in enumerate(twins):
        t["metadata"]["name"] = f"twin-{k}"
    together = [(e.source, e.field, e.message) for e in _admit_errors(_template(), *twins)]
    apart = [(f"doc {k}", e.field, e.message) for k, raw in enumerate([_template(), *twins])
             for e in _admit_errors(raw)]
    assert together == apart
    assert {source for source, _, _ in together} == {f"doc {k}" for k in range(1, 1 + len(bad))}


# -- property: any change to a twin, built after its template in one load, gives what validation gives alone

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_LEAVES: list[Any] = [0, 1, -1, 2**63, 1.0, 0.5, True, False, None, "", "x", "GPU-cccc", "1.0.0", "10Gi", [], [1],
                      [True], ["a"], {}, {"int": 1}, {"string": "y"}, {"bool": True}]


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*path, i))
    return out


def _apply(devices: list[Any], edit: tuple[int, int, Any, str]) -> None:
    pick, device, leaf, how = edit
    target = devices[device % len(devices)]
    paths = [p for p in _paths(target) if p]
    path = paths[pick % len(paths)]
    parent = target
    for k in path[:-1]:
        parent = parent[k]
    if how == "set":
        parent[path[-1]] = copy.deepcopy(leaf)
    elif how == "drop" and isinstance(parent, dict):
        del parent[path[-1]]
    elif how == "add" and isinstance(parent, dict):
        parent[f"k{pick % 7}"] = copy.deepcopy(leaf)
    elif how == "flip":   # a number or boolean as an equal value of another type (Python: 1 == 1.0 == True)
        numbers = [p for p in paths if _at(target, p) is not None and type(_at(target, p)) in (int, float, bool)]
        if numbers:
            path = numbers[pick % len(numbers)]
            parent = _at(target, path[:-1])
            v = parent[path[-1]]
            parent[path[-1]] = {int: bool(v) if v in (0, 1) else float(v), bool: int(v), float: int(v)}[type(v)]


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for k in path:
        value = value[k]
    return value


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 200), st.integers(0, 2), st.sampled_from(_LEAVES),
                          st.sampled_from(["set", "drop", "add", "flip"])), min_size=1, max_size=3))
def test_any_twin_is_what_validation_gives(edits: list[tuple[int, int, Any, str]]) -> None:
    twin = _twin()
    for edit in edits:
        _apply(twin["spec"]["devices"], edit)
    _assert_built_as_alone(twin)
