"""Names, the extended-resource claim's marks, and which DeviceClass serves
a name (the scheduler's device-class cache) -- :mod:`dralloc.extended`."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from dralloc.errors import DrallocError, InputError
from dralloc.models import DeviceClass, Pod, ResourceClaim
from dralloc.validation.podresources import DEVICE_CLASS_PREFIX, is_extended

GATE = "DRAExtendedResource"
IMPLICIT_PREFIX = DEVICE_CLASS_PREFIX
CLAIM_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"
CLAIM_SUFFIX = "extended-resources"
MAX_NAME = 253


class NodeRefuses(DrallocError):
    """A node does not take a pod for its extended resources (no device
    plugin and no class serves one, or its device plugin has too few free)."""


def is_extended_name(name: str) -> bool:
    """A resource name the scheduler may hand to DRA: an extended resource
    name, or a class's implicit ``deviceclass.resource.kubernetes.io/<class>``."""
    return is_extended(name)


def is_extended_claim(claim: ResourceClaim) -> bool:
    """The scheduler's extended-resource claim (its annotation)."""
    return (claim.metadata.annotations or {}).get(CLAIM_ANNOTATION) == "true"


def namespace_of(obj: Pod | ResourceClaim) -> str:
    return obj.metadata.namespace or "default"


def pod_key(pod: Pod) -> str:
    return f"{namespace_of(pod)}/{pod.name}"


# ---------------------------------------------------------------- classes


def _created(cls: DeviceClass) -> datetime:
    raw = cls.metadata.creation_timestamp
    if not raw:
        return datetime.min.replace(tzinfo=UTC)
    try:
        t = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise InputError(f"{raw!r} is not an RFC 3339 time", obj=f"DeviceClass {cls.name}",
                         field="metadata.creationTimestamp") from None
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


def _newest_first(classes: list[DeviceClass]) -> list[DeviceClass]:
    """Created last first, ties by the lower name (exact times, no floats)."""
    by_name = sorted(classes, key=lambda c: c.name.encode())
    return sorted(by_name, key=_created, reverse=True)


class ClassResolver:
    """Which DeviceClass serves an extended resource name, as the
    scheduler's device-class cache decides: for an explicit name the class
    created last, ties by the lower name; the implicit name is its class."""

    def __init__(self, classes: Iterable[DeviceClass]) -> None:
        self.implicit: dict[str, DeviceClass] = {}
        named: dict[str, list[DeviceClass]] = {}
        for c in classes:
            self.implicit[IMPLICIT_PREFIX + c.name] = c
            if c.spec.extended_resource_name is not None:
                named.setdefault(c.spec.extended_resource_name, []).append(c)
        self.explicit = {n: _newest_first(cs) for n, cs in named.items()}

    def class_for(self, name: str) -> DeviceClass | None:
        found = self.explicit.get(name)
        return found[0] if found else self.implicit.get(name)

    def why(self, name: str) -> str:
        """Which class serves ``name`` and why that one, in words."""
        found = self.explicit.get(name)
        if found:
            if len(found) == 1:
                return f"DeviceClass {found[0].name} (extendedResourceName)"
            others = ", ".join(c.name for c in found[1:])
            return (f"DeviceClass {found[0].name} (of the classes naming it -- also {others} -- the one "
                    "created last, ties by name)")
        if name in self.implicit:
            return f"DeviceClass {self.implicit[name].name} (its implicit name)"
        return "no DeviceClass"
