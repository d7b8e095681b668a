"""Corruptions of the attributes of chosen devices: a matchAttribute or
distinctAttribute constraint broken, or a selector that no longer matches.
Whether the result breaks a rule is decided on the corrupted documents
(constraints: by value; selectors: by evaluating the class and request
selectors with the CEL environment on the changed device)."""

from __future__ import annotations

import copy
import random
from typing import Any

from corrupt_base import (
    Base,
    Doc,
    device_doc,
    key_of,
    plain_pool,
    request_spec,
    results,
    target_claims,
)
from corrupt_results import Corruption

from dralloc.cel import CELCompileError, CELRuntimeError, DeviceView, compile_selector
from dralloc.features import Variant
from dralloc.models import Device

SCALARS = ("string", "int", "bool", "version")
LISTS = ("ints", "bools", "strings", "versions")


def _lookup(dev: Doc, driver: str, name: str) -> tuple[Doc, str] | None:
    """(attributes map, key) of the attribute a constraint names (CT-2)."""
    attrs = dev.get("attributes") or {}
    if name in attrs:
        return attrs, name
    domain, _, ident = name.partition("/")
    if ident and domain == driver and ident in attrs:
        return attrs, ident
    return None


def _value(a: Doc, set_mode: bool) -> tuple[str, frozenset[Any]] | None:
    if set_mode:
        for k in LISTS:
            if a.get(k):
                return k[:-1], frozenset(a[k])
        for k in ("int", "bool", "string", "version"):
            if k in a:
                return k, frozenset([a[k]])
        return None
    for k in SCALARS:
        if k in a:
            return k, frozenset([a[k]])
    return None


def _applies(con: Doc, request: str) -> bool:
    names = con.get("requests") or []
    return not names or request.partition("/")[0] in names or request in names


def _held(items: list[Doc], c: Doc, con: Doc) -> list[tuple[Doc, Doc]] | None:
    """(result, device) of the claim the constraint applies to; None when one
    of them is in a pool whose copies of a device a node may not see alike."""
    out = []
    for r in results(c):
        sd = device_doc(items, r)
        if sd is not None and _applies(con, r["request"]):
            if not plain_pool(items, r):
                return None
            out.append((r, sd[1]))
    return out


def _values(items: list[Doc], c: Doc, con: Doc, name: str, set_mode: bool) -> list[tuple[str, frozenset[Any]] | None]:
    out = []
    for r, dev in _held(items, c, con) or []:
        found = _lookup(dev, r["driver"], name)
        out.append(_value(found[0][found[1]], set_mode) if found else None)
    return out


def _matches(vals: list[tuple[str, frozenset[Any]] | None], set_mode: bool) -> bool:
    if any(v is None for v in vals):
        return False
    kinds = {v[0] for v in vals if v}
    if len(kinds) > 1:
        return False
    common = frozenset.intersection(*(v[1] for v in vals if v)) if vals else frozenset()
    return bool(common) if set_mode else len({v[1] for v in vals if v}) <= 1


def _distinct(vals: list[tuple[str, frozenset[Any]] | None]) -> bool:
    if any(v is None for v in vals):
        return len(vals) < 2
    return all(not (a[0] == b[0] and a[1] & b[1]) for i, a in enumerate(vals) for b in vals[i + 1:]
               if a and b)


def _fresh(a: Doc) -> Doc:
    """A value no device has: the same kind, far away."""
    for k, new in (("int", 987654321), ("string", "dralloc-corrupt"), ("version", "987.6.5"),
                   ("ints", [987654321]), ("strings", ["dralloc-corrupt"]), ("versions", ["987.6.5"])):
        if k in a:
            return {k: new}
    if "bool" in a:
        return {"bool": not a["bool"]}
    return {"string": "dralloc-corrupt"}


def _constrained(base: Base, items: list[Doc], kind: str) -> list[tuple[Doc, Doc]]:
    """Constraints on device attributes (not on a derived attribute of the
    claim: corrupt_kep137 evaluates those)."""
    from corrupt_kep137 import derived_names

    return [(c, con) for c in target_claims(base, items) for con in c["spec"]["devices"].get("constraints") or []
            if con.get(kind) and not (base.features.derived_attributes and con[kind] in derived_names(c))]


