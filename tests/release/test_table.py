"""The release table against the facts read from Kubernetes (docs/releases.md):
kube_features.go's versioned specs, each release's allocator variants and
kubernetes/api's group versions."""

from __future__ import annotations

import pytest

from dralloc.errors import InputError
from dralloc.features import DEFAULT_GATES, GATES, Features, Variant
from dralloc.release import DEFAULT_RELEASE, RELEASES, Release, release


def test_default_release_is_1_37_and_its_gates_are_the_library_default() -> None:
    assert DEFAULT_RELEASE == "1.37"
    assert DEFAULT_GATES == Release("1.37").default_gates()
    assert Features.default() == Features.from_gates(DEFAULT_GATES, "1.37")


@pytest.mark.parametrize(("version", "on", "off"), [
    # alpha in 1.34/1.35: partitionable devices, taints, binding conditions, consumable capacity
    ("1.34", {"DRAAdminAccess", "DRAPrioritizedList", "DRAResourceClaimDeviceStatus"},
     {"DRAPartitionableDevices", "DRADeviceTaints", "DRADeviceBindingConditions", "DRAConsumableCapacity",
      "DRAExtendedResource"}),
    ("1.35", {"DRAAdminAccess", "DRAPrioritizedList", "DRAResourceClaimDeviceStatus"},
     {"DRAPartitionableDevices", "DRADeviceTaints", "DRADeviceBindingConditions", "DRAConsumableCapacity",
      "GenericWorkload"}),
    # beta and on in 1.36: the lot, but list-type attributes and node-allocatable resources are alpha
    ("1.36", {"DRAPartitionableDevices", "DRADeviceTaints", "DRADeviceBindingConditions", "DRAConsumableCapacity",
              "DRAExtendedResource"}, {"DRAListTypeAttributes", "DRANodeAllocatableResources"}),
    # 1.37: the Workload API's gate is beta but still off
    ("1.37", {"DRAPartitionableDevices", "DRAPrioritizedList", "DRAExtendedResource"},
     {"GenericWorkload", "DRAWorkloadResourceClaims", "DRAListTypeAttributes"}),
])
def test_gates_on_by_default(version: str, on: set[str], off: set[str]) -> None:
    defaults = set(Release(version).default_gates())
    assert on <= defaults
    assert not off & defaults


def test_gates_a_release_does_not_have_are_refused() -> None:
    with pytest.raises(InputError, match=r"Kubernetes 1\.35 has no feature gate DRAListTypeAttributes "
                                         r"\(alpha since 1\.36\)"):
        Features.from_gates(["DRAListTypeAttributes"], "1.35")
    with pytest.raises(InputError, match="has no feature gate GenericWorkload"):
        Features.from_gates(["GenericWorkload"], "1.34")
    # a gate dralloc reads that no release has (KEP-5234 mixins) is taken everywhere
    assert Features.from_gates(["DRAResourceSliceMixins"], "1.34").enabled() == set()


@pytest.mark.parametrize(("version", "kubernetes", "model"), [
    # 1.34: DRAResourceClaimDeviceStatus (beta, on) was supported by experimental only
    ("1.34", "experimental", Variant.INCUBATING),
    # 1.35: one flag for binding and status, off by default: incubating (1.36's stable code)
    ("1.35", "incubating", Variant.STABLE),
    ("1.36", "incubating", Variant.INCUBATING),
    ("1.37", "incubating", Variant.INCUBATING),
])
def test_the_variant_a_default_cluster_runs(version: str, kubernetes: str, model: Variant) -> None:
    f = Features.default(version)
    assert f.kubernetes_variant() == kubernetes
    assert f.variant() is model


@pytest.mark.parametrize("version", RELEASES)
def test_no_features_is_stable_and_list_types_are_experimental(version: str) -> None:
    assert Features(kubernetes_version=version).kubernetes_variant() == "stable"
    if Release(version).has_gate("DRAListTypeAttributes"):
        assert Features.from_gates(["DRAListTypeAttributes"], version).variant() is Variant.EXPERIMENTAL


