"""Allocator feature gates and the allocator variant they select.

Kubernetes ships three allocator implementations (stable, incubating,
experimental) and picks the most stable one whose supported feature set covers
the enabled features. dralloc models the variant as a value: one search engine
whose behaviour is switched by :class:`Variant` where the implementations differ.

A :class:`Features` set belongs to a Kubernetes release (``kubernetes_version``,
default :data:`dralloc.release.DEFAULT_RELEASE`): the release decides which
gates exist, which are on by default and which variant is picked
(:mod:`dralloc.release`, the one table of what a release has).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from enum import Enum
from functools import lru_cache

from dralloc.errors import InputError
from dralloc.release import (
    DEFAULT_RELEASE,
    DRALLOC_ONLY_GATES,
    GATE_STAGES,
    Release,
    VariantSpec,
    release,
)

# Feature-gate names (as users and scenario files write them) -> allocator flag
# (a field of Features), or None for a gate that switches nothing in dralloc.
# DRADeviceBindingConditions stands for the allocator's flag for binding
# conditions and device status together (the scheduler sets it when both gates
# are on); DRAResourceClaimDeviceStatus on its own only counts where the
# release's allocator had a flag for it (1.34: it picked the variant).
FLAGS_OF_GATES = {
    "DRAAdminAccess": "admin_access",
    "DRAPrioritizedList": "prioritized_list",
    "DRAPartitionableDevices": "partitionable_devices",
    "DRADeviceTaints": "device_taints",
    "DRADeviceBindingConditions": "binding_conditions",
    "DRAResourceClaimDeviceStatus": "device_status",
    "DRAConsumableCapacity": "consumable_capacity",
    "DRAListTypeAttributes": "list_type_attributes",
    "DRAExtendedResource": "extended_resource",
    "DRADerivedAttributes": "derived_attributes",            # 1.37 alpha, KEP-6080
    "DRADeviceCompatibilityGroups": "compatibility_groups",  # 1.37 alpha, KEP-5963
}
GATES: dict[str, str | None] = {
    **FLAGS_OF_GATES,
    **{g: None for g in [*GATE_STAGES, *DRALLOC_ONLY_GATES] if g not in FLAGS_OF_GATES},
}

# Flags that only take part in choosing the variant (no engine reads them).
SELECTION_ONLY = frozenset({"device_status"})
# Flags of the scheduler, not of its allocator: they take no part in choosing
# the variant, and the allocation engines do not read them (the pod's claims
# do: DRAExtendedResource, dralloc.extended).
SCHEDULER_FLAGS = frozenset({"extended_resource"})

KUBERNETES_RELEASE = DEFAULT_RELEASE
# The gates a default cluster of the default release has on (its
# kube_features.go; docs/releases.md lists every release's). The library,
# every command and the planner start from this set.
DEFAULT_GATES: tuple[str, ...] = release().default_gates()


class Variant(str, Enum):
    STABLE = "stable"
    INCUBATING = "incubating"
    EXPERIMENTAL = "experimental"


# What each variant dralloc models supports (the 1.36+ code of each lineage).
_SUPPORTED = {Variant(spec.model): spec.supports for spec in release().variants()}


@dataclass(frozen=True)
class Features:
    admin_access: bool = False
    prioritized_list: bool = False
    partitionable_devices: bool = False
    device_taints: bool = False
    binding_conditions: bool = False
    consumable_capacity: bool = False
    list_type_attributes: bool = False
    device_status: bool = False
    extended_resource: bool = False
    derived_attributes: bool = False
    compatibility_groups: bool = False
    kubernetes_version: str = DEFAULT_RELEASE

    @classmethod
    def flags(cls) -> tuple[str, ...]:
        """The allocator flags (every boolean field)."""
        return _FLAG_NAMES

    @classmethod
    def from_gates(cls, names: Iterable[str], kubernetes_version: str | Release | None = None) -> Features:
        """Exactly the gates ``names`` on, in ``kubernetes_version``; a gate
        dralloc does not know, or one that release does not have, is an input
        error."""
        rel = release(kubernetes_version)
        flags: dict[str, bool] = {}
        for n in names:
            if n not in GATES:
                raise InputError(f"unknown feature gate {n!r}; known: {', '.join(sorted(GATES))}")
            if not rel.has_gate(n):
                raise InputError(rel.missing_gate(n))
            flag = GATES[n]
            if flag:
                flags[flag] = True
        return cls(**flags, kubernetes_version=rel.version)

    @classmethod
    def default(cls, kubernetes_version: str | Release | None = None) -> Features:
        """The feature set of a default cluster of that release (default:
        :data:`DEFAULT_GATES` of the default release)."""
        rel = release(kubernetes_version)
        return cls.from_gates(rel.default_gates(), rel)

    @classmethod
    def with_overrides(cls, overrides: dict[str, bool],
                       kubernetes_version: str | Release | None = None) -> Features:
        """A cluster of that release with some gates set otherwise, as
        ``--feature-gates=Name=true|false`` sets them: the release's defaults
        changed by ``overrides``. A gate the release does not have, or one
        locked to its default set the other way, is refused as Kubernetes
        refuses it; binding conditions count only with device status on, as
        the scheduler sets its allocator's flag."""
        rel = release(kubernetes_version)
        on = set(rel.default_gates())
        for name, value in overrides.items():
            if name not in GATES:
                raise InputError(f"unknown feature gate {name!r}; known: {', '.join(sorted(GATES))}")
            if not rel.has_gate(name):
                raise InputError(rel.missing_gate(name))
            stage = rel.stage(name)
            if stage is not None and stage.locked and value != stage.default:
                raise InputError(f"Kubernetes {rel} cannot set feature gate {name} to {str(value).lower()}: "
                                 f"it is locked to {str(stage.default).lower()} there ({stage.stage})")
            (on.add if value else on.discard)(name)
        if "DRAResourceClaimDeviceStatus" not in on:
            on.discard("DRADeviceBindingConditions")
        return cls.from_gates(sorted(on), rel)

    @classmethod
    def of(cls, features: Features | Iterable[str] | None,
           kubernetes_version: str | Release | None = None) -> Features:
        """What a caller passed as features: a feature set, gate names, or
        None for the default cluster's -- of ``kubernetes_version`` when
        given (a feature set of another release is moved to it)."""
        if features is None:
            return cls.default(kubernetes_version)
        if isinstance(features, Features):
            return features if kubernetes_version is None else features.in_release(kubernetes_version)
        return cls.from_gates(features, kubernetes_version)

    @classmethod
    def all(cls, kubernetes_version: str | Release | None = None) -> Features:
        """Every flag on (``--features all``)."""
        rel = release(kubernetes_version)
        return cls(**{f: rel.has_gate(g) for g, f in GATES.items() if f}, kubernetes_version=rel.version)

    def in_release(self, kubernetes_version: str | Release) -> Features:
        """The same gates in another release (each must exist there)."""
        rel = release(kubernetes_version)
        if rel.version == self.kubernetes_version:
            return self
        for g in self.gates():
            if not rel.has_gate(g):
                raise InputError(rel.missing_gate(g))
        return replace(self, kubernetes_version=rel.version)

    @property
    def release(self) -> Release:
        return Release(self.kubernetes_version)

    def enabled(self) -> set[str]:
        """The allocator flags on that the engines read."""
        return {f for f in _ENGINE_FLAGS if getattr(self, f)}

    def has_defect(self, defect: str) -> bool:
        """Whether this release's allocator still has ``defect`` (code changed
        between releases without a gate: dralloc.release.FIXED_DEFECTS)."""
        return self.release.has_defect(defect)

    def gates(self) -> list[str]:
        return sorted(g for g, f in GATES.items() if f and getattr(self, f))

    def variant(self) -> Variant:
        """The variant Kubernetes picks in this release (the most stable one
        supporting all flags), as the dralloc variant that models its code."""
        return _variant(self)

    def kubernetes_variant(self) -> str:
        """The name the release gives the variant it picks."""
        return self.pick().name

    def pick(self) -> VariantSpec:
        """The release's variant for these flags (:meth:`dralloc.release.Release.pick`)."""
        return _pick(self.kubernetes_version, frozenset(f for f in _ALLOCATOR_FLAGS if getattr(self, f)))

    def supported_by(self, variant: Variant) -> bool:
        return self.enabled() <= _SUPPORTED[variant]


_FLAG_NAMES: tuple[str, ...] = tuple(f.name for f in fields(Features) if f.name != "kubernetes_version")
_ALLOCATOR_FLAGS: tuple[str, ...] = tuple(f for f in _FLAG_NAMES if f not in SCHEDULER_FLAGS)
_ENGINE_FLAGS: tuple[str, ...] = tuple(f for f in _ALLOCATOR_FLAGS if f not in SELECTION_ONLY)


@lru_cache(maxsize=256)
def _pick(version: str, on: frozenset[str]) -> VariantSpec:
    return Release(version).pick(on)


@lru_cache(maxsize=1024)
def _variant(features: Features) -> Variant:
    return Variant(features.pick().model)
