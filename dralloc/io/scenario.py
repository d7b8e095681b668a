"""Scenario files: one allocation question with the answer Kubernetes gives
(the format of the conformance corpus; see docs/scenarios.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from dralloc.errors import InputError
from dralloc.features import GATES, Features, Variant
from dralloc.io.loader import ObjectSet, describe_validation_error, iter_files, parse_object
from dralloc.io.parse import iter_documents
from dralloc.models import AllocationResult, Node, ObjectMeta, ResourceClaim
from dralloc.release import release

FEATURE_NAMES = frozenset(GATES)
VARIANTS = ("stable", "incubating", "experimental")


@dataclass
class Expectation:
    allocations: list[AllocationResult] | None = None
    unsatisfiable: bool = False
    error: str | None = None


@dataclass
class Scenario:
    name: str
    path: str = ""
    description: str = ""
    source: str = ""
    skip_reason: str = ""
    variant: str | None = None
    features: frozenset[str] = frozenset()
    kubernetes_version: str | None = None  # the release whose allocator code answers (default: dralloc's)
    node: Node | None = None
    objects: ObjectSet = field(default_factory=ObjectSet)
    allocated: list[ResourceClaim] = field(default_factory=list)
    claims: list[ResourceClaim] = field(default_factory=list)
    expect: Expectation | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _objects(raw: Any, where: str, what: str) -> list[Any]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise InputError(f"{what} must be a list", source=where, field=what)
    return raw


def _check_variant(variant: Variant, features: Features, where: str) -> None:
    """Kubernetes creates only an allocator variant that supports every
    enabled feature (it has no allocator for the set otherwise), so a scenario
    naming another one describes no allocator Kubernetes runs."""
    if not features.supported_by(variant):
        wanted = features.variant().value
        raise InputError(f"variant {variant.value} does not support the features enabled here "
                         f"(Kubernetes would run {wanted}, and no allocator if restricted to {variant.value})",
                         source=where, field="variant")


def _version(raw: Any, where: str) -> str | None:
    """The scenario's own release (the one whose answer it holds), or None."""
    if raw is None:
        return None
    if not isinstance(raw, str):
        raise InputError('kubernetes_version must be a release such as "1.37" (a string)', source=where,
                         field="kubernetes_version")
    try:
        return release(raw).version
    except InputError as e:
        raise InputError(e.message, source=where, field="kubernetes_version") from None


def parse_scenario(doc: Any, where: str) -> Scenario:
    if not isinstance(doc, dict):
        raise InputError("a scenario must be a mapping", source=where)
    name = doc.get("name")
    if not isinstance(name, str) or not name:
        raise InputError("scenario has no name", source=where, field="name")
    where = f"{where} ({name})"
    features = doc.get("features") or []
    if not isinstance(features, list) or not all(isinstance(f, str) for f in features):
        raise InputError("features must be a list of names", source=where, field="features")
    unknown = [f for f in features if f not in FEATURE_NAMES]
    if unknown:
        raise InputError(f"unknown feature(s) {unknown}; known: {sorted(FEATURE_NAMES)}", source=where, field="features")
    variant = doc.get("variant")
    if variant is not None and variant not in VARIANTS:
        raise InputError(f"variant must be one of {VARIANTS}", source=where, field="variant")
    version = _version(doc.get("kubernetes_version"), where)
    if variant is not None:
        _check_variant(Variant(variant), Features.from_gates(features, version), where)
    sc = Scenario(name=name, path=where, description=str(doc.get("description") or ""),
                  source=str(doc.get("source") or ""), skip_reason=str(doc.get("skip_reason") or ""),
                  variant=variant, features=frozenset(features), kubernetes_version=version)
    node = doc.get("node")
    if node is not None:
        if not isinstance(node, dict) or not isinstance(node.get("name", ""), str):
            raise InputError("node must be a mapping with name and labels", source=where, field="node")
        try:
            sc.node = Node(metadata=ObjectMeta(name=node.get("name", ""), labels=node.get("labels") or {}))
        except ValidationError as e:
            fp, msg = describe_validation_error(e)[0]
            raise InputError(msg, source=where, field=f"node.{fp}") from None
    for i, o in enumerate(_objects(doc.get("objects"), where, "objects")):
        obj = parse_object(o, f"{where} objects[{i}]")
        if obj is not None:
            sc.objects.add(obj)
    for key, target in (("allocated", sc.allocated), ("claims", sc.claims)):
        for i, o in enumerate(_objects(doc.get(key), where, key)):
            obj = parse_object(o, f"{where} {key}[{i}]")
            if not isinstance(obj, ResourceClaim):
                raise InputError(f"{key} must hold ResourceClaims", source=where, field=f"{key}[{i}]")
            target.append(obj)
    sc.expect = _expect(doc.get("expect"), where)
    sc.extra = {k: v for k, v in doc.items() if k not in {
        "name", "description", "source", "skip_reason", "variant", "features", "kubernetes_version", "node",
        "objects", "allocated", "claims", "expect"}}
    return sc


