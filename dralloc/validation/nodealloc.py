"""A device's node-allocatable resources (KEP-5517, alpha behind
DRANodeAllocatableResources): 1.36's ``nodeAllocatableResourceMappings`` and
1.37's ``nodeAllocatableResources`` (resource/v1 types.go of each release).

What is checked is what the types document: keys are node resource names
that are not extended resources; 1.37 needs a ``mapping`` or an ``overhead``
in each entry, a mapping takes ``capacityKey`` with ``capacityMultiplier`` or
``deviceMultiplier`` alone (one of the two: the union the 1.37 type declares); a ``capacityKey`` names a capacity name. That the
key names one of the device's capacities is not an API rule: its absence is
a warning (the kubelet then finds nothing consumed under it)."""

from __future__ import annotations

from dralloc.models import Device
from dralloc.validation import formats as f
from dralloc.validation.finding import WARNING, Collector

RULE = "device.node-allocatable"


def extended_resource(name: str) -> bool:
    """Kubernetes' extended resource names: a domain outside kubernetes.io
    (and not a ``requests.`` quota name)."""
    native = "/" not in name or "kubernetes.io/" in name
    return not native and not name.startswith("requests.")


def _key(c: Collector, path: str, name: str) -> None:
    if not name or extended_resource(name):
        c.add(path, RULE, f"{name!r} is not a node-allocatable resource name (extended resources are not allowed)")


def _capacity_key(c: Collector, path: str, key: str, d: Device) -> None:
    f.qualified_name(c, path, key, "capacity name")
    if key not in (d.capacity or {}):
        c.add(path, RULE, f"capacity {key} is not one of the device's capacities", WARNING)


def node_allocatable(c: Collector, path: str, d: Device) -> None:
    for name, old in (d.node_allocatable_resource_mappings or {}).items():
        p = f"{path}.nodeAllocatableResourceMappings[{name}]"
        _key(c, p, name)
        if old.capacity_key is not None:
            _capacity_key(c, f"{p}.capacityKey", old.capacity_key, d)
    for name, res in (d.node_allocatable_resources or {}).items():
        p = f"{path}.nodeAllocatableResources[{name}]"
        _key(c, p, name)
        if res.mapping is None and res.overhead is None:
            c.add(p, RULE, "at least one of mapping and overhead is required")
        m = res.mapping
        if m is None:
            continue
        if m.device_multiplier is not None and (m.capacity_key is not None or m.capacity_multiplier is not None):
            c.add(f"{p}.mapping", RULE, "deviceMultiplier and capacityKey/capacityMultiplier are mutually exclusive")
        elif m.device_multiplier is None and m.capacity_key is None and m.capacity_multiplier is None:
            c.add(f"{p}.mapping", RULE, "a mapping needs deviceMultiplier, or capacityKey with capacityMultiplier")
        elif (m.capacity_key is None) != (m.capacity_multiplier is None):
            missing = "capacityMultiplier" if m.capacity_multiplier is None else "capacityKey"
            c.add(f"{p}.mapping.{missing}", RULE, "capacityKey and capacityMultiplier are set together")
        if m.capacity_key is not None:
            _capacity_key(c, f"{p}.mapping.capacityKey", m.capacity_key, d)
