"""The Kubernetes release dralloc answers for (``--kubernetes-version``,
``kubernetes_version=``): one table of what a release has, read by io (the
API versions it serves), the features (the gates it has on by default) and
every engine (the allocator variant it picks).

Each row was read from Kubernetes itself (docs/releases.md cites them):

* **gates** -- ``pkg/features/kube_features.go`` (kubernetes/kubernetes): the
  versioned spec of every gate (since which release, alpha/beta/GA, on or off,
  locked to its default);
* **variants** -- ``structured/allocator.go`` and each implementation's
  ``SupportedFeatures`` in kubernetes/dynamic-resource-allocation at tags
  v0.34.x .. v0.36.x and master (1.37): ``NewAllocator`` takes the first of
  stable, incubating, experimental whose supported set covers the enabled
  one. In 1.34 the set held DRAResourceClaimDeviceStatus on its own (only
  experimental listed it, so a default 1.34 cluster ran experimental; fixed
  in 1.35 by one flag for binding conditions and device status together);
* **served API versions** -- the kinds each group version registers in
  kubernetes/api (``register.go``) at tags v0.31.0 .. v0.37.x, and the
  removal release of beta kinds (``zz_generated.prerelease-lifecycle.go``);
* **fields** -- ``resource/v1/types.go``: 1.36's alpha
  ``nodeAllocatableResourceMappings`` was replaced in 1.37 by
  ``nodeAllocatableResources`` (the old field tombstoned, not converted).

A new release is one more entry in :data:`RELEASES`, its gate changes in
:data:`GATE_STAGES`, its variants in :data:`VARIANTS`, the defects its
allocator fixed in :data:`FIXED_DEFECTS` and its API changes in
:data:`SERVED` / :data:`FIELDS`."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from dralloc.errors import InputError

RELEASES = ("1.34", "1.35", "1.36", "1.37")
DEFAULT_RELEASE = "1.37"

ALPHA, BETA, GA = "alpha", "beta", "GA"


def minor(version: str) -> int:
    """``"1.37"`` -> 37."""
    return int(version.split(".")[1])


@dataclass(frozen=True)
class Stage:
    """One row of a gate's versioned spec: from release ``since`` on."""

    since: str
    stage: str
    default: bool
    locked: bool = False


def _s(since: str, stage: str, default: bool, locked: bool = False) -> Stage:
    return Stage(since, stage, default, locked)


# Feature gates dralloc knows, with their history (kube_features.go). Allocator
# flags are in dralloc.features.GATES; gates without a flag are read for what
# they say about a release (defaults, the objects it reads) but switch nothing.
GATE_STAGES: dict[str, tuple[Stage, ...]] = {
    "DRAAdminAccess": (_s("1.32", ALPHA, False), _s("1.34", BETA, True), _s("1.36", GA, True, True)),
    "DRAConsumableCapacity": (_s("1.34", ALPHA, False), _s("1.36", BETA, True)),
    "DRADeviceBindingConditions": (_s("1.34", ALPHA, False), _s("1.36", BETA, True)),
    "DRADeviceCompatibilityGroups": (_s("1.37", ALPHA, False),),
    "DRADerivedAttributes": (_s("1.37", ALPHA, False),),
    "DRADeviceTaints": (_s("1.33", ALPHA, False), _s("1.36", BETA, True), _s("1.37", GA, True)),
    "DRAExtendedResource": (_s("1.34", ALPHA, False), _s("1.36", BETA, True), _s("1.37", GA, True, True)),
    "DRAListTypeAttributes": (_s("1.36", ALPHA, False),),
    "DRANodeAllocatableResources": (_s("1.36", ALPHA, False),),
    "DRAPartitionableDevices": (_s("1.33", ALPHA, False), _s("1.36", BETA, True)),
    "DRAPrioritizedList": (_s("1.33", ALPHA, False), _s("1.34", BETA, True), _s("1.36", GA, True),
                           _s("1.37", GA, True, True)),
    "DRAResourceClaimDeviceStatus": (_s("1.32", ALPHA, False), _s("1.33", BETA, True),
                                     _s("1.37", GA, True, True)),
    "DRAWorkloadResourceClaims": (_s("1.36", ALPHA, False), _s("1.37", BETA, False)),
    "GenericWorkload": (_s("1.35", ALPHA, False), _s("1.37", BETA, False)),
}

