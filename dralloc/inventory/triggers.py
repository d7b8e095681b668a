"""When can a documented Kubernetes defect fire? A static condition per
defect on the normalised problem (``docs/engine.md``, "Defect triggers").

Each condition is *necessary* for its defect to change a verdict of
Kubernetes' search, so when none holds, Kubernetes' search checks exactly the
rules and its answer is the first solution in its order, which is first-fit's
answer: no replay is needed. A trigger also says whether its defect can only
make Kubernetes refuse more than the rules (``only_refuses``): when every
trigger that holds is of that kind, an answer the rules refuse, Kubernetes
refuses too, which is what the solver-side proofs rest on.

Besides the defects of :mod:`dralloc.defects`, one order-dependent error is a
trigger: an All request whose devices a constraint can refuse (T-5) makes
Kubernetes fail with an error where the rules merely skip the alternative."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from dralloc.errors import AllocationError
from dralloc.features import Variant
from dralloc.inventory.attributes import as_set, constraint_attribute, scalar
from dralloc.inventory.candidates import (
    IN_USE,
    NOT_SELECTED,
    TAINT,
    searched_devices,
    static_reason,
)
from dralloc.inventory.pools import PoolDevice
from dralloc.inventory.problem import Problem
from dralloc.inventory.requests import MAX_RESULTS, ClaimPlan, RequestSpec
from dralloc.models import DeviceConstraint

ORDER_DEPENDENT_ERROR = "order-dependent-error"


@dataclass(frozen=True)
class Trigger:
    defect: str         # a defect id of dralloc.defects, or ORDER_DEPENDENT_ERROR
    where: str          # the claim, request and device(s) it concerns, in words
    only_refuses: bool  # the defect can only make Kubernetes refuse more than the rules

    def __str__(self) -> str:
        return f"{self.defect}: {self.where}"


@dataclass(eq=False)
class _Option:
    """One request alternative the search can reach, with its devices."""

    slot: int
    spec: RequestSpec
    candidates: list[PoolDevice]   # the rules allow these
    tainted: list[PoolDevice]      # only an untolerated taint keeps these out
    checked: list[PoolDevice]      # every device that reaches the capacity check (DC-7)


def _options(problem: Problem, plan: ClaimPlan, errors: list[Trigger]) -> list[_Option]:
    out = []
    for r, slot in enumerate(plan.slots):
        for spec in slot.options:
            if spec.num_devices > MAX_RESULTS or (spec.is_all and not spec.all_devices):
                continue  # the search never looks at a device for it
            opt = _Option(r, spec, [], [], [])
            for pd in searched_devices(problem, spec):
                try:
                    why = static_reason(problem, spec, pd)
                except AllocationError as e:  # where the search meets it decides: keep the device
                    errors.append(Trigger(ORDER_DEPENDENT_ERROR, f"claim {plan.key}, request {spec.name}: "
                                          f"a selector fails on {pd.label} ({e})", False))
                    why = None
                if why is None:
                    opt.candidates.append(pd)
                elif why == TAINT:
                    opt.tainted.append(pd)
                if why not in (IN_USE, NOT_SELECTED):
                    opt.checked.append(pd)
            out.append(opt)
    return out


def find_triggers(problem: Problem) -> list[Trigger]:
    """Every defect trigger that holds, at most one per defect, claim or
    request or device, and direction."""
    found: list[Trigger] = []
    options = [_options(problem, plan, found) for plan in problem.plans]
    for plan, opts in zip(problem.plans, options, strict=True):
        found.extend(_claim_triggers(problem, plan, opts))
    found.extend(_pool_triggers(problem, [o for opts in options for o in opts]))
    seen: set[tuple[str, str, bool]] = set()
    out = []
    for t in found:
        key = (t.defect, t.where.split(":", 1)[0], t.only_refuses)
        if key not in seen:
            seen.add(key)
            out.append(t)
    return out


# ---------------------------------------------------------------- per claim

def _claim_triggers(problem: Problem, plan: ClaimPlan, opts: list[_Option]) -> Iterator[Trigger]:
    set_mode = problem.variant is Variant.EXPERIMENTAL and problem.features.list_type_attributes
    multi_ok = problem.features.consumable_capacity and problem.variant is not Variant.STABLE
    views = [_ConstraintView(problem, c, opts, set_mode, multi_ok) for c in plan.constraints
             if c.match_attribute is not None or c.distinct_attribute is not None]
    for v in views:
        yield from v.own_defects(plan.key)
    for o in opts:
        where = f"claim {plan.key}, request {o.spec.name}"
        if o.spec.is_all and any(v.can_refuse_any(o, _devices(o)) for v in views):
            yield Trigger(ORDER_DEPENDENT_ERROR, f"{where}: a constraint can refuse a device of this All "
                          "request, which Kubernetes reports as an error (T-5)", False)
        late_capacity = _may_refuse_capacity_late(o, multi_ok)
        if late_capacity:
            yield Trigger("counter-leak-on-late-refusal", f"{where}: the second capacity check can refuse a "
                          "device, leaving its counters, constraint and in-use marks behind", False)
        if problem.features.partitionable_devices:
            yield from _late_refusals(o, views, where)


def _late_refusals(o: _Option, views: list[_ConstraintView], where: str) -> Iterator[Trigger]:
    """T-11: a counter-consuming device the search can refuse after its
    counter check (taint, constraint)."""
    consuming = [pd for pd in o.candidates if pd.device.consumes_counters]
    tainted = next((pd for pd in o.tainted if pd.device.consumes_counters), None)
    if tainted is not None:
        yield Trigger("counter-leak-on-late-refusal", f"{where}: {tainted.label} consumes counters and has "
                      "a taint the request does not tolerate", True)
    refused = next((pd for pd in consuming if any(v.can_refuse(o, pd) for v in views)), None)
    if refused is not None:
        yield Trigger("counter-leak-on-late-refusal", f"{where}: {refused.label} consumes counters and a "
                      "constraint of the claim can refuse it", True)


def _may_refuse_capacity_late(o: _Option, multi_ok: bool) -> bool:
    """DC-17 can refuse what DC-7 (or the All list) admitted: an All request
    meeting a shared device's tentative use, or a request Go aliases."""
    has_shared = any(pd.device.allow_multiple_allocations for pd in o.checked)
    return multi_ok and has_shared and (o.spec.is_all or _aliases(o.spec))


