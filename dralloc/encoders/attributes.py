"""matchAttribute and distinctAttribute, as rules (not as Kubernetes' incremental
checks): all chosen devices of the constrained requests share one value (a
value-choice literal per candidate value), or have pairwise different values.
With list-type attributes (experimental variant + DRAListTypeAttributes) a value
is a set: match needs one common element, distinct needs disjoint sets. A
request's derived attribute of the constraint's name (KEP-6080) stands in for
the device's own attribute."""

from __future__ import annotations

from ortools.sat.python import cp_model

from dralloc.encoders.base import Encoding, Option
from dralloc.features import Variant
from dralloc.inventory.attributes import as_set, constraint_attribute, scalar
from dralloc.models import DeviceConstraint


def _applies(con: DeviceConstraint, o: Option) -> bool:
    if not con.requests:
        return True
    spec = o.spec
    return spec.base in con.requests or (bool(spec.sub) and f"{spec.base}/{spec.sub}" in con.requests)


def add_attribute_constraints(enc: Encoding) -> None:
    p = enc.problem
    set_mode = p.variant is Variant.EXPERIMENTAL and p.features.list_type_attributes
    for plan in p.plans:
        opts = [o for o in enc.options_of(plan.index)]
        for i, con in enumerate(plan.constraints):
            name = con.match_attribute if con.match_attribute is not None else con.distinct_attribute
            if name is None:
                continue
            guard = enc.guard(f"constraint {plan.key}#{i}")
            uses = [(o, pd, v) for o in opts if _applies(con, o) for pd, v in o.devices]
            values: list[tuple[cp_model.IntVar, frozenset[object] | None]] = []
            for o, pd, v in uses:
                derived = p.selectable.derived(pd, o.spec) if o.spec.derived else None
                attr = constraint_attribute(pd.device, pd.pool.driver, name, derived)
                if attr is None:
                    enc.model.Add(v == 0).OnlyEnforceIf(guard)
                    continue
                if set_mode:
                    s = as_set(attr)
                    if s is None and con.match_attribute is not None:
                        enc.model.Add(v == 0).OnlyEnforceIf(guard)  # set-mode match needs a value set
                        continue
                    values.append((v, None if s is None else frozenset((s[0], e) for e in s[1])))
                else:
                    sc = scalar(attr)
                    values.append((v, None if sc is None else frozenset([sc])))
            if con.match_attribute is not None:
                _match(enc, values, guard, plan.key, i)
            else:
                _distinct(enc, values, guard)


def _match(enc: Encoding, values: list[tuple[cp_model.IntVar, frozenset[object] | None]],
           guard: list[cp_model.IntVar], key: str, i: int) -> None:
    m = enc.model
    alls = [v for v, _ in values]
    for v, vals in values:
        if vals is None:  # no comparable value: only acceptable as the sole device
            for w in alls:
                if w is not v:
                    m.AddImplication(v, w.Not()).OnlyEnforceIf(guard)
    universe = sorted({e for _, vals in values if vals for e in vals}, key=repr)
    if not universe:
        return
    pick = {e: m.NewBoolVar(f"match[{key}#{i}={e!r}]") for e in universe}
    m.Add(sum(pick.values()) <= 1)
    for v, vals in values:
        if vals:
            m.AddBoolOr([v.Not(), *[pick[e] for e in vals]]).OnlyEnforceIf(guard)


def _distinct(enc: Encoding, values: list[tuple[cp_model.IntVar, frozenset[object] | None]],
              guard: list[cp_model.IntVar]) -> None:
    m = enc.model
    by_value: dict[object, list[cp_model.IntVar]] = {}
    for i, (v, vals) in enumerate(values):
        if vals is None:
            # A device with no comparable value is accepted only while nothing
            # is remembered yet, i.e. as the first device the search adds
            # (``values`` is in search order); it conflicts with nothing later.
            for w, _ in values[:i]:
                m.AddImplication(v, w.Not()).OnlyEnforceIf(guard)
            continue
        for e in vals:
            by_value.setdefault(e, []).append(v)
    for vs in by_value.values():
        if len(vs) > 1:
            m.Add(sum(vs) <= 1).OnlyEnforceIf(guard)
