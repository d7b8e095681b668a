"""The fast slice builder gives exactly what validating the whole object
gives: equal models with the same fields set, and the same error for bad
input; shared parts are shared, and the collector is restored."""

from __future__ import annotations

import copy
import gc
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from dralloc.io import build
from dralloc.io.parse import iter_documents
from dralloc.models import ResourceSlice

CORPUS = [Path("/work/shared/datasets"), Path("/work/shared/conformance"), Path(__file__).parent.parent / "data"]


def _raw_slices() -> list[dict[str, Any]]:
    out = []
    for root in CORPUS:
        for f in sorted(root.rglob("*.yaml")) if root.exists() else []:
            for d in iter_documents(f, lists=False):
                data = getattr(d, "data", None)
                for obj in _objects(data):
                    if obj.get("kind") == "ResourceSlice" and obj.get("apiVersion") == "resource.k8s.io/v1":
                        out.append(obj)
    return out


def _objects(data: Any) -> list[dict[str, Any]]:
    if not isinstance(data, dict):
        return []
    if isinstance(data.get("objects"), list):  # a scenario file
        return [o for o in data["objects"] if isinstance(o, dict)]
    if isinstance(data.get("items"), list):
        return [o for o in data["items"] if isinstance(o, dict)]
    return [data]


def _fields_set(m: Any) -> Any:
    """Every model's fields set, recursively (what exclude_unset dumps rely on)."""
    if isinstance(m, BaseModel):
        return (type(m).__name__, sorted(m.model_fields_set),
                {k: _fields_set(getattr(m, k)) for k in sorted(m.model_fields_set)})
    if isinstance(m, dict):
        return {k: _fields_set(v) for k, v in m.items()}
    if isinstance(m, list):
        return [_fields_set(v) for v in m]
    return None


SLICES = _raw_slices()


def test_the_corpus_has_slices() -> None:
    assert len(SLICES) > (100 if CORPUS[0].is_dir() else 5)  # shared/ sits beside the repository in CI


@pytest.mark.parametrize("i", range(0, len(SLICES), max(1, len(SLICES) // 150)))
def test_fast_build_equals_whole_validation(i: int) -> None:
    raw = SLICES[i]
    try:
        want = ResourceSlice.model_validate(copy.deepcopy(raw))
    except ValidationError as e:
        with pytest.raises(ValidationError) as got:
            build.validate(ResourceSlice, copy.deepcopy(raw))
        assert got.value.errors(include_url=False, include_context=False) == e.errors(include_url=False, include_context=False)
        return
    got_slice = build.validate(ResourceSlice, copy.deepcopy(raw))
    assert got_slice == want
    assert _fields_set(got_slice) == _fields_set(want)
    assert got_slice.dump() == want.dump()


DEVICE = {"name": "gpu-0", "attributes": {"model": {"string": "a100"}, "index": {"int": 0}},
          "capacity": {"memory": {"value": "40Gi"}},
          "consumesCounters": [{"counterSet": "cs", "counters": {"mem": {"value": "1"}}}]}
SLICE = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
         "spec": {"driver": "d.example.com", "nodeName": "n", "pool": {"name": "p"}}}


def _slice(*devices: dict[str, Any]) -> dict[str, Any]:
    s = copy.deepcopy(SLICE)
    s["spec"]["devices"] = list(devices)
    return s


@pytest.mark.parametrize(("change", "where"), [
    (lambda d: d["attributes"].update(bad={"int": "x"}), ("spec", "devices", 1, "attributes", "bad", "int")),
    (lambda d: d["attributes"].update(two={"int": 1, "bool": True}), None),
    (lambda d: d["capacity"].update(mem={"value": "12XB"}), ("spec", "devices", 1, "capacity", "mem", "value")),
    (lambda d: d.update(unknown=1), ("spec", "devices", 1, "unknown")),
    (lambda d: d.update(attributes=[1]), ("spec", "devices", 1, "attributes")),
    (lambda d: d["consumesCounters"].append({"counterSet": 5}), ("spec", "devices", 1, "consumesCounters", 1)),
    (lambda d: d["attributes"].update(l={"ints": [1, 2]}), None),
])
def test_unusual_devices_give_what_whole_validation_gives(change: Any, where: tuple[Any, ...] | None) -> None:
    second = copy.deepcopy(DEVICE)
    second["name"] = "gpu-1"
    change(second)
    raw = _slice(copy.deepcopy(DEVICE), second)
    try:
        want: Any = ResourceSlice.model_validate(copy.deepcopy(raw))
    except ValidationError as e:
        want = e.errors(include_url=False, include_context=False)
        assert where is None or where == tuple(want[0]["loc"][:len(where)])
    try:
        got: Any = build.validate(ResourceSlice, copy.deepcopy(raw))
    except ValidationError as e:
        got = e.errors(include_url=False, include_context=False)
    assert got == want


def test_repeated_parts_are_shared() -> None:
    other = dict(copy.deepcopy(DEVICE), name="gpu-1")
    s = build.validate(ResourceSlice, _slice(copy.deepcopy(DEVICE), other))
    assert isinstance(s, ResourceSlice)
    a, b = s.spec.devices or []
    assert a.attributes is not None and b.attributes is not None
    assert a.attributes["model"] is b.attributes["model"]
    assert a.consumes_counters and b.consumes_counters and a.consumes_counters[0] is b.consumes_counters[0]


def test_quiet_gc_restores_the_collector() -> None:
    assert gc.isenabled()
    with build.quiet_gc():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with build.quiet_gc():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
