"""--features of a release: gate names (exactly those on) or Name=true|false
overrides of the release's defaults, refused where Kubernetes refuses them."""

from __future__ import annotations

import pytest

from dralloc.cli.common import parse_features
from dralloc.errors import InputError
from dralloc.features import Features


def test_no_features_means_the_releases_defaults() -> None:
    assert parse_features(None, "1.34") == Features.default("1.34")
    assert parse_features(None, "1.34").partitionable_devices is False
    assert parse_features(None, None).partitionable_devices is True


def test_overrides_change_single_gates_of_the_release() -> None:
    f = parse_features("DRAConsumableCapacity=false,DRAListTypeAttributes=true", "1.37")
    assert not f.consumable_capacity and f.list_type_attributes
    assert f.partitionable_devices and f.device_taints   # the other defaults stay
    assert f.kubernetes_variant() == "experimental"
    g = parse_features("DRAPartitionableDevices=true", "1.34")
    assert g.partitionable_devices and not g.device_taints and g.kubernetes_version == "1.34"


def test_binding_conditions_count_only_with_device_status() -> None:
    """The scheduler sets its allocator's flag from both gates (1.35+)."""
    f = parse_features("DRAResourceClaimDeviceStatus=false", "1.36")
    assert not f.binding_conditions


def test_locked_gates_cannot_be_turned_off() -> None:
    with pytest.raises(InputError, match="Kubernetes 1.37 cannot set feature gate DRAPrioritizedList to false: "
                                         "it is locked to true there"):
        parse_features("DRAPrioritizedList=false", "1.37")
    assert not parse_features("DRAPrioritizedList=false", "1.36").prioritized_list   # GA, not locked yet


@pytest.mark.parametrize(("text", "message"), [
    ("DRAListTypeAttributes=true", "Kubernetes 1.35 has no feature gate DRAListTypeAttributes"),
    ("DRAPartitionableDevices=maybe", "the value of a gate is true or false"),
    ("DRAPartitionableDevices=true,DRADeviceTaints", "not both"),
    ("DRANoSuchGate=true", "unknown feature gate 'DRANoSuchGate'"),
])
def test_bad_overrides(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_features(text, "1.35")


def test_all_is_every_flag_the_release_has() -> None:
    assert not parse_features("all", "1.35").list_type_attributes
    assert parse_features("all", "1.36").list_type_attributes
    assert parse_features("none", "1.34").enabled() == set()
    assert parse_features("none", "1.34").kubernetes_version == "1.34"


def test_a_feature_set_moves_to_another_release_only_with_its_gates() -> None:
    f = Features.from_gates(["DRAListTypeAttributes"], "1.37")
    assert Features.of(f, "1.36").kubernetes_version == "1.36"
    with pytest.raises(InputError, match="Kubernetes 1.35 has no feature gate DRAListTypeAttributes"):
        Features.of(f, "1.35")
