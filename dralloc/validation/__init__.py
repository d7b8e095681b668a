"""``dralloc validate``: what the API server would reject in each object, plus
the pool-level checks the allocator makes when it gathers slices.

``validate(objset)`` returns :class:`Finding` s in input order: load problems
first (as ``load`` findings), then each object's own rules, then pool rules."""

from __future__ import annotations

from dralloc.errors import InputError
from dralloc.io import ObjectSet
from dralloc.models import (
    DeviceClass,
    PodGroup,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
    TypedObject,
    Workload,
)
from dralloc.validation import formats
from dralloc.validation.claims import check_claim, check_class, check_template
from dralloc.validation.finding import ERROR, WARNING, Collector, Finding
from dralloc.validation.pools import check_pools
from dralloc.validation.scheduling import check_pod_group, check_workload
from dralloc.validation.slices import check_slice

__all__ = ["ERROR", "WARNING", "Finding", "finding_from_error", "validate"]


def finding_from_error(e: InputError, rule: str = "load") -> Finding:
    """A load problem as a finding (the object could not be read at all)."""
    return Finding(e.source, e.obj, e.field, rule, e.message)


def _metadata(c: Collector, obj: TypedObject) -> None:
    if isinstance(obj, ResourceSlice):
        return  # slices check their own name
    if not obj.metadata.name and not obj.metadata.generate_name:
        c.add("metadata.name", "format.required", "name or generateName is required")
    elif obj.metadata.name:
        formats.dns_subdomain(c, "metadata.name", obj.metadata.name, "name")


def validate(objs: ObjectSet) -> list[Finding]:
    collectors: dict[int, Collector] = {}

    def where(obj: TypedObject) -> Collector:
        if id(obj) not in collectors:
            collectors[id(obj)] = Collector(objs.where(obj), f"{obj.kind} {obj.name}".strip())
        return collectors[id(obj)]

    out = [finding_from_error(e) for e in objs.errors]
    for obj in objs.all():
        c = where(obj)
        _metadata(c, obj)
        if isinstance(obj, ResourceSlice):
            check_slice(c, obj)
        elif isinstance(obj, ResourceClaim):
            check_claim(c, obj)
        elif isinstance(obj, ResourceClaimTemplate):
            check_template(c, obj)
        elif isinstance(obj, DeviceClass):
            check_class(c, obj)
        elif isinstance(obj, Workload):
            check_workload(c, obj)
        elif isinstance(obj, PodGroup):
            check_pod_group(c, obj)
    check_pools(objs.slices, where)
    for obj in objs.all():
        out.extend(where(obj).findings)
    return out
