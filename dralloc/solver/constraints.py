"""matchAttribute / distinctAttribute as the Kubernetes allocator checks them
incrementally during its search, quirks included (spec §4.4).

These objects are used by the replay; CP-SAT encodes the rule itself. Each
also keeps the devices it holds, so that it can tell when its quirk made a
verdict differ from the rule (``forgot``, ``narrowed_stale``): those are the
defect events the replay reports."""

from __future__ import annotations

from collections.abc import Callable, Collection

from dralloc.inventory.attributes import Scalar, as_set, lookup_attribute, scalar, scalar_of_kind
from dralloc.inventory.pools import PoolDevice
from dralloc.models import DeviceAttribute, DeviceConstraint

ValueSet = tuple[str, frozenset[object]]


class Constraint:
    def __init__(self, model: DeviceConstraint, attribute: str, set_mode: bool) -> None:
        self.on_event: Callable[[str], None] = _ignore  # told when the quirk made a verdict differ from the rule
        self.requests = list(model.requests or [])
        self.attribute = attribute
        self.set_mode = set_mode
        self.count = 0
        self._applies: dict[tuple[str, str], bool] = {}
        self._values: dict[int, tuple[DeviceAttribute | None, Scalar | None, ValueSet | None]] = {}
        self.held: list[tuple[int, DeviceAttribute]] = []  # (id of the device, its attribute), in add order

    def applies(self, base: str, sub: str) -> bool:
        got = self._applies.get((base, sub))
        if got is None:
            got = self._applies[(base, sub)] = not self.requests or base in self.requests or (
                bool(sub) and f"{base}/{sub}" in self.requests)
        return got

    def lookup(self, pd: PoolDevice) -> DeviceAttribute | None:
        return self.values(pd)[0]

    def values(self, pd: PoolDevice) -> tuple[DeviceAttribute | None, Scalar | None, ValueSet | None]:
        """The device's attribute, its scalar and its set form (cached)."""
        got = self._values.get(id(pd))
        if got is None:
            attr = lookup_attribute(pd.device, pd.pool.driver, self.attribute)
            got = (attr, scalar(attr), as_set(attr)) if attr is not None else (None, None, None)
            self._values[id(pd)] = got
        return got

    def _hold(self, pd: PoolDevice, attr: DeviceAttribute) -> None:
        self.held.append((id(pd), attr))
        self.count += 1

    def _release(self, pd: PoolDevice) -> None:
        self.count -= 1
        self.drop_holding(pd)

    def drop_holding(self, pd: PoolDevice) -> None:
        """Forget that ``pd`` is held without touching Kubernetes' own state
        (a device refused after the constraints took it: DC-17)."""
        key = id(pd)
        for i in range(len(self.held) - 1, -1, -1):
            if self.held[i][0] == key:
                del self.held[i]
                break

    def add(self, base: str, sub: str, pd: PoolDevice) -> bool:
        """Take ``pd`` for request ``base``/``sub`` (True when the
        constraint does not apply to it)."""
        return not self.applies(base, sub) or self.admit(base, pd)

    def remove(self, base: str, sub: str, pd: PoolDevice) -> None:
        if self.applies(base, sub):
            self.release(base, pd)

    def admit(self, base: str, pd: PoolDevice) -> bool:
        """:meth:`add` for a request the constraint applies to."""
        raise NotImplementedError

    def release(self, base: str, pd: PoolDevice) -> None:
        """:meth:`remove` for a request the constraint applies to."""
        raise NotImplementedError


