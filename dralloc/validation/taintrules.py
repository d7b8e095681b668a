"""DeviceTaintRules (KEP-5055) applied to ResourceSlices, as Kubernetes'
slice tracker does before the scheduler and the eviction controller see the
slices: a rule adds its taint to every device its selector matches (every
field set must equal: driver, pool, device; the empty selector matches every
device, a missing one none). The ``deviceClassName`` and CEL ``selectors``
of v1alpha3 as Kubernetes 1.33-1.34 served it are not evaluated (1.35
removed them): such a rule is refused, naming the field.

Admission (:func:`dralloc.validation.admission.admit`) writes the rules of
a set into its slices once, so every engine sees them; each taint is a
:class:`~dralloc.models.RuleTaint` naming its rule, which counts only while
the release's gates apply rules (``Features.taint_rules_apply``, read by
:func:`dralloc.inventory.taints.blocking_taint`). Applying is idempotent:
a device's taints from a rule are replaced, never doubled, when the rule is
applied again."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from dralloc.errors import InputError
from dralloc.features import Features
from dralloc.io import ObjectSet
from dralloc.models import Device, DeviceTaintRule, ResourceSlice, RuleTaint


def rule_matches(rule: DeviceTaintRule, driver: str, pool: str, device: str) -> bool:
    sel = rule.spec.device_selector
    if sel is None:
        return False
    return (sel.driver is None or sel.driver == driver) and (sel.pool is None or sel.pool == pool) \
        and (sel.device is None or sel.device == device)


def rule_errors(rules: Iterable[DeviceTaintRule], where: Callable[[DeviceTaintRule], str] = lambda r: "") \
        -> list[InputError]:
    """An error for each rule dralloc cannot apply (it selects devices by
    class or CEL, as only 1.33-1.34 could), naming rule and field."""
    out = []
    for r in rules:
        sel = r.spec.device_selector
        for name, value in (("deviceClassName", sel.device_class_name if sel else None),
                            ("selectors", sel.selectors if sel else None)):
            if value is not None:
                out.append(InputError("dralloc applies rules by driver, pool and device, as Kubernetes 1.35 and "
                                      "later do (deviceClassName and selectors of 1.33-1.34 are not evaluated)",
                                      source=where(r), obj=f"DeviceTaintRule {r.name}",
                                      field=f"spec.deviceSelector.{name}"))
    return out


def check_rules(rules: Iterable[DeviceTaintRule]) -> None:
    errors = rule_errors(rules)
    if errors:
        raise errors[0]


def rule_taint(rule: DeviceTaintRule) -> RuleTaint:
    t = rule.spec.taint
    return RuleTaint(key=t.key, value=t.value, effect=t.effect, time_added=t.time_added, rule=rule.name)


def _device(d: Device, driver: str, pool: str, rules: Sequence[DeviceTaintRule], names: set[str] | frozenset[str]) \
        -> Device:
    kept = [t for t in d.taints or [] if not (isinstance(t, RuleTaint) and t.rule in names)]
    add = [rule_taint(r) for r in rules if rule_matches(r, driver, pool, d.name)]
    if not add and len(kept) == len(d.taints or []):
        return d
    taints = [*kept, *add]
    if taints == (d.taints or []):
        return d   # applied already
    return d.model_copy(update={"taints": taints or None})


def with_rules(slices: Sequence[ResourceSlice], rules: Sequence[DeviceTaintRule],
               names: Iterable[str] = ()) -> list[ResourceSlice]:
    """``slices`` with the rules' taints on the devices they match (any
    taint an earlier application of the same rules, or of a rule named in
    ``names`` (one removed), left is replaced; slices nothing changes are
    returned as they are)."""
    check_rules(rules)
    names = {*names, *(r.name for r in rules)}
    if not names:
        return list(slices)
    out = []
    for s in slices:
        sp = s.spec
        devices = [_device(d, sp.driver, sp.pool.name, rules, names) for d in sp.devices or []]
        changed = any(a is not b for a, b in zip(devices, sp.devices or [], strict=True))
        out.append(s.model_copy(update={"spec": sp.model_copy(update={"devices": devices})}) if changed else s)
    return out


def admit_rules(objs: ObjectSet) -> None:
    """Write the set's DeviceTaintRules into its slices, in place (admission)."""
    if not objs.taint_rules:
        return
    for old, new in zip(list(objs.slices), with_rules(objs.slices, objs.taint_rules), strict=True):
        if new is not old:
            objs.replace(old, new)


def apply_rules(objs: ObjectSet, extra: Sequence[DeviceTaintRule] = ()) -> ObjectSet:
    """``objs`` with the taints of its DeviceTaintRules (already there once
    it is admitted) and of ``extra`` written into a copy of its slices; the
    same set when there is nothing to apply."""
    rules = [*objs.taint_rules, *extra]
    if not rules:
        return objs
    slices = with_rules(objs.slices, rules)
    if all(a is b for a, b in zip(objs.slices, slices, strict=True)):
        return objs
    out = ObjectSet()
    patched = {id(a): b for a, b in zip(objs.slices, slices, strict=True)}
    for o in objs.all():
        new = patched.get(id(o), o)
        out.add(new, objs.where(o))
    out.admitted = objs.admitted
    return out


def rules_note(objs: ObjectSet, features: Features) -> list[str]:
    """A warning line when ``objs`` holds DeviceTaintRules the gates of
    ``features`` leave out (no line when they count or there are none)."""
    if not objs.taint_rules or features.taint_rules_apply:
        return []
    gate = "DRADeviceTaints" if not features.device_taints else "DRADeviceTaintRules"
    n = len(objs.taint_rules)
    return [f"{n} DeviceTaintRule{'s' * (n != 1)} ignored: feature gate {gate} is off (Kubernetes "
            f"{features.kubernetes_version}{', --features' if features != Features.default(features.release) else ''}"
            f"), so the scheduler does not apply {'them' if n != 1 else 'it'}; --features {gate}=true turns it on"]
