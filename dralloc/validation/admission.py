"""Admission: the one front door between input and every engine.

Kubernetes defaults and validates every object when it is created; nothing
the API server would refuse ever reaches the scheduler's allocator. ``admit``
does the same for a set of objects, however they were made (read from files,
or built in Python): it applies the API server's defaults
(:func:`dralloc.io.defaults.default_object`), refuses two objects with the
same kind and key, and raises every validation error at once
(:class:`~dralloc.errors.InputErrors`, each naming file, document, object and
field). ``dralloc validate`` reports exactly these errors (same rules,
:func:`dralloc.validation.object_findings`). Last, it writes the set's
DeviceTaintRules into its slices (:mod:`dralloc.validation.taintrules`), as
the scheduler's slice tracker does, so every engine sees the same devices;
the release's gates decide whether those taints count.

Scenario files are not admitted: the scenario format describes the
allocator's own input, and Kubernetes' allocator test table, which the
conformance corpus comes from, feeds the allocator objects the API server
would refuse (see docs/inputs.md)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from dralloc.errors import InputError, InputErrors
from dralloc.io.defaults import default_object
from dralloc.io.loader import ObjectSet, describe_key, object_key
from dralloc.models import TypedObject
from dralloc.validation import (
    ERROR,
    Finding,
    apply_defaults,
    check_object,
    collector_for,
    object_findings,
)
from dralloc.validation.taintrules import admit_rules, rule_errors

T = TypeVar("T", bound=TypedObject)


def _error(f: Finding) -> InputError:
    return InputError(f"{f.message} [{f.rule}]", source=f.source, obj=f.object, field=f.field)


def _duplicates(objs: ObjectSet) -> list[InputError]:
    seen: dict[tuple[str, str, str], str] = {}
    out = []
    for obj in objs.all():
        key = object_key(obj)
        where = objs.where(obj) or obj.ref
        if not key[2]:
            continue
        if key in seen:
            out.append(InputError(f"duplicate {describe_key(key)}: also defined at {seen[key]}",
                                  source=where, obj=describe_key(key)))
        else:
            seen[key] = where
    return out


def admit(objs: ObjectSet | Iterable[TypedObject]) -> ObjectSet:
    """The objects as the API server would store them, or InputErrors naming
    every problem. An ObjectSet is admitted in place (objects that need
    defaults are replaced) and remembers it, so admitting it again is free."""
    if not isinstance(objs, ObjectSet):
        objs = ObjectSet.of(objs)
    if objs.admitted:
        return objs
    apply_defaults(objs)
    errors = _duplicates(objs)
    errors += [_error(f) for f in object_findings(objs) if f.severity == ERROR]
    errors += rule_errors(objs.taint_rules, objs.where)
    if errors:
        raise InputErrors(errors)
    admit_rules(objs)
    objs.admitted = True
    return objs


def admit_object(obj: T, where: str = "") -> T:
    """One object (e.g. a claim built in Python) defaulted and validated."""
    obj = default_object(obj)
    c = collector_for(obj, where)
    check_object(c, obj)
    errors = [_error(f) for f in c.findings if f.severity == ERROR]
    if errors:
        raise InputErrors(errors)
    return obj