class MatchAttribute(Constraint):
    """All devices share one value. Scalar mode keeps the first device's
    attribute as reference; set mode narrows a running intersection that is
    never widened again on backtracking (a Kubernetes defect)."""

    def __init__(self, model: DeviceConstraint, set_mode: bool) -> None:
        super().__init__(model, model.match_attribute or "", set_mode)
        self.reference: DeviceAttribute | None = None
        self.intersection: ValueSet | None = None
        self.narrowed_stale = False  # a device was refused that the held devices' own intersection admits

    def admit(self, base: str, pd: PoolDevice) -> bool:
        got = self._values.get(id(pd))
        attr, new, as_values = got if got is not None else self.values(pd)
        if attr is None:
            return False
        if self.set_mode:
            ok = self._add_set(as_values)
        elif self.count == 0:
            self.reference = attr
            ok = True
        else:
            ok = new is not None and self.reference is not None and scalar_of_kind(self.reference, new[0]) == new[1]
        if ok:
            self.held.append((id(pd), attr))
            self.count += 1
        return ok

    def _add_set(self, s: ValueSet | None) -> bool:
        if s is None:
            return False
        if self.count == 0:
            self.intersection = s
            return True
        cur = self.intersection
        if cur is None or cur[0] != s[0]:
            return False
        common = cur[1] & s[1]
        if not common:
            self._check_stale(s)
            return False
        self.intersection = (cur[0], common)
        return True

    def _check_stale(self, s: ValueSet) -> None:
        """The rule's intersection is that of the devices held now."""
        sets = [as_set(a) for _, a in self.held]
        if any(h is None or h[0] != s[0] for h in sets):
            return
        true = s[1]
        for h in sets:
            assert h is not None
            true = true & h[1]
        if true:
            self.narrowed_stale = True
            self.on_event("match-attribute-stale-intersection")

    def release(self, base: str, pd: PoolDevice) -> None:
        self._release(pd)


class DistinctAttribute(Constraint):
    """Devices have pairwise different values — but only the last device of
    each request is remembered (a Kubernetes defect: values can repeat)."""

    def __init__(self, model: DeviceConstraint, set_mode: bool) -> None:
        super().__init__(model, model.distinct_attribute or "", set_mode)
        self.seen: dict[str, DeviceAttribute] = {}
        self.forgot = False  # a device was let in that the rule refuses (its value repeats a held one)

    def admit(self, base: str, pd: PoolDevice) -> bool:
        attr = self.lookup(pd)
        if attr is None:
            return False
        if self.count == 0:
            self.seen[base] = attr
            self._hold(pd, attr)
            return True
        if self._conflicts(attr, self.seen.values()):
            return False
        if len(self.seen) < len(self.held) and self._breaks_rule(attr):
            self.forgot = True
            self.on_event("distinct-attribute-forgets")
        self.seen[base] = attr
        self._hold(pd, attr)
        return True

    def _breaks_rule(self, attr: DeviceAttribute) -> bool:
        """The rule compares with every held device; a value-less attribute is
        only allowed as the first one."""
        if not self.set_mode and scalar(attr) is None:
            return True
        return self._conflicts(attr, [a for _, a in self.held])

    def _conflicts(self, attr: DeviceAttribute, others: Collection[DeviceAttribute]) -> bool:
        if self.set_mode:
            s = as_set(attr)
            if s is None:
                return True
            return any((o := as_set(v)) is not None and o[0] == s[0] and o[1] & s[1] for v in others)
        new = scalar(attr)
        if new is None:
            # Kubernetes rejects a value-less attribute only while comparing it
            # with a remembered one: with nothing remembered it passes.
            return bool(others)
        return any(scalar_of_kind(v, new[0]) == new[1] for v in others)

    def release(self, base: str, pd: PoolDevice) -> None:
        self.seen.pop(base, None)
        self._release(pd)


def _ignore(event: str) -> None:
    pass


def build_constraints(models: list[DeviceConstraint], set_mode: bool,
                      on_event: Callable[[str], None] | None = None) -> list[Constraint]:
    out: list[Constraint] = []
    for m in models:
        if m.match_attribute is not None:
            out.append(MatchAttribute(m, set_mode))
        elif m.distinct_attribute is not None:
            out.append(DistinctAttribute(m, set_mode))
    for c in out:
        c.on_event = on_event or _ignore
    return out
