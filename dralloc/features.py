"""Allocator feature gates and the allocator variant they select.

Kubernetes ships three allocator implementations (stable, incubating,
experimental) and picks the most stable one whose supported feature set covers
the enabled features. dralloc models the variant as a value: one search engine
whose behaviour is switched by :class:`Variant` where the implementations differ.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from dralloc.errors import InputError

# Feature-gate names (as users and scenario files write them) -> allocator flag.
GATES = {
    "DRAAdminAccess": "admin_access",
    "DRAPrioritizedList": "prioritized_list",
    "DRAPartitionableDevices": "partitionable_devices",
    "DRADeviceTaints": "device_taints",
    "DRADeviceBindingConditions": "binding_conditions",
    "DRAResourceClaimDeviceStatus": None,  # needed together with binding conditions; no own flag
    "DRAConsumableCapacity": "consumable_capacity",
    "DRAListTypeAttributes": "list_type_attributes",
    "DRAResourceSliceMixins": None,  # handled by flattening on load, not by the allocator
    "DRADerivedAttributes": "derived_attributes",            # 1.37 alpha, KEP-6080
    "DRADeviceCompatibilityGroups": "compatibility_groups",  # 1.37 alpha, KEP-5963
}


# The gates a Kubernetes 1.36 cluster has on by default (pkg/features/kube_features.go
# at release-1.36): DRAPrioritizedList (GA), DRAAdminAccess (GA), DRAPartitionableDevices,
# DRADeviceTaints, DRAConsumableCapacity, DRADeviceBindingConditions (beta, on) and
# DRAResourceClaimDeviceStatus (beta since 1.33, on). Off by default: DRAListTypeAttributes
# (alpha in 1.36) and DRAResourceSliceMixins (alpha; dralloc flattens mixins on load anyway).
# The library, every command and the planner start from this set.
KUBERNETES_RELEASE = "1.36"
DEFAULT_GATES: tuple[str, ...] = (
    "DRAAdminAccess", "DRAConsumableCapacity", "DRADeviceBindingConditions", "DRADeviceTaints",
    "DRAPartitionableDevices", "DRAPrioritizedList", "DRAResourceClaimDeviceStatus",
)


class Variant(str, Enum):
    STABLE = "stable"
    INCUBATING = "incubating"
    EXPERIMENTAL = "experimental"


_SUPPORTED = {
    Variant.STABLE: {"admin_access", "prioritized_list", "partitionable_devices", "device_taints"},
    Variant.INCUBATING: {"admin_access", "prioritized_list", "partitionable_devices", "device_taints",
                         "binding_conditions", "consumable_capacity"},
    # 1.37's alphas (derived attributes, compatibility groups) live in the
    # experimental allocator, as every new allocator feature does first.
    Variant.EXPERIMENTAL: {"admin_access", "prioritized_list", "partitionable_devices", "device_taints",
                           "binding_conditions", "consumable_capacity", "list_type_attributes",
                           "derived_attributes", "compatibility_groups"},
}

# Allocator code that changed between releases without a gate of its own: a
# defect -> the first release whose allocator no longer has it. KEP-5491's
# second alpha (1.37) restores a matchAttribute's list intersection when the
# search backtracks (kubernetes/kubernetes#140300, fixed by #140325).
FIXED_IN = {"match-attribute-stale-intersection": (1, 37)}


@dataclass(frozen=True)
class Features:
    admin_access: bool = False
    prioritized_list: bool = False
    partitionable_devices: bool = False
    device_taints: bool = False
    binding_conditions: bool = False
    consumable_capacity: bool = False
    list_type_attributes: bool = False
    derived_attributes: bool = False
    compatibility_groups: bool = False
    # the Kubernetes release whose allocator code answers (what FIXED_IN reads)
    kubernetes_version: str = KUBERNETES_RELEASE

    @classmethod
    def from_gates(cls, names: Iterable[str], kubernetes_version: str = KUBERNETES_RELEASE) -> Features:
        flags: dict[str, bool] = {}
        for n in names:
            if n not in GATES:
                raise InputError(f"unknown feature gate {n!r}; known: {', '.join(sorted(GATES))}")
            flag = GATES[n]
            if flag:
                flags[flag] = True
        return cls(**flags, kubernetes_version=kubernetes_version)  # type: ignore[arg-type]

    @classmethod
    def default(cls) -> Features:
        """The feature set of a default Kubernetes cluster (:data:`DEFAULT_GATES`)."""
        return cls.from_gates(DEFAULT_GATES)

    @classmethod
    def of(cls, features: Features | Iterable[str] | None) -> Features:
        """What a caller passed as features: a feature set, gate names, or
        None for the default cluster's."""
        if features is None:
            return cls.default()
        if isinstance(features, Features):
            return features
        return cls.from_gates(features)

    @classmethod
    def all(cls) -> Features:
        return cls(True, True, True, True, True, True, True, True, True)

    def enabled(self) -> set[str]:
        return {k for k, v in self.__dict__.items() if v is True}

    def has_defect(self, defect: str) -> bool:
        """Whether this release's allocator still has ``defect`` (FIXED_IN)."""
        fixed = FIXED_IN.get(defect)
        if fixed is None:
            return True
        major, _, minor = self.kubernetes_version.partition(".")
        return (int(major), int(minor)) < fixed

    def gates(self) -> list[str]:
        return sorted(g for g, f in GATES.items() if f and getattr(self, f))

    def variant(self) -> Variant:
        """The variant Kubernetes picks: the most stable one supporting all flags."""
        on = self.enabled()
        for v in (Variant.STABLE, Variant.INCUBATING, Variant.EXPERIMENTAL):
            if on <= _SUPPORTED[v]:
                return v
        return Variant.EXPERIMENTAL  # pragma: no cover - experimental supports all

    def supported_by(self, variant: Variant) -> bool:
        return self.enabled() <= _SUPPORTED[variant]
