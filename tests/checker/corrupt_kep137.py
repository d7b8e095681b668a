"""Corruptions of 1.37's alpha rules (KEP-6080 derived attributes, KEP-5963
device compatibility groups). Whether a corruption breaks a rule is decided
on the corrupted documents, from the KEPs' rules: derived values by
evaluating the request's expressions with the CEL environment, groups by
intersecting what every allocated result of a counter set recorded."""

from __future__ import annotations

import random
from typing import Any

from corrupt_attrs import _distinct, _fresh, _held, _matches, _set_mode
from corrupt_base import (
    Base,
    Doc,
    all_results,
    device_doc,
    key_of,
    plain_pool,
    request_spec,
    results,
    target_claims,
)
from corrupt_results import Corruption

from dralloc.cel import CELCompileError, CELRuntimeError, DeviceView, compile_derived
from dralloc.features import Variant
from dralloc.inventory.attributes import as_set, scalar
from dralloc.models import Device

Value = tuple[str, frozenset[Any]] | None


def derived_names(c: Doc) -> set[str]:
    """The names a claim's requests derive (its constraints on them read the
    derived values, which :mod:`corrupt_attrs` does not evaluate)."""
    out: set[str] = set()
    for req in c["spec"]["devices"].get("requests") or []:
        for body in [req.get("exactly") or {}, *(req.get("firstAvailable") or [])]:
            out.update(d["name"] for d in body.get("derivedAttributes") or [])
    return out


def _derived_value(base: Base, c: Doc, r: Doc, dev: Doc, name: str) -> Value:
    spec = request_spec(c, r["request"]) or {}
    expr = next((d["expression"] for d in spec.get("derivedAttributes") or [] if d["name"] == name), None)
    if expr is None:
        return None
    multi = bool(dev.get("allowMultipleAllocations")) and base.effective_variant is not Variant.STABLE
    view = DeviceView.from_device(r["driver"], Device.model_validate(dev), allow_multiple=multi)
    try:
        attr = compile_derived(expr).evaluate(view)
    except (CELCompileError, CELRuntimeError):
        return None
    if _set_mode(base):
        return as_set(attr)
    got = scalar(attr)
    return None if got is None else (got[0], frozenset([got[1]]))


def derived_value_changed(base: Base, rng: random.Random) -> Corruption | None:
    """An attribute a derived expression reads changes on one chosen device;
    a violation when the constraint over the derived values no longer holds."""
    if not base.features.derived_attributes:
        return None
    items = base.copy()
    cands = [(c, con) for c in target_claims(base, items) for con in c["spec"]["devices"].get("constraints") or []
             if (con.get("matchAttribute") or con.get("distinctAttribute")) in derived_names(c)]
    if not cands:
        return None
    c, con = rng.choice(cands)
    held = _held(items, c, con) or []
    if not held:
        return None
    r, dev = rng.choice(held)
    attrs = dev.get("attributes") or {}
    if not attrs:
        return None
    key = rng.choice(sorted(attrs))
    attrs[key] = _fresh(attrs[key])
    name = con.get("matchAttribute") or con.get("distinctAttribute")
    vals = [_derived_value(base, c, rr, d, name) for rr, d in held]
    if any(v is None for v in vals):  # it cannot be evaluated any more: the constraint has no value
        ok = False
    else:
        ok = _matches(vals, _set_mode(base)) if con.get("matchAttribute") else _distinct(vals)
    rule = None if ok else ("match-attribute" if con.get("matchAttribute") else "distinct-attribute")
    return Corruption(items, rule, f"{key_of(c)}: {key} of {r['device']} changed (derived {name})")


def _grouped(base: Base, items: list[Doc]) -> list[tuple[Doc, Doc, Doc, str]]:
    """(claim, result, device, counter set) of chosen devices drawing from a counter set."""
    if not (base.features.compatibility_groups and base.features.partitionable_devices):
        return []
    out = []
    for c in target_claims(base, items):
        for r in results(c):
            sd = device_doc(items, r)
            if sd is None or r.get("adminAccess") or not plain_pool(items, r):
                continue
            out.extend((c, r, sd[1], cc["counterSet"]) for cc in sd[1].get("consumesCounters") or [])
    return out


def _members(items: list[Doc], driver: str, pool: str, cs: str) -> list[frozenset[str]]:
    """The recorded groups of every allocated (non-admin) device on the counter set."""
    seen: dict[str, frozenset[str]] = {}
    for _, r in all_results(items):
        if r.get("adminAccess") or (r["driver"], r["pool"]) != (driver, pool):
            continue
        sd = device_doc(items, r)
        if sd is None or cs not in {cc["counterSet"] for cc in sd[1].get("consumesCounters") or []}:
            continue
        groups = frozenset(((r.get("compatibilityGroups") or {}).get(cs)) or ["\x00none"])
        seen.setdefault(r["device"], groups)
    return list(seen.values())


def groups_incompatible(base: Base, rng: random.Random) -> Corruption | None:
    """A chosen device's groups on one counter set become a group nobody else
    has, in its slice and in its result alike: a violation when another
    allocated device draws from that counter set."""
    items = base.copy()
    cands = _grouped(base, items)
    if not cands:
        return None
    c, r, dev, cs = rng.choice(cands)
    for cc in dev.get("consumesCounters") or []:
        if cc["counterSet"] == cs:
            cc["compatibilityGroups"] = ["dralloc-corrupt"]
    r.setdefault("compatibilityGroups", {})[cs] = ["dralloc-corrupt"]
    others = len(_members(items, r["driver"], r["pool"], cs)) > 1
    return Corruption(items, "compatibility-groups" if others else None,
                      f"{key_of(c)}: {r['device']} now in group dralloc-corrupt on counter set {cs}")


def groups_record_changed(base: Base, rng: random.Random) -> Corruption | None:
    """A chosen device's result records groups its slice does not declare."""
    items = base.copy()
    cands = _grouped(base, items)
    if not cands:
        return None
    c, r, _, cs = rng.choice(cands)
    r.setdefault("compatibilityGroups", {})[cs] = ["dralloc-corrupt"]
    return Corruption(items, "compatibility-groups-record",
                      f"{key_of(c)}: {r['device']} records group dralloc-corrupt for counter set {cs}")


CLASSES = (derived_value_changed, groups_incompatible, groups_record_changed)
