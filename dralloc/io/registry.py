"""(apiVersion, kind) registry: which model reads which object, and which
converter brings an older API version to resource.k8s.io/v1 first."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any

from dralloc.models import (
    CompositePodGroup,
    DeviceClass,
    DeviceTaintRule,
    Node,
    Pod,
    PodDisruptionBudget,
    PodGroup,
    PriorityClass,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
    TypedObject,
    Workload,
)

Converter = Callable[[dict[str, Any]], dict[str, Any]]

MODELS: dict[str, type[TypedObject]] = {
    "ResourceSlice": ResourceSlice,
    "DeviceClass": DeviceClass,
    "ResourceClaim": ResourceClaim,
    "ResourceClaimTemplate": ResourceClaimTemplate,
    "Node": Node,
    "Pod": Pod,
    "Workload": Workload,
    "PodGroup": PodGroup,
    "CompositePodGroup": CompositePodGroup,
    "PodDisruptionBudget": PodDisruptionBudget,
    "PriorityClass": PriorityClass,
    "DeviceTaintRule": DeviceTaintRule,
}

# Kinds without a namespace (the API server clears metadata.namespace on them);
# every other kind is namespaced and a missing namespace means "default".
CLUSTER_SCOPED = frozenset({"ResourceSlice", "DeviceClass", "Node", "PriorityClass", "DeviceTaintRule"})

RESOURCE_GROUP = "resource.k8s.io"
_CONVERTERS: dict[tuple[str, str], Converter] = {}
_ACCEPTED: set[tuple[str, str]] = {
    ("resource.k8s.io/v1", k) for k in ("ResourceSlice", "DeviceClass", "ResourceClaim", "ResourceClaimTemplate")
} | {("v1", "Node"), ("v1", "Pod")} | {
    # gang scheduling (KEP-4671): Workload with pod groups in 1.35, PodGroup objects in 1.36,
    # v1beta1 Workload and PodGroup in 1.37 (and v1alpha3 with CompositePodGroup, its alpha API)
    ("scheduling.k8s.io/v1alpha1", "Workload"), ("scheduling.k8s.io/v1alpha2", "Workload"),
    ("scheduling.k8s.io/v1alpha2", "PodGroup"),
    ("scheduling.k8s.io/v1alpha3", "Workload"), ("scheduling.k8s.io/v1alpha3", "PodGroup"),
    ("scheduling.k8s.io/v1alpha3", "CompositePodGroup"),
    ("scheduling.k8s.io/v1beta1", "Workload"), ("scheduling.k8s.io/v1beta1", "PodGroup"),
    # disruption and priority (plan make-room, plan drain)
    ("policy/v1", "PodDisruptionBudget"), ("scheduling.k8s.io/v1", "PriorityClass"),
    # DeviceTaintRule: v1alpha3 (1.33-1.36), v1beta2 (1.36), v1 (1.37)
    ("resource.k8s.io/v1alpha3", "DeviceTaintRule"), ("resource.k8s.io/v1beta2", "DeviceTaintRule"),
    ("resource.k8s.io/v1", "DeviceTaintRule"),
}


def register_converter(api_version: str, kind: str, fn: Converter) -> None:
    """Register ``fn`` to turn an ``api_version`` object of ``kind`` into v1."""
    _CONVERTERS[(api_version, kind)] = fn
    _ACCEPTED.add((api_version, kind))


def lookup(api_version: str, kind: str) -> tuple[type[TypedObject], Converter | None] | None:
    """The model for (apiVersion, kind) and the converter to run first, or None
    when dralloc does not read that kind."""
    key = (api_version, kind)
    if key not in _ACCEPTED:
        return None
    return MODELS[kind], _CONVERTERS.get(key)


def supported() -> list[tuple[str, str]]:
    return sorted(_ACCEPTED)


def namespaced(kind: str) -> bool:
    return kind not in CLUSTER_SCOPED


def describe_unknown(api_version: str, kind: str) -> str:
    """Why (apiVersion, kind) is not read, with a hint: the versions dralloc
    reads for a known kind, or the known kind a misspelt one is closest to."""
    versions = sorted(a for a, k in _ACCEPTED if k == kind)
    if versions:
        return f"{kind} in {api_version} is not an API version dralloc reads (it reads {kind} in {', '.join(versions)})"
    close = difflib.get_close_matches(kind, sorted(MODELS), n=1, cutoff=0.8)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return f"{kind} ({api_version}) is not a kind dralloc reads{hint}"


# dralloc's own documents, which are not Kubernetes objects (no apiVersion or
# kind), recognised by their top-level keys: each (keys all present, what it is)
OWN_DOCUMENTS = (
    (frozenset({"objects", "claims"}), "a scenario file (the conformance format: dralloc check, allocate, "
                                       "explain and encode read one whole, given alone)"),
    (frozenset({"capacityPools"}), "a KEP-4815 capacity-pools prototype (dralloc convert translates it)"),
    (frozenset({"deviceMixins"}), "a KEP-4815 composite-device fragment (dralloc convert translates it)"),
    (frozenset({"findings", "pending", "summary"}), "a dralloc verify report"),
)


def describe_own(data: object) -> str | None:
    """What one of dralloc's own non-object documents is, or None."""
    if not isinstance(data, dict) or "apiVersion" in data or "kind" in data:
        return None
    keys = set(data)
    return next((what for need, what in OWN_DOCUMENTS if need <= keys), None)