EXPECT_KEYS = ("allocations", "unsatisfiable", "error")


def _kind(v: Any) -> str:
    """What a YAML value is, in the words a scenario's author reads."""
    if v is None:
        return "null"
    kinds = ((bool, "a boolean"), (int, "a number"), (float, "a number"), (str, "a string"),
             (list, "a list"), (dict, "a mapping"))
    word = next((w for t, w in kinds if isinstance(v, t)), type(v).__name__)
    shown = repr(v)
    return f"{word} ({shown[:40]}{'...' if len(shown) > 40 else ''})"


def _expect(raw: Any, where: str) -> Expectation | None:
    """``expect``: exactly one of ``allocations`` (a list of results, one per
    claim), ``unsatisfiable: true``, ``error`` (a part of the message); a
    value of another type is an input error naming the field."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise InputError(f"expect must be a mapping, not {_kind(raw)}", source=where, field="expect")
    unknown = sorted(str(k) for k in raw if k not in EXPECT_KEYS)
    if unknown:
        raise InputError(f"unknown field(s) {', '.join(unknown)}; expect holds one of {', '.join(EXPECT_KEYS)}",
                         source=where, field="expect")
    keys = [k for k in EXPECT_KEYS if k in raw]
    if len(keys) != 1:
        raise InputError("expect must have exactly one of allocations, unsatisfiable, error",
                         source=where, field="expect")
    value, fp = raw[keys[0]], f"expect.{keys[0]}"
    if keys[0] == "unsatisfiable":
        if value is not True:
            raise InputError(f"must be true, not {_kind(value)} (an answer that is not unsatisfiable is given "
                             "as allocations or error)", source=where, field=fp)
        return Expectation(unsatisfiable=True)
    if keys[0] == "error":
        if not isinstance(value, str) or not value:
            raise InputError(f"must be a non-empty string (a part of the error message), not {_kind(value)}",
                             source=where, field=fp)
        return Expectation(error=value)
    if not isinstance(value, list):
        raise InputError(f"must be a list of allocation results (one per claim, in order), not {_kind(value)}",
                         source=where, field=fp)
    allocs = []
    for i, a in enumerate(value):
        if a is not None and not isinstance(a, dict):
            raise InputError(f"must be an allocation result (a mapping with devices and nodeSelector), "
                             f"not {_kind(a)}", source=where, field=f"{fp}[{i}]")
        try:
            allocs.append(AllocationResult.model_validate(a or {}))
        except ValidationError as e:
            fp_, msg = describe_validation_error(e)[0]
            raise InputError(msg, source=where, field=f"{fp}[{i}].{fp_}") from None
    return Expectation(allocations=allocs)


def load_scenarios(paths: list[str | Path]) -> tuple[list[Scenario], list[InputError]]:
    """All scenarios under ``paths`` (directories recursively), with the
    problems of the files that could not be read."""
    out: list[Scenario] = []
    errors: list[InputError] = []
    for path in iter_files(paths):
        src = "<stdin>" if path is None else str(path)
        docs = list(iter_documents(path, lists=False))
        bad = [d for d in docs if isinstance(d, InputError)]
        if bad:  # the same guards and parser as object files; one broken document spoils the file
            errors.extend(InputError(f"cannot read scenario: {e.message}", source=e.source) for e in bad)
            continue
        for d in docs:
            assert not isinstance(d, InputError)
            try:
                out.append(parse_scenario(d.data, src if len(docs) == 1 else d.where))
            except InputError as e:
                errors.append(e)
    return out, errors