def test_device_status_alone_picks_experimental_only_in_1_34() -> None:
    gates = ["DRAResourceClaimDeviceStatus", "DRAPartitionableDevices"]
    assert Features.from_gates(gates, "1.34").kubernetes_variant() == "experimental"
    assert Features.from_gates(gates, "1.35").kubernetes_variant() == "incubating"
    assert Features.from_gates(gates, "1.36").kubernetes_variant() == "stable"
    # it never switches anything in the engines
    assert "device_status" not in Features.from_gates(gates, "1.34").enabled()


@pytest.mark.parametrize(("api", "kind", "serving"), [
    ("resource.k8s.io/v1", "ResourceSlice", RELEASES),
    ("resource.k8s.io/v1beta1", "ResourceClaim", RELEASES),       # removed in 1.38
    ("resource.k8s.io/v1beta2", "DeviceClass", RELEASES),
    ("resource.k8s.io/v1alpha3", "ResourceSlice", ()),            # 1.31-1.33 only
    ("scheduling.k8s.io/v1alpha1", "Workload", ("1.35",)),
    ("scheduling.k8s.io/v1alpha2", "PodGroup", ("1.36",)),
    ("scheduling.k8s.io/v1alpha3", "PodGroup", ("1.37",)),
    ("scheduling.k8s.io/v1beta1", "Workload", ("1.37",)),
    ("scheduling.k8s.io/v1beta1", "PodGroup", ("1.37",)),
    ("v1", "Pod", RELEASES),
])
def test_served_api_versions(api: str, kind: str, serving: tuple[str, ...]) -> None:
    assert tuple(v for v in RELEASES if Release(v).serves(api, kind)) == serving


def test_unserved_names_the_release_and_where_the_kind_lives_there() -> None:
    why = Release("1.37").unserved("scheduling.k8s.io/v1alpha2", "PodGroup")
    assert why == ("Kubernetes 1.37 does not serve PodGroup in scheduling.k8s.io/v1alpha2 (served in 1.36); "
                   "it serves PodGroup in scheduling.k8s.io/v1alpha3, scheduling.k8s.io/v1beta1")
    assert Release("1.36").unserved("scheduling.k8s.io/v1alpha2", "PodGroup") is None
    assert Release("1.37").unserved("example.com/v1", "Widget") is None   # not a pair dralloc reads


def test_fields_of_one_release() -> None:
    path = "spec.devices[].nodeAllocatableResourceMappings"
    assert Release("1.36").unserved_field("ResourceSlice", path) is None
    assert "it has nodeAllocatableResources instead" in (Release("1.37").unserved_field("ResourceSlice", path) or "")
    assert Release("1.36").unserved_field("ResourceSlice", "spec.devices[].nodeAllocatableResources")


@pytest.mark.parametrize("text", ["1.37", "v1.37", "1.37.2", "v1.37.0-rc.1"])
def test_release_names(text: str) -> None:
    assert release(text).version == "1.37"


@pytest.mark.parametrize("text", ["1.33", "1.38", "2.0", "latest", ""])
def test_other_releases_are_input_errors(text: str) -> None:
    with pytest.raises(InputError, match="choose one of 1.34, 1.35, 1.36, 1.37"):
        release(text)


def test_every_gate_dralloc_knows_has_a_history_or_is_dralloc_only() -> None:
    from dralloc.release import DRALLOC_ONLY_GATES, GATE_STAGES

    assert set(GATES) == set(GATE_STAGES) | set(DRALLOC_ONLY_GATES)


def test_defects_fixed_by_a_release(monkeypatch: pytest.MonkeyPatch) -> None:
    from dralloc import release as rel

    monkeypatch.setitem(rel.FIXED_DEFECTS, "some-defect", "1.36")
    assert Features.default("1.35").has_defect("some-defect")
    assert not Features.default("1.36").has_defect("some-defect")
    assert Features.default("1.34").has_defect("another-defect")   # never fixed: every release has it