def _set_mode(base: Base) -> bool:
    return base.effective_variant is Variant.EXPERIMENTAL and base.features.list_type_attributes


def match_broken(base: Base, rng: random.Random) -> Corruption | None:
    """One constrained device gets a value none of the others has."""
    items = base.copy()
    cands = [(c, con) for c, con in _constrained(base, items, "matchAttribute")
             if len({(r["driver"], r["pool"], r["device"]) for r, _ in _held(items, c, con) or []}) > 1]
    if not cands:
        return None
    c, con = rng.choice(cands)
    name, sm = con["matchAttribute"], _set_mode(base)
    r, dev = rng.choice(_held(items, c, con) or [])
    found = _lookup(dev, r["driver"], name)
    if found is None:
        return None
    found[0][found[1]] = _fresh(found[0][found[1]])
    broken = not _matches(_values(items, c, con, name, sm), sm)
    return Corruption(items, "match-attribute" if broken else None, f"{key_of(c)}: {name} of {r['device']} changed")


def distinct_broken(base: Base, rng: random.Random) -> Corruption | None:
    """One constrained device takes another's value."""
    items = base.copy()
    cands = []
    for c, con in _constrained(base, items, "distinctAttribute"):
        held = _held(items, c, con) or []
        cands += [(c, con, a, b) for a in held for b in held
                  if a[1] is not b[1] and _lookup(a[1], a[0]["driver"], con["distinctAttribute"])
                  and _lookup(b[1], b[0]["driver"], con["distinctAttribute"])]
    if not cands:
        return None
    c, con, (ra, da), (rb, db) = rng.choice(cands)
    name = con["distinctAttribute"]
    fa, fb = _lookup(da, ra["driver"], name), _lookup(db, rb["driver"], name)
    assert fa is not None and fb is not None
    fb[0][fb[1]] = copy.deepcopy(fa[0][fa[1]])
    broken = not _distinct(_values(items, c, con, name, _set_mode(base)))
    return Corruption(items, "distinct-attribute" if broken else None,
                      f"{key_of(c)}: {name} of {rb['device']} set to that of {ra['device']}")


def _selects(base: Base, items: list[Doc], c: Doc, r: Doc, dev: Doc) -> bool:
    """The class and request selectors of the result's request on ``dev``
    (an evaluation error counts as not selected, as Kubernetes fails)."""
    spec = request_spec(c, r["request"]) or {}
    cls = next((it for it in items if it["kind"] == "DeviceClass"
                and it["metadata"]["name"] == spec.get("deviceClassName")), None)
    exprs = [s["cel"]["expression"] for s in ((cls or {}).get("spec") or {}).get("selectors") or []]
    exprs += [s["cel"]["expression"] for s in spec.get("selectors") or []]
    multi = bool(dev.get("allowMultipleAllocations")) and base.effective_variant is not Variant.STABLE
    view = DeviceView.from_device(r["driver"], Device.model_validate(dev), allow_multiple=multi)
    try:
        return all(compile_selector(e).evaluate(view) for e in exprs)
    except (CELCompileError, CELRuntimeError):
        return False


def selector_broken(base: Base, rng: random.Random) -> Corruption | None:
    """An attribute of a chosen device changed (or removed) so that a selector
    of its request no longer matches; None when no single change does."""
    items = base.copy()
    cands = [(c, r) for c in target_claims(base, items) for r in results(c)
             if device_doc(items, r) and plain_pool(items, r)]
    rng.shuffle(cands)
    for c, r in cands:
        _, dev = device_doc(items, r)  # type: ignore[misc]
        attrs = dev.get("attributes") or {}
        for key in sorted(attrs, key=lambda _: rng.random()):
            old = attrs[key]
            for new in (_fresh(old), None):
                if new is None:
                    del attrs[key]
                else:
                    attrs[key] = new
                if not _selects(base, items, c, r, dev):
                    return Corruption(items, "selector", f"{key_of(c)}: attribute {key} of {r['device']} "
                                      + ("removed" if new is None else "changed"))
                attrs[key] = old
    return None


CLASSES = (match_broken, distinct_broken, selector_broken)