# Gates dralloc accepts that no Kubernetes release it answers for has: they
# are taken in every release and change nothing there.
DRALLOC_ONLY_GATES = {
    "DRAResourceSliceMixins": "KEP-5234 (ResourceSlice mixins) is in no Kubernetes release 1.34-1.37; "
                              "dralloc flattens mixins on load whatever the gates",
}


@dataclass(frozen=True)
class VariantSpec:
    """One allocator implementation of a release: its name there, the
    allocator flags it supports (dralloc.features.Features field names) and
    the dralloc variant that models its code (dralloc's engines follow the
    1.36+ code of each lineage: 1.34/1.35's incubating became 1.36's stable
    verbatim, their experimental 1.36's incubating; docs/releases.md lists
    what dralloc does not reproduce of the older copies)."""

    name: str
    supports: frozenset[str]
    model: str


_BASIC = frozenset({"admin_access", "prioritized_list", "partitionable_devices", "device_taints"})
_SHARING = _BASIC | {"binding_conditions", "consumable_capacity"}

VARIANTS: dict[str, tuple[VariantSpec, ...]] = {
    # 1.34: separate DeviceBinding and DeviceStatus flags; only experimental lists them
    "1.34": (VariantSpec("stable", frozenset(), "stable"),
             VariantSpec("incubating", _BASIC, "stable"),
             VariantSpec("experimental", _SHARING | {"device_status"}, "incubating")),
    "1.35": (VariantSpec("stable", frozenset(), "stable"),
             VariantSpec("incubating", _BASIC, "stable"),
             VariantSpec("experimental", _SHARING, "incubating")),
    "1.36": (VariantSpec("stable", _BASIC, "stable"),
             VariantSpec("incubating", _SHARING, "incubating"),
             VariantSpec("experimental", _SHARING | {"list_type_attributes"}, "experimental")),
    # 1.37's allocator alphas (KEP-6080 derived attributes, KEP-5963
    # compatibility groups) are in no allocator source dralloc follows yet:
    # dralloc puts them where every new allocator feature goes first
    # (docs/engine.md, "Kubernetes 1.37's alpha allocator features").
    "1.37": (VariantSpec("stable", _BASIC, "stable"),
             VariantSpec("incubating", _SHARING, "incubating"),
             VariantSpec("experimental", _SHARING | {"list_type_attributes", "derived_attributes",
                                                      "compatibility_groups"}, "experimental")),
}

# Allocator code that changed between releases without a gate of its own: a
# defect id (dralloc.defects) -> the first release whose allocator no longer
# has it. Engines ask Features.has_defect(id).
FIXED_DEFECTS: dict[str, str] = {
    # KEP-5491's second alpha: matchAttribute over list attributes restores its
    # intersection on backtracking (kubernetes/kubernetes#140300, fixed by #140325)
    "match-attribute-stale-intersection": "1.37",
}

# Releases whose allocator sees DRAResourceClaimDeviceStatus as a flag of its own.
SEPARATE_DEVICE_STATUS = frozenset({"1.34"})

