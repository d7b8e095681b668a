"""matchAttribute / distinctAttribute as the Kubernetes allocator checks them
incrementally during its search, quirks included (spec §4.4).

These objects are used by the replay; CP-SAT encodes the rule itself."""

from __future__ import annotations

from dralloc.inventory.attributes import as_set, lookup_attribute, scalar, scalar_of_kind
from dralloc.inventory.pools import PoolDevice
from dralloc.models import DeviceAttribute, DeviceConstraint


class Constraint:
    def __init__(self, model: DeviceConstraint, attribute: str, set_mode: bool) -> None:
        self.requests = list(model.requests or [])
        self.attribute = attribute
        self.set_mode = set_mode
        self.count = 0

    def applies(self, base: str, sub: str) -> bool:
        if not self.requests:
            return True
        return base in self.requests or (bool(sub) and f"{base}/{sub}" in self.requests)

    def lookup(self, pd: PoolDevice) -> DeviceAttribute | None:
        return lookup_attribute(pd.device, pd.pool.driver, self.attribute)

    def add(self, base: str, sub: str, pd: PoolDevice) -> bool:
        raise NotImplementedError

    def remove(self, base: str, sub: str, pd: PoolDevice) -> None:
        raise NotImplementedError


class MatchAttribute(Constraint):
    """All devices share one value. Scalar mode keeps the first device's
    attribute as reference; set mode narrows a running intersection that is
    never widened again on backtracking (a Kubernetes defect)."""

    def __init__(self, model: DeviceConstraint, set_mode: bool) -> None:
        super().__init__(model, model.match_attribute or "", set_mode)
        self.reference: DeviceAttribute | None = None
        self.intersection: tuple[str, frozenset[object]] | None = None
        self.narrowed_stale = False  # set when backtracking left a narrowed intersection

    def add(self, base: str, sub: str, pd: PoolDevice) -> bool:
        if not self.applies(base, sub):
            return True
        attr = self.lookup(pd)
        if attr is None:
            return False
        if self.set_mode:
            return self._add_set(attr)
        if self.count == 0:
            self.reference = attr
            self.count = 1
            return True
        new = scalar(attr)
        if new is None or self.reference is None:
            return False
        if scalar_of_kind(self.reference, new[0]) != new[1]:
            return False
        self.count += 1
        return True

    def _add_set(self, attr: DeviceAttribute) -> bool:
        s = as_set(attr)
        if s is None:
            return False
        if self.count == 0:
            self.intersection = s
            self.count = 1
            return True
        cur = self.intersection
        if cur is None or cur[0] != s[0]:
            return False
        common = cur[1] & s[1]
        if not common:
            return False
        self.intersection = (cur[0], common)
        self.count += 1
        return True

    def remove(self, base: str, sub: str, pd: PoolDevice) -> None:
        if self.applies(base, sub):
            self.count -= 1
            if self.set_mode and self.count > 0:
                self.narrowed_stale = True


class DistinctAttribute(Constraint):
    """Devices have pairwise different values — but only the last device of
    each request is remembered (a Kubernetes defect: values can repeat)."""

    def __init__(self, model: DeviceConstraint, set_mode: bool) -> None:
        super().__init__(model, model.distinct_attribute or "", set_mode)
        self.seen: dict[str, DeviceAttribute] = {}
        self.forgot = False  # an earlier value of the same request was overwritten

    def add(self, base: str, sub: str, pd: PoolDevice) -> bool:
        if not self.applies(base, sub):
            return True
        attr = self.lookup(pd)
        if attr is None:
            return False
        if self.count == 0:
            self.seen[base] = attr
            self.count = 1
            return True
        if self._conflicts(attr):
            return False
        if base in self.seen:
            self.forgot = True
        self.seen[base] = attr
        self.count += 1
        return True

    def _conflicts(self, attr: DeviceAttribute) -> bool:
        if self.set_mode:
            s = as_set(attr)
            if s is None:
                return True
            return any((o := as_set(v)) is not None and o[0] == s[0] and o[1] & s[1] for v in self.seen.values())
        new = scalar(attr)
        if new is None:
            # Kubernetes rejects a value-less attribute only while comparing it
            # with a remembered one: with nothing remembered it passes.
            return bool(self.seen)
        return any(scalar_of_kind(v, new[0]) == new[1] for v in self.seen.values())

    def remove(self, base: str, sub: str, pd: PoolDevice) -> None:
        if self.applies(base, sub):
            self.seen.pop(base, None)
            self.count -= 1


def build_constraints(models: list[DeviceConstraint], set_mode: bool) -> list[Constraint]:
    out: list[Constraint] = []
    for m in models:
        if m.match_attribute is not None:
            out.append(MatchAttribute(m, set_mode))
        elif m.distinct_attribute is not None:
            out.append(DistinctAttribute(m, set_mode))
    return out
