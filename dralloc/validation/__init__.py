"""The API server's validation of every object dralloc reads (one rule set,
used by ``dralloc validate`` and by admission, :mod:`dralloc.validation.admission`,
which every command and the library pass through), plus the pool-level checks
the allocator makes when it gathers slices.

``object_findings(objs)`` gives what the API server would say about each
object, in input order; ``validate(objs)`` adds the load problems first (as
``load`` findings) and the pool findings last. Pool findings are warnings: the
API server accepts each slice on its own, and the allocator reports a broken
pool only when a request needs it (dralloc's engines report it the same way)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from dralloc.errors import InputError
from dralloc.io import ObjectSet
from dralloc.io.defaults import default_object
from dralloc.models import (
    CompositePodGroup,
    DeviceClass,
    DeviceTaintRule,
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
from dralloc.validation.claims import check_claim, check_class, check_template
from dralloc.validation.finding import ERROR, WARNING, Collector, Finding
from dralloc.validation.objects import check_claim_status, check_pod, metadata
from dralloc.validation.policy import check_budget, check_priority_class, check_taint_rule
from dralloc.validation.pools import check_pools
from dralloc.validation.scheduling import check_composite_pod_group, check_pod_group, check_workload
from dralloc.validation.slices import check_slice

__all__ = ["ERROR", "WARNING", "Finding", "apply_defaults", "check_object", "finding_from_error",
           "object_findings", "validate"]


def finding_from_error(e: InputError, rule: str = "load") -> Finding:
    """A load problem as a finding (the object could not be read at all)."""
    return Finding(e.source, e.obj, e.field, rule, e.message)


def collector_for(obj: TypedObject, where: str) -> Collector:
    return Collector(where, obj.ref.strip())


def check_object(c: Collector, obj: TypedObject, derived: dict[int, Any] | None = None) -> None:
    """Every rule the API server applies to ``obj`` (already defaulted);
    ``derived``: how the loader built slices from earlier ones
    (:attr:`ObjectSet.derived`), so that only what changed is checked."""
    metadata(c, obj)
    if isinstance(obj, ResourceSlice):
        check_slice(c, obj, derived)
    elif isinstance(obj, ResourceClaim):
        check_claim(c, obj)
        check_claim_status(c, obj)
    elif isinstance(obj, ResourceClaimTemplate):
        check_template(c, obj)
    elif isinstance(obj, DeviceClass):
        check_class(c, obj)
    elif isinstance(obj, Pod):
        check_pod(c, obj)
    elif isinstance(obj, Workload):
        check_workload(c, obj)
    elif isinstance(obj, PodGroup):
        check_pod_group(c, obj)
    elif isinstance(obj, CompositePodGroup):
        check_composite_pod_group(c, obj)
    elif isinstance(obj, PodDisruptionBudget):
        check_budget(c, obj)
    elif isinstance(obj, PriorityClass):
        check_priority_class(c, obj)
    elif isinstance(obj, DeviceTaintRule):
        check_taint_rule(c, obj)


def apply_defaults(objs: ObjectSet) -> None:
    """Default every object in place, as the API server does before it
    validates (objects read by ``load`` already are; hand-built ones may not be)."""
    for obj in list(objs.all()):
        new = default_object(obj)
        if new is not obj:
            objs.replace(obj, new)


def object_findings(objs: ObjectSet) -> list[Finding]:
    out: list[Finding] = []
    for obj in objs.all():
        c = collector_for(obj, objs.where(obj))
        check_object(c, obj, objs.derived)
        out.extend(c.findings)
    return out


def validate(objs: ObjectSet) -> list[Finding]:
    """Everything wrong with ``objs`` (defaulted in place first)."""
    apply_defaults(objs)
    out = [finding_from_error(e) for e in objs.errors]
    out.extend(object_findings(objs))
    pools: dict[int, Collector] = {}

    def where(s: ResourceSlice) -> Collector:
        return pools.setdefault(id(s), collector_for(s, objs.where(s)))

    check_pools(objs.slices, where)
    for s in objs.slices:
        if id(s) in pools:
            out.extend(replace(f, severity=WARNING) for f in pools[id(s)].findings)
    return out