# (apiVersion, kind) -> (first release serving it, last one or None when it is
# still served by the newest release dralloc knows).
SERVED: dict[tuple[str, str], tuple[str, str | None]] = {
    **{("resource.k8s.io/v1alpha3", k): ("1.31", "1.33")
       for k in ("ResourceSlice", "DeviceClass", "ResourceClaim", "ResourceClaimTemplate")},
    **{("resource.k8s.io/v1beta1", k): ("1.32", "1.37")
       for k in ("ResourceSlice", "DeviceClass", "ResourceClaim", "ResourceClaimTemplate")},
    **{("resource.k8s.io/v1beta2", k): ("1.33", "1.38")
       for k in ("ResourceSlice", "DeviceClass", "ResourceClaim", "ResourceClaimTemplate")},
    **{("resource.k8s.io/v1", k): ("1.34", None)
       for k in ("ResourceSlice", "DeviceClass", "ResourceClaim", "ResourceClaimTemplate")},
    ("resource.k8s.io/v1alpha3", "DeviceTaintRule"): ("1.33", "1.38"),
    ("resource.k8s.io/v1beta2", "DeviceTaintRule"): ("1.36", "1.41"),
    ("resource.k8s.io/v1", "DeviceTaintRule"): ("1.37", None),
    ("resource.k8s.io/v1alpha3", "ResourcePoolStatusRequest"): ("1.36", "1.41"),
    ("scheduling.k8s.io/v1alpha1", "Workload"): ("1.35", "1.35"),
    ("scheduling.k8s.io/v1alpha2", "Workload"): ("1.36", "1.36"),
    ("scheduling.k8s.io/v1alpha2", "PodGroup"): ("1.36", "1.36"),
    **{("scheduling.k8s.io/v1alpha3", k): ("1.37", None) for k in ("Workload", "PodGroup", "CompositePodGroup")},
    **{("scheduling.k8s.io/v1beta1", k): ("1.37", "1.42") for k in ("Workload", "PodGroup")},
    ("v1", "Node"): ("1.0", None),
    ("v1", "Pod"): ("1.0", None),
    ("policy/v1", "PodDisruptionBudget"): ("1.21", None),
    ("scheduling.k8s.io/v1", "PriorityClass"): ("1.14", None),
}

# Fields of one kind that only some releases have: (kind, path with [] for
# every list item) -> (first release, last one or None).
FIELDS: dict[tuple[str, str], tuple[str, str | None]] = {
    ("ResourceSlice", "spec.devices[].nodeAllocatableResourceMappings"): ("1.36", "1.36"),
    ("ResourceSlice", "spec.devices[].nodeAllocatableResources"): ("1.37", None),
    ("DeviceTaintRule", "spec.deviceSelector.deviceClassName"): ("1.33", "1.34"),
    ("DeviceTaintRule", "spec.deviceSelector.selectors"): ("1.33", "1.34"),
    # 1.37's allocator alphas (KEP-5963, KEP-6080)
    ("ResourceSlice", "spec.devices[].consumesCounters[].compatibilityGroups"): ("1.37", None),
    ("ResourceClaim", "status.allocation.devices.results[].compatibilityGroups"): ("1.37", None),
    ("ResourceClaim", "spec.devices.requests[].exactly.derivedAttributes"): ("1.37", None),
    ("ResourceClaim", "spec.devices.requests[].firstAvailable[].derivedAttributes"): ("1.37", None),
    ("ResourceClaimTemplate", "spec.spec.devices.requests[].exactly.derivedAttributes"): ("1.37", None),
    ("ResourceClaimTemplate", "spec.spec.devices.requests[].firstAvailable[].derivedAttributes"): ("1.37", None),
}
# The first release whose scheduler knows compatibility groups: with the gate
# off it skips the devices that declare them (older ones never see the field).
COMPATIBILITY_GROUPS_KNOWN = "1.37"


def _range_text(first: str, last: str | None) -> str:
    if last is None or minor(last) > minor(RELEASES[-1]):  # removal not yet known for sure
        return f"from {first} on"
    return first if first == last else f"{first}-{last}"


def _within(version: str, first: str, last: str | None) -> bool:
    v = minor(version)
    return minor(first) <= v and (last is None or v <= minor(last))


_VERSION = re.compile(r"^v?1\.(\d+)(?:\.\d+)?(?:[-+].*)?$")