def _aliases(spec: RequestSpec) -> bool:
    return any(q.inf_dec for q in (spec.capacity or {}).values())


Key = tuple[str, Any] | None  # (kind, scalar value) or (kind, frozenset of values); None: no value
MISSING = "missing"


def _devices(o: _Option) -> list[PoolDevice]:
    """What an alternative takes: an All request its whole list, else candidates."""
    return list(o.spec.all_devices or []) if o.spec.is_all else o.candidates


Ident = tuple[int, int]  # (id of the device, the request slot holding it, or -1 when only one can)


class _Partners:
    """The values of the devices that can be held next to one of an
    alternative's: the other requests' devices, and the alternative's own
    when it takes several (a shared device can be held once per request)."""

    def __init__(self, keys: dict[Ident, Key]) -> None:
        self.keys = keys
        self.counts: dict[Key, int] = {}
        for k in keys.values():
            self.counts[k] = self.counts.get(k, 0) + 1

    def others(self, me: Ident, key: Key) -> tuple[int, int]:
        """(holdings other than ``me``, of those how many have ``key``)."""
        mine = 1 if self.keys.get(me, MISSING) == key else 0
        return len(self.keys) - (1 if me in self.keys else 0), self.counts.get(key, 0) - mine


class _ConstraintView:
    """One constraint of a claim over the devices its requests may take."""

    def __init__(self, problem: Problem, model: DeviceConstraint, opts: list[_Option], set_mode: bool,
                 multi_ok: bool) -> None:
        self.problem = problem
        self.match = model.match_attribute is not None
        self.name = model.match_attribute or model.distinct_attribute or ""
        self.requests = list(model.requests or [])
        self.set_mode = set_mode
        self.opts = [o for o in opts if self.applies(o.spec)]
        # (id(device), the request when it derives attributes) -> value key, MISSING without the attribute
        self.keys: dict[tuple[int, object], Key | str] = {}
        self.multi: set[int] = set()  # shared devices: one holding per request
        for o in self.opts:
            for pd in _devices(o):
                self.keys.setdefault(self.at(pd, o), self._key(pd, o))
                if multi_ok and pd.device.allow_multiple_allocations:
                    self.multi.add(id(pd))
        self._partners: dict[int, _Partners] = {}

    def ident(self, pd: PoolDevice, o: _Option) -> Ident:
        return (id(pd), o.slot if id(pd) in self.multi else -1)

    @staticmethod
    def at(pd: PoolDevice, o: _Option) -> tuple[int, object]:
        return (id(pd), o.spec.key if o.spec.derived else None)

    def holdings(self) -> dict[Ident, Key | str]:
        return {self.ident(pd, o): self.keys[self.at(pd, o)] for o in self.opts for pd in _devices(o)}

    def applies(self, spec: RequestSpec) -> bool:
        if not self.requests:
            return True
        return spec.base in self.requests or (bool(spec.sub) and spec.name in self.requests)

    def _key(self, pd: PoolDevice, o: _Option) -> Key | str:
        try:
            derived = self.problem.selectable.derived(pd, o.spec) if o.spec.derived else None
        except AllocationError:  # an order-dependent error, already a trigger of its own
            return MISSING
        attr = constraint_attribute(pd.device, pd.pool.driver, self.name, derived)
        if attr is None:
            return MISSING
        return as_set(attr) if self.set_mode else scalar(attr)

    def partners(self, o: _Option) -> _Partners:
        got = self._partners.get(id(o))
        if got is None:
            keys: dict[Ident, Key] = {}
            for p in self.opts:
                if p.slot != o.slot or (p is o and o.spec.num_devices >= 2):
                    for pd in _devices(p):
                        k = self.keys[self.at(pd, p)]
                        if k != MISSING:  # never held
                            keys[self.ident(pd, p)] = k  # type: ignore[assignment]
            got = self._partners[id(o)] = _Partners(keys)
        return got

    def can_refuse(self, o: _Option, pd: PoolDevice) -> bool:
        return self.can_refuse_any(o, [pd])

    def can_refuse_any(self, o: _Option, devices: list[PoolDevice]) -> bool:
        if o not in self.opts:
            return False
        partners = self.partners(o)
        return any(self._refusable(self.keys[self.at(pd, o)], self.ident(pd, o), partners) for pd in devices)

    def _refusable(self, key: Key | str, me: Ident, partners: _Partners) -> bool:
        if key == MISSING:
            return True
        n_others, n_same = partners.others(me, key)  # type: ignore[arg-type]
        if not n_others:
            return False
        if key is None:  # no value: refused next to any other device
            return True
        if self.match:
            return n_others > n_same
        if not self.set_mode:
            return n_same > 0 or partners.counts.get(None, 0) - (partners.keys.get(me, MISSING) is None) > 0
        return any(_clash(key, k, True) for i, k in partners.keys.items() if i != me)

    def own_defects(self, claim: str) -> Iterator[Trigger]:
        vals = [k for k in self.holdings().values() if k != MISSING]
        where = f"claim {claim}, constraint on {self.name}"
        if not self.match and any(o.spec.num_devices >= 2 for o in self.opts) and _repeats(vals, self.set_mode):
            yield Trigger("distinct-attribute-duplicates", f"{where}: a request takes several devices and "
                          "two candidates share a value", False)
        if self.match and self.set_mode and len(vals) >= 3 and len(set(vals)) >= 2 \
                and sum(o.spec.num_devices for o in self.opts) >= 2 \
                and self.problem.features.has_defect("match-attribute-stale-intersection"):
            yield Trigger("match-attribute-stale-intersection", f"{where}: list values that differ can narrow "
                          "the intersection", True)


