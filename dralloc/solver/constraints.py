"""matchAttribute / distinctAttribute as the Kubernetes allocator checks them
incrementally during its search, quirks included (spec §4.4).

These objects are used by the replay; CP-SAT encodes the rule itself. Each
also keeps the devices it holds, so that it can tell when its quirk made a
verdict differ from the rule (``forgot``, ``narrowed_stale``): those are the
defect events the replay reports."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

from dralloc.inventory.attributes import (
    Scalar,
    as_set,
    constraint_attribute,
    scalar,
    scalar_of_kind,
)
from dralloc.inventory.pools import PoolDevice
from dralloc.inventory.spec import RequestSpec
from dralloc.models import DeviceAttribute, DeviceConstraint

ValueSet = tuple[str, frozenset[object]]
DerivedOf = Callable[[PoolDevice, RequestSpec], Mapping[str, DeviceAttribute]]


class Constraint:
    def __init__(self, model: DeviceConstraint, attribute: str, set_mode: bool,
                 derived_of: DerivedOf | None = None) -> None:
        self.on_event: Callable[[str], None] = _ignore  # told when the quirk made a verdict differ from the rule
        self.requests = list(model.requests or [])
        self.attribute = attribute
        self.set_mode = set_mode
        self.derived_of = derived_of  # a request's derived attributes on a device (KEP-6080)
        self.count = 0
        self._applies: dict[tuple[str, str], bool] = {}
        self._values: dict[object, tuple[DeviceAttribute | None, Scalar | None, ValueSet | None]] = {}
        self.held: list[tuple[int, DeviceAttribute]] = []  # (id of the device, its attribute), in add order

    def applies(self, base: str, sub: str) -> bool:
        got = self._applies.get((base, sub))
        if got is None:
            got = self._applies[(base, sub)] = not self.requests or base in self.requests or (
                bool(sub) and f"{base}/{sub}" in self.requests)
        return got

    def lookup(self, req: RequestSpec, pd: PoolDevice) -> DeviceAttribute | None:
        return self.values(req, pd)[0]

    def values(self, req: RequestSpec, pd: PoolDevice) -> tuple[DeviceAttribute | None, Scalar | None,
                                                                ValueSet | None]:
        """The attribute compared for the device taken by ``req`` (a derived
        one first), its scalar and its set form (cached)."""
        key = (id(pd), req.key) if req.derived else id(pd)
        got = self._values.get(key)
        if got is None:
            derived = self.derived_of(pd, req) if req.derived and self.derived_of is not None else None
            attr = constraint_attribute(pd.device, pd.pool.driver, self.attribute, derived)
            got = (attr, scalar(attr), as_set(attr)) if attr is not None else (None, None, None)
            self._values[key] = got
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

    def add(self, req: RequestSpec, pd: PoolDevice) -> bool:
        """Take ``pd`` for ``req`` (True when the constraint does not apply to it)."""
        return not self.applies(req.base, req.sub) or self.admit(req, pd)

    def remove(self, req: RequestSpec, pd: PoolDevice) -> None:
        if self.applies(req.base, req.sub):
            self.release(req, pd)

    def admit(self, req: RequestSpec, pd: PoolDevice) -> bool:
        """:meth:`add` for a request the constraint applies to."""
        raise NotImplementedError

    def release(self, req: RequestSpec, pd: PoolDevice) -> None:
        """:meth:`remove` for a request the constraint applies to."""
        raise NotImplementedError


class MatchAttribute(Constraint):
    """All devices share one value. Scalar mode keeps the first device's
    attribute as reference; set mode narrows a running intersection. Before
    Kubernetes 1.37 it was never widened again on backtracking (a defect);
    1.37 restores it (``restore``: a stack of the intersections before each
    device, popped when the device is removed)."""

    def __init__(self, model: DeviceConstraint, set_mode: bool, derived_of: DerivedOf | None = None,
                 restore: bool = False) -> None:
        super().__init__(model, model.match_attribute or "", set_mode, derived_of)
        self.reference: DeviceAttribute | None = None
        self.intersection: ValueSet | None = None
        self.restore = restore
        self._before: list[ValueSet | None] = []
        self.narrowed_stale = False  # a device was refused that the held devices' own intersection admits

    def admit(self, req: RequestSpec, pd: PoolDevice) -> bool:
        attr, new, as_values = self.values(req, pd)
        if attr is None:
            return False
        if self.set_mode:
            before = self.intersection
            ok = self._add_set(as_values)
            if ok and self.restore:
                self._before.append(before)
        elif self.count == 0:
            self.reference = attr
            ok = True
        else:
            ok = new is not None and self.reference is not None and scalar_of_kind(self.reference, new[0]) == new[1]
        if ok:
            self._hold(pd, attr)
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
            if not self.restore:
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

    def release(self, req: RequestSpec, pd: PoolDevice) -> None:
        if self.set_mode and self.restore and self._before:
            self.intersection = self._before.pop()
        self._release(pd)


class DistinctAttribute(Constraint):
    """Devices have pairwise different values — but only the last device of
    each request is remembered (a Kubernetes defect: values can repeat)."""

    def __init__(self, model: DeviceConstraint, set_mode: bool, derived_of: DerivedOf | None = None) -> None:
        super().__init__(model, model.distinct_attribute or "", set_mode, derived_of)
        self.seen: dict[str, DeviceAttribute] = {}
        self.forgot = False  # a device was let in that the rule refuses (its value repeats a held one)

    def admit(self, req: RequestSpec, pd: PoolDevice) -> bool:
        base = req.base
        attr = self.lookup(req, pd)
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

    def release(self, req: RequestSpec, pd: PoolDevice) -> None:
        self.seen.pop(req.base, None)
        self._release(pd)


def _ignore(event: str) -> None:
    pass


def build_constraints(models: list[DeviceConstraint], set_mode: bool,
                      on_event: Callable[[str], None] | None = None, derived_of: DerivedOf | None = None,
                      restore: bool = False) -> list[Constraint]:
    """The claim's constraints as Kubernetes checks them; ``restore``: the
    release's matchAttribute restores its list intersection on backtracking."""
    out: list[Constraint] = []
    for m in models:
        if m.match_attribute is not None:
            out.append(MatchAttribute(m, set_mode, derived_of, restore))
        elif m.distinct_attribute is not None:
            out.append(DistinctAttribute(m, set_mode, derived_of))
    for c in out:
        c.on_event = on_event or _ignore
    return out