@dataclass(frozen=True)
class Release:
    """One Kubernetes minor release (``Release("1.37")``)."""

    version: str

    # ------------------------------------------------------------ gates
    def stage(self, gate: str) -> Stage | None:
        """The gate's spec in this release, or None when it does not exist yet."""
        rows = [s for s in GATE_STAGES.get(gate, ()) if minor(s.since) <= minor(self.version)]
        return rows[-1] if rows else None

    def has_gate(self, gate: str) -> bool:
        return gate in DRALLOC_ONLY_GATES or self.stage(gate) is not None

    def default_gates(self) -> tuple[str, ...]:
        """The gates this release has on by default, sorted."""
        return tuple(sorted(g for g in GATE_STAGES if (s := self.stage(g)) is not None and s.default))

    def gates(self) -> tuple[str, ...]:
        """Every gate this release has (of those dralloc knows), sorted."""
        return tuple(sorted(g for g in GATE_STAGES if self.stage(g) is not None))

    def missing_gate(self, gate: str) -> str:
        """Why ``gate`` cannot be set in this release (the gate does not exist here)."""
        rows = GATE_STAGES.get(gate, ())
        when = f" ({rows[0].stage} since {rows[0].since})" if rows else ""
        return f"Kubernetes {self.version} has no feature gate {gate}{when}"

    # ------------------------------------------------------------ variants
    def variants(self) -> tuple[VariantSpec, ...]:
        return VARIANTS[self.version]

    def selection(self, flags: Iterable[str]) -> frozenset[str]:
        """The set ``NewAllocator`` compares with each variant's supported one:
        the allocator flags on (device status counts on its own only where the
        release's allocator has a flag for it)."""
        on = frozenset(flags)
        return on if self.version in SEPARATE_DEVICE_STATUS else on - {"device_status"}

    def pick(self, flags: Iterable[str]) -> VariantSpec:
        """The variant this release's scheduler creates for ``flags``: the
        first, most stable one whose supported set covers them."""
        need = self.selection(flags)
        for spec in self.variants():
            if need <= spec.supports:
                return spec
        names = ", ".join(sorted(need - self.variants()[-1].supports))
        raise InputError(f"Kubernetes {self.version} has no allocator for the features {names}")

    def has_defect(self, defect: str) -> bool:
        """Whether this release's allocator still has ``defect`` (:data:`FIXED_DEFECTS`)."""
        fixed = FIXED_DEFECTS.get(defect)
        return fixed is None or minor(self.version) < minor(fixed)

    # ------------------------------------------------------------ API versions
    def serves(self, api_version: str, kind: str) -> bool:
        """Whether this release serves ``kind`` in ``api_version`` (an alpha or
        beta version may still need enabling: docs/releases.md)."""
        span = SERVED.get((api_version, kind))
        return span is not None and _within(self.version, *span)

    def unserved(self, api_version: str, kind: str) -> str | None:
        """Why this release does not serve (apiVersion, kind), or None when it
        does or when dralloc knows nothing of that pair."""
        span = SERVED.get((api_version, kind))
        if span is None or _within(self.version, *span):
            return None
        now = sorted(a for (a, k), s in SERVED.items() if k == kind and _within(self.version, *s))
        instead = f"; it serves {kind} in {', '.join(now)}" if now else ""
        return (f"Kubernetes {self.version} does not serve {kind} in {api_version} (served in "
                f"{_range_text(*span)}){instead}")

    def unserved_field(self, kind: str, path: str) -> str | None:
        """Why this release has no field ``path`` of ``kind``, or None."""
        span = FIELDS.get((kind, path))
        if span is None or _within(self.version, *span):
            return None
        leaf = path.rpartition(".")[2]
        now = [p.rpartition(".")[2] for (k, p), s in FIELDS.items()
               if k == kind and p.rpartition(".")[0] == path.rpartition(".")[0] and _within(self.version, *s)]
        instead = f" (it has {', '.join(now)} instead)" if now else ""
        return f"Kubernetes {self.version} has no field {leaf}{instead}; it exists in {_range_text(*span)}"

    def __str__(self) -> str:
        return self.version


def release(version: str | Release | None = None) -> Release:
    """The release named by ``version`` (``1.37``, ``v1.37``, ``1.37.2``;
    None: :data:`DEFAULT_RELEASE`); any other is an input error listing the
    releases dralloc answers for."""
    if isinstance(version, Release):
        return version
    if version is None:
        return Release(DEFAULT_RELEASE)
    m = _VERSION.match(str(version).strip())
    found = f"1.{m.group(1)}" if m else None
    if found not in RELEASES:
        raise InputError(f"Kubernetes version {version!r} is not one dralloc answers for; "
                         f"choose one of {', '.join(RELEASES)}")
    return Release(found)
