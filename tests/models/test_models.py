"""Each model reads its v1 form, keeps pointer semantics, rejects unknown
fields and prints back what it read."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from dralloc.models import (
    DeviceClass,
    Node,
    Pod,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
    TypedObject,
)

META = {"name": "x"}
SAMPLES: list[tuple[type[TypedObject], dict[str, Any]]] = [
    (ResourceSlice, {"spec": {"driver": "d.example.com", "nodeName": "n", "pool": {"name": "p", "generation": 2,
     "resourceSliceCount": 1}, "perDeviceNodeSelection": False, "devices": [
        {"name": "a", "attributes": {"m": {"string": "s"}, "l": {"ints": [1, 2]}},
         "capacity": {"mem": {"value": "1Gi", "requestPolicy": {"default": "1Mi"}}},
         "bindingConditions": [], "taints": [{"key": "k", "effect": "NoSchedule"}]}]}}),
    (DeviceClass, {"spec": {"selectors": [{"cel": {"expression": "true"}}], "extendedResourceName": "e.com/gpu"}}),
    (ResourceClaim, {"spec": {"devices": {"requests": [{"name": "r", "exactly": {
        "deviceClassName": "c", "adminAccess": False, "count": 0}}]}},
        "status": {"allocation": {"devices": {"results": [
            {"request": "r", "driver": "d", "pool": "p", "device": "a", "shareID": "u"}]}}}}),
    (ResourceClaimTemplate, {"spec": {"spec": {"devices": {"requests": [{"name": "r", "firstAvailable": [
        {"name": "s", "deviceClassName": "c"}]}]}}}}),
    (Node, {"metadata": {"name": "n", "labels": {"a": "b"}}, "status": {"capacity": {"cpu": "4"}}}),
    (Pod, {"spec": {"containers": [{"name": "c", "image": "i"}], "resourceClaims": [
        {"name": "g", "resourceClaimTemplateName": "t"}]}}),
]


def _obj(model: type[TypedObject], body: dict[str, Any]) -> dict[str, Any]:
    api = "v1" if model in (Node, Pod) else "resource.k8s.io/v1"
    return {"apiVersion": api, "kind": model.__name__, "metadata": META, **body}


@pytest.mark.parametrize(("model", "body"), SAMPLES, ids=[m.__name__ for m, _ in SAMPLES])
def test_model_reads_and_prints_back(model: type[TypedObject], body: dict[str, Any]) -> None:
    data = _obj(model, body)
    obj = model.model_validate(data)
    again = model.model_validate(obj.dump())
    assert again == obj and again.dump() == obj.dump()


def test_pointer_semantics_are_kept() -> None:
    s = ResourceSlice.model_validate(_obj(*SAMPLES[0]))
    d = s.spec.devices[0]  # type: ignore[index]
    assert d.binding_conditions == [] and d.node_name is None  # empty list is not "unset"
    assert s.spec.per_device_node_selection is False
    c = ResourceClaim.model_validate(_obj(*SAMPLES[2]))
    ex = c.spec.devices.requests[0].exactly  # type: ignore[index]
    assert ex is not None and ex.admin_access is False and ex.count == 0


@pytest.mark.parametrize(("model", "body"), SAMPLES[:4], ids=[m.__name__ for m, _ in SAMPLES[:4]])
def test_misspelt_field_is_rejected(model: type[TypedObject], body: dict[str, Any]) -> None:
    data = _obj(model, body)
    data["spec"] = {**data["spec"], "selecters": []}
    with pytest.raises(ValidationError, match="selecters"):
        model.model_validate(data)


def test_models_are_frozen() -> None:
    s = ResourceSlice.model_validate(_obj(*SAMPLES[0]))
    with pytest.raises(ValidationError):
        s.spec.driver = "other"  # type: ignore[misc]
