"""A scenario's allocator variant must support its features: Kubernetes only
creates a variant that supports every enabled feature, so stable with
consumable capacity describes no allocator it runs (fuzz seed 20261124,
input 6417: both engines then double-booked a device shared under a shareID,
which the stable allocator does not track)."""

from __future__ import annotations

import pytest

from dralloc.errors import InputError
from dralloc.io.scenario import parse_scenario


def _doc(variant: str, features: list[str]) -> dict[str, object]:
    return {"name": "v", "variant": variant, "features": features, "objects": [], "claims": []}


@pytest.mark.parametrize(("variant", "features"), [
    ("stable", ["DRAConsumableCapacity"]),
    ("stable", ["DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus"]),
    ("incubating", ["DRAListTypeAttributes"]),
])
def test_a_variant_without_the_features_is_refused(variant: str, features: list[str]) -> None:
    with pytest.raises(InputError) as e:
        parse_scenario(_doc(variant, features), "s.yaml")
    assert e.value.field == "variant" and f"variant {variant} does not support" in e.value.message


@pytest.mark.parametrize(("variant", "features"), [
    ("stable", ["DRAPrioritizedList", "DRAAdminAccess"]),
    ("incubating", ["DRAConsumableCapacity"]),
    ("experimental", ["DRAConsumableCapacity"]),
    ("experimental", []),
])
def test_a_variant_with_the_features_is_read(variant: str, features: list[str]) -> None:
    assert parse_scenario(_doc(variant, features), "s.yaml").variant == variant