def _repeats(vals: list[Key | str], set_mode: bool) -> bool:
    """Two devices whose values clash (a value-less one clashes with any)."""
    if len(vals) < 2:
        return False
    if None in vals or (not set_mode and len(set(vals)) < len(vals)):
        return True
    if not set_mode:
        return False
    owners: dict[tuple[str, object], int] = {}
    for n, v in enumerate(vals):
        assert isinstance(v, tuple)
        kind, items = v
        for item in items:
            if owners.setdefault((kind, item), n) != n:
                return True
    return False


def _clash(a: Key | str, b: Key | str, set_mode: bool) -> bool:
    if a is None or b is None:
        return True
    if set_mode:
        assert isinstance(a, tuple) and isinstance(b, tuple)
        return a[0] == b[0] and bool(a[1] & b[1])
    return a == b


# ---------------------------------------------------------------- per pool

def _pool_triggers(problem: Problem, opts: list[_Option]) -> Iterator[Trigger]:
    multi_ok = problem.features.consumable_capacity and problem.variant is not Variant.STABLE
    if multi_ok:
        for o in opts:
            if _aliases(o.spec) and any(pd.device.allow_multiple_allocations for pd in o.checked):
                yield Trigger("quantity-dec-aliasing", f"request {o.spec.claim_key}/{o.spec.name}: a capacity "
                              "request Go holds as inf.Dec meets a shared device", False)
    if not problem.features.partitionable_devices:
        return
    consuming = {id(pd): pd for o in opts for pd in o.candidates if pd.device.consumes_counters}
    drivers: dict[str, set[str]] = {}
    for pd in consuming.values():
        drivers.setdefault(pd.pool.name, set()).add(pd.pool.driver)
    for name, ds in sorted(drivers.items()):
        if len(ds) > 1:
            yield Trigger("counters-keyed-by-pool-name", f"pool name {name}: devices of drivers "
                          f"{', '.join(sorted(ds))} consume counters in one ledger", False)
    for pool in {id(pd.pool): pd.pool for pd in consuming.values()}.values():
        if problem.state.overdrawn(pool):
            yield Trigger("overdrawn-counter-blocks-pool", f"pool {pool.driver}/{pool.name}: a counter is "
                          "overdrawn by allocated devices", True)
    if multi_ok:
        yield from _shared_counter_triggers(problem, opts, consuming.values())


def _shared_counter_triggers(problem: Problem, opts: list[_Option],
                             consuming: Iterable[PoolDevice]) -> Iterator[Trigger]:
    """T-12 and T-41: shared devices that consume counters."""
    aliasing = any(_aliases(o.spec) for o in opts)
    for pd in consuming:
        if pd.device.allow_multiple_allocations and pd.id not in problem.state.aggregated:
            yield Trigger("shared-device-counter-leak", f"device {pd.label}: shared and consumes counters", True)
            if not pd.device.capacity or aliasing:
                yield Trigger("shared-capacity-entry-kept", f"device {pd.label}: a share's capacity entry "
                              "can outlive the share", True)
