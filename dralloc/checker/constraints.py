"""matchAttribute / distinctAttribute as rules over the chosen devices (not
Kubernetes' incremental bookkeeping, so its defects show up as violations)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations

from dralloc.checker.finding import Finding, error
from dralloc.inventory.attributes import as_set, constraint_attribute, scalar
from dralloc.models import Device, DeviceAttribute, DeviceConstraint, DeviceRequestAllocationResult


def _applies(c: DeviceConstraint, request: str) -> bool:
    if not c.requests:
        return True
    base = request.split("/", 1)[0]
    return base in c.requests or request in c.requests


def _label(r: DeviceRequestAllocationResult) -> str:
    return f"{r.driver}/{r.pool}/{r.device}"


def _value_text(a: DeviceAttribute) -> str:
    s = scalar(a)
    if s is not None:
        return repr(s[1])
    got = as_set(a)
    return repr(sorted(map(str, got[1]))) if got else "no value"


def check_constraints(claim: str, constraints: Sequence[DeviceConstraint],
                      held: Sequence[tuple[DeviceRequestAllocationResult, DeviceAttrSource | None]],
                      set_mode: bool) -> list[Finding]:
    """Findings for every constraint of the claim whose rule the chosen
    devices break. ``held`` pairs each result with its device's attribute
    source (None when the device is unknown: reported elsewhere)."""
    out: list[Finding] = []
    for i, c in enumerate(constraints):
        name = c.match_attribute or c.distinct_attribute
        if not name:
            continue
        fieldp = f"spec.devices.constraints[{i}]"
        devs = [(r, src) for r, src in held if src is not None and _applies(c, r.request)]
        attrs: list[tuple[DeviceRequestAllocationResult, DeviceAttribute]] = []
        for r, src in devs:
            a = constraint_attribute(src.device, src.driver, name, src.derived)
            if a is None:
                out.append(error("match-attribute" if c.match_attribute else "distinct-attribute", claim,
                                 f"device {_label(r)} (request {r.request}) has no attribute {name}, "
                                 f"which constraint #{i} requires", (_label(r),), (fieldp,)))
            else:
                attrs.append((r, a))
        if c.match_attribute:
            out.extend(_match(claim, i, name, attrs, set_mode, fieldp))
        else:
            out.extend(_distinct(claim, i, name, attrs, set_mode, fieldp))
    return out


class DeviceAttrSource:
    """What a constraint reads of a device: the device, its driver and the
    derived attributes of the request that took it (KEP-6080)."""

    def __init__(self, device: Device, driver: str, derived: Mapping[str, DeviceAttribute] | None = None) -> None:
        self.device = device
        self.driver = driver
        self.derived = derived


def _match(claim: str, i: int, name: str, attrs: list[tuple[DeviceRequestAllocationResult, DeviceAttribute]],
           set_mode: bool, fieldp: str) -> list[Finding]:
    if len(attrs) < 2:
        return []
    labels = tuple(_label(r) for r, _ in attrs)
    shown = ", ".join(f"{_label(r)}={_value_text(a)}" for r, a in attrs)
    if set_mode:
        sets = [as_set(a) for _, a in attrs]
        kinds = {s[0] for s in sets if s is not None}
        common: frozenset[object] | None = None
        for s in sets:
            if s is None:
                common = frozenset()
                break
            common = s[1] if common is None else common & s[1]
        if len(kinds) == 1 and common:
            return []
        return [error("match-attribute", claim, f"constraint #{i} matchAttribute {name}: the devices "
                      f"share no common value ({shown})", labels, (fieldp,))]
    values = [scalar(a) for _, a in attrs]
    if all(v is not None for v in values) and len(set(values)) == 1:
        return []
    return [error("match-attribute", claim, f"constraint #{i} matchAttribute {name}: the devices do not "
                  f"all have the same value ({shown})", labels, (fieldp,))]


def _distinct(claim: str, i: int, name: str, attrs: list[tuple[DeviceRequestAllocationResult, DeviceAttribute]],
              set_mode: bool, fieldp: str) -> list[Finding]:
    out = []
    for (r1, a1), (r2, a2) in combinations(attrs, 2):
        if set_mode:
            s1, s2 = as_set(a1), as_set(a2)
            clash = s1 is None or s2 is None or (s1[0] == s2[0] and bool(s1[1] & s2[1]))
        else:
            v1, v2 = scalar(a1), scalar(a2)
            clash = v1 is None or v2 is None or v1 == v2
        if clash:
            out.append(error("distinct-attribute", claim,
                             f"constraint #{i} distinctAttribute {name}: devices {_label(r1)} "
                             f"(request {r1.request}) and {_label(r2)} (request {r2.request}) both have "
                             f"{_value_text(a1)}" + ("" if _value_text(a1) == _value_text(a2)
                                                    else f" / {_value_text(a2)}"),
                             (_label(r1), _label(r2)), (fieldp,)))
    return out
