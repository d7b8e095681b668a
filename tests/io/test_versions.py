"""Older API versions are converted to the v1 layout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dralloc.errors import InputError
from dralloc.io import load, parse_object
from dralloc.models import DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice

REAL = Path(__file__).parent.parent / "data" / "real"
HEAD = REAL / "kubernetes-api-testdata" / "testdata" / "HEAD"
KINDS = ("ResourceSlice", "ResourceClaim", "ResourceClaimTemplate", "DeviceClass")


def _one(path: Path) -> Any:
    objs = load([path])
    assert not objs.errors, [str(e) for e in objs.errors]
    (obj,) = list(objs.all())
    return obj


@pytest.mark.parametrize("version", ["v1beta1", "v1beta2"])
@pytest.mark.parametrize("kind", KINDS)
def test_kubernetes_roundtrip_fixtures_convert_to_the_v1_fixture(version: str, kind: str) -> None:
    """Kubernetes' own API round-trip fixtures hold every field; converted,
    the older version must equal the v1 fixture field by field."""
    old = _one(HEAD / f"resource.k8s.io.{version}.{kind}.yaml")
    new = _one(HEAD / f"resource.k8s.io.v1.{kind}.yaml")
    assert old.api_version == "resource.k8s.io/v1"
    a, b = old.dump(), new.dump()
    for d in (a, b):  # the fixture generator fills exactly.count differently per version
        devices = d["spec"]["spec"]["devices"] if kind == "ResourceClaimTemplate" else d["spec"].get("devices")
        if kind != "ResourceSlice" and isinstance(devices, dict):
            devices["requests"][0]["exactly"].pop("count")
    assert a == b


def test_v1alpha3_slice_with_basic_devices() -> None:
    path = REAL / "nvidia-dra-driver-gpu/_history/a644eb794fa8/demo/clusters/kind/scripts/imex-resourceslice.yaml"
    objs = load([path])
    assert objs.slices and not objs.errors
    d = objs.slices[0].spec.devices[0]  # type: ignore[index]
    assert d.name == "imex-channel-0" and d.attributes["channel"].int_ == 0  # type: ignore[index]


def test_v1beta1_template_moves_request_fields_under_exactly() -> None:
    objs = load([REAL / "nvidia-dra-driver-gpu/demo/specs/quickstart/v1beta1/gpu-test1.yaml"])
    assert not objs.errors
    req = objs.templates[0].spec.spec.devices.requests[0]  # type: ignore[index]
    assert req.exactly is not None and req.exactly.device_class_name == "gpu.nvidia.com"
    assert req.exactly.count == 1 and req.exactly.allocation_mode == "ExactCount"  # API defaults applied


def obj(api: str, kind: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": f"resource.k8s.io/{api}", "kind": kind, "metadata": {"name": "x"}, "spec": spec}


SLICE_SPEC = {"driver": "d.example.com", "nodeName": "n", "pool": {"name": "p", "resourceSliceCount": 1}}

CONVERSIONS: list[tuple[str, dict[str, Any], Any]] = [
    ("v1alpha3 bare capacity", obj("v1alpha3", "ResourceSlice", {**SLICE_SPEC, "devices": [
        {"name": "a", "basic": {"capacity": {"memory": "8Gi"}}}]}),
     lambda o: str(o.spec.devices[0].capacity["memory"].value) == "8Gi"),
    ("v1beta1 capacity value", obj("v1beta1", "ResourceSlice", {**SLICE_SPEC, "devices": [
        {"name": "a", "basic": {"capacity": {"memory": {"value": "8Gi"}}}}]}),
     lambda o: str(o.spec.devices[0].capacity["memory"].value) == "8Gi"),
    ("v1beta1 device without basic", obj("v1beta1", "ResourceSlice", {**SLICE_SPEC, "devices": [{"name": "a"}]}),
     lambda o: o.spec.devices[0].name == "a" and o.spec.devices[0].attributes is None),
    ("v1beta1 firstAvailable", obj("v1beta1", "ResourceClaim", {"devices": {"requests": [
        {"name": "r", "firstAvailable": [{"name": "s", "deviceClassName": "c"}]}]}}),
     lambda o: o.spec.devices.requests[0].exactly is None and o.spec.devices.requests[0].first_available),
    ("v1beta1 adminAccess", obj("v1beta1", "ResourceClaim", {"devices": {"requests": [
        {"name": "r", "deviceClassName": "c", "adminAccess": True, "allocationMode": "All"}]}}),
     lambda o: o.spec.devices.requests[0].exactly.admin_access is True
     and o.spec.devices.requests[0].exactly.allocation_mode == "All"),
    ("v1alpha3 empty controller", obj("v1alpha3", "ResourceClaim", {"controller": "", "devices": {}}),
     lambda o: isinstance(o, ResourceClaim)),
    ("v1beta2 class", obj("v1beta2", "DeviceClass", {"selectors": [{"cel": {"expression": "true"}}]}),
     lambda o: isinstance(o, DeviceClass) and o.api_version == "resource.k8s.io/v1"),
    ("v1beta1 template", obj("v1beta1", "ResourceClaimTemplate", {"spec": {"devices": {"requests": [
        {"name": "r", "deviceClassName": "c", "count": 2}]}}}),
     lambda o: isinstance(o, ResourceClaimTemplate) and o.spec.spec.devices.requests[0].exactly.count == 2),
]


@pytest.mark.parametrize(("name", "data", "check"), CONVERSIONS, ids=[c[0] for c in CONVERSIONS])
def test_conversion(name: str, data: dict[str, Any], check: Any) -> None:
    o = parse_object(data, "t.yaml#0")
    assert o is not None and check(o)


REJECTED: list[tuple[str, dict[str, Any], str, str]] = [
    ("unknown device type", obj("v1beta1", "ResourceSlice", {**SLICE_SPEC, "devices": [
        {"name": "a", "composite": {}}]}), "spec.devices[0].composite", "unknown device type"),
    ("classic DRA controller", obj("v1alpha3", "ResourceClaim", {"controller": "ctl", "devices": {}}),
     "spec.controller", "controller"),
    ("suitableNodes", obj("v1alpha3", "DeviceClass", {"suitableNodes": {"nodeSelectorTerms": []}}),
     "spec.suitableNodes", "suitableNodes"),
    ("basic is not a mapping", obj("v1beta1", "ResourceSlice", {**SLICE_SPEC, "devices": [
        {"name": "a", "basic": [1]}]}), "spec.devices[0].basic", "expected a mapping"),
    ("bad field after conversion", obj("v1beta1", "ResourceSlice", {**SLICE_SPEC, "devices": [
        {"name": "a", "basic": {"attributes": {"x": {"int": "many"}}}}]}),
     "spec.devices[0].attributes.x.int", "converted from resource.k8s.io/v1beta1"),
]


@pytest.mark.parametrize(("name", "data", "fieldpath", "text"), REJECTED, ids=[r[0] for r in REJECTED])
def test_conversion_errors_name_the_field(name: str, data: dict[str, Any], fieldpath: str, text: str) -> None:
    with pytest.raises(InputError) as exc:
        parse_object(data, "t.yaml#0")
    assert exc.value.field == fieldpath and exc.value.source == "t.yaml#0"
    assert text in exc.value.message and exc.value.obj.startswith(data["kind"])


def test_converted_slice_is_a_v1_slice() -> None:
    o = parse_object(obj("v1beta1", "ResourceSlice", {**SLICE_SPEC, "devices": [{"name": "a", "basic": {}}]}))
    assert isinstance(o, ResourceSlice) and o.dump()["apiVersion"] == "resource.k8s.io/v1"
