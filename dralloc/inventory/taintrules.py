"""DeviceTaintRules (KEP-5055) applied to ResourceSlices, as Kubernetes'
slice tracker does before the scheduler and the eviction controller see the
slices: a rule adds its taint to every device its selector matches (every
field set must equal: driver, pool, device; the empty selector matches every
device, a missing one none). The ``deviceClassName`` and CEL ``selectors``
of v1alpha3 as Kubernetes 1.33-1.34 served it are not evaluated (1.35
removed them): such a rule is refused, naming the field."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from dralloc.errors import InputError
from dralloc.io import ObjectSet
from dralloc.models import DeviceTaint, DeviceTaintRule, ResourceSlice


def rule_matches(rule: DeviceTaintRule, driver: str, pool: str, device: str) -> bool:
    sel = rule.spec.device_selector
    if sel is None:
        return False
    return (sel.driver is None or sel.driver == driver) and (sel.pool is None or sel.pool == pool) \
        and (sel.device is None or sel.device == device)


def check_rules(rules: Iterable[DeviceTaintRule]) -> None:
    for r in rules:
        sel = r.spec.device_selector
        for name, value in (("deviceClassName", sel.device_class_name if sel else None),
                            ("selectors", sel.selectors if sel else None)):
            if value is not None:
                raise InputError(f"DeviceTaintRule {r.name}: spec.deviceSelector.{name}: dralloc applies rules by "
                                 "driver, pool and device, as Kubernetes 1.35 and later do (deviceClassName and "
                                 "selectors of 1.33-1.34 are not evaluated)")


def rule_taint(rule: DeviceTaintRule) -> DeviceTaint:
    return rule.spec.taint


def with_rules(slices: Sequence[ResourceSlice], rules: Sequence[DeviceTaintRule]) -> list[ResourceSlice]:
    """``slices`` with the rules' taints added to the devices they match
    (slices no rule touches are returned as they are)."""
    check_rules(rules)
    if not rules:
        return list(slices)
    out = []
    for s in slices:
        sp = s.spec
        devices = []
        changed = False
        for d in sp.devices or []:
            add = [rule_taint(r) for r in rules if rule_matches(r, sp.driver, sp.pool.name, d.name)]
            if add:
                changed = True
                d = d.model_copy(update={"taints": [*(d.taints or []), *add]})
            devices.append(d)
        out.append(s.model_copy(update={"spec": sp.model_copy(update={"devices": devices})}) if changed else s)
    return out


def apply_rules(objs: ObjectSet, extra: Sequence[DeviceTaintRule] = ()) -> ObjectSet:
    """``objs`` with the taints of its DeviceTaintRules (and of ``extra``)
    written into its slices; the same set when there is nothing to apply."""
    rules = [*objs.taint_rules, *extra]
    if not rules:
        return objs
    slices = with_rules(objs.slices, rules)
    out = ObjectSet()
    patched = {id(a): b for a, b in zip(objs.slices, slices, strict=True)}
    for o in objs.all():
        new = patched.get(id(o), o)
        out.add(new, objs.where(o))
    out.admitted = objs.admitted
    return out
