"""The Kubernetes allocator's depth-first search, replayed step by step
(spec §4 and §9). This is the reference every other mode is checked against:
same orders, same quirks, same step count (``allocateOne`` invocations).

The search never runs unbounded: it stops at a step budget, at a deadline, or
when a checkpoint callback says enough is known (:class:`SearchStopped`), and
keeps what it saw on the way (defect events with the step they first fired
at, counters leaked by late refusals)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from fractions import Fraction

from dralloc.errors import AllocationError
from dralloc.features import Variant
from dralloc.inventory.pools import CounterMap, PoolDevice
from dralloc.inventory.problem import Problem
from dralloc.inventory.requests import MAX_RESULTS, RequestSpec
from dralloc.inventory.taints import untolerated_taint
from dralloc.solver.cancel import cancel_requested
from dralloc.solver.compat_book import CompatBook, Undo
from dralloc.solver.constraints import (
    Constraint,
    DistinctAttribute,
    MatchAttribute,
    build_constraints,
)
from dralloc.solver.ledger import CounterLedger
from dralloc.solver.replay_devices import CapacityBook, Chosen
from dralloc.solver.replay_exact import FAIL, MAX, OK, CandidateList, CountUse, exact

FIRST_CHECKPOINT = 64
CHECKPOINT_EVERY = 1024

__all__ = ["Chosen", "ReplaySearch", "SearchStopped", "StepLimitReached"]


class SearchStopped(Exception):
    """The replay stopped before Kubernetes' answer was known."""

    def __init__(self, steps: int, reason: str) -> None:
        super().__init__(f"replay stopped after {steps} search steps ({reason})")
        self.steps = steps
        self.reason = reason  # "steps", "time", "checkpoint" or "cancel" (the caller's event)


class StepLimitReached(SearchStopped):
    """The replay ran out of its step budget."""

    def __init__(self, steps: int) -> None:
        super().__init__(steps, "steps")


class ReplaySearch:
    """One allocation call's search, as Kubernetes runs it. ``run()`` returns
    whether it found an allocation (``results``, ``selected``) or raises
    :class:`AllocationError` (Kubernetes' fatal errors) or
    :class:`SearchStopped` (``step_limit``, ``time_limit``, or ``checkpoint``
    returning True at a checkpoint)."""

    def __init__(self, problem: Problem, step_limit: int | None = None,
                 time_limit: float | None = None,
                 checkpoint: Callable[[ReplaySearch], bool] | None = None) -> None:
        self.p = problem
        self.started = time.monotonic()
        self.deadline = None if time_limit is None else self.started + time_limit
        self.step_limit = step_limit
        self.checkpoint = checkpoint
        self._next_check = FIRST_CHECKPOINT if step_limit is None else min(FIRST_CHECKPOINT, step_limit + 1)
        self.variant = problem.variant
        self.features = problem.features
        self.multi_ok = self.features.consumable_capacity and self.variant is not Variant.STABLE
        self.steps = 0
        self.results: list[list[Chosen]] = [[] for _ in problem.plans]
        self.capacity = CapacityBook(problem)
        self.counters = CounterLedger(problem.state, problem.pools)
        self.compat = CompatBook(problem)
        self.compat_on = self.compat.on
        self.first_seen: dict[str, int] = {}      # event -> step it first fired at
        set_mode = self.variant is Variant.EXPERIMENTAL and self.features.list_type_attributes
        restore = not self.features.has_defect("match-attribute-stale-intersection")
        derived_of = problem.selectable.derived
        self.constraints: list[list[Constraint]] = [build_constraints(pl.constraints, set_mode, self.event,
                                                                      derived_of, restore)
                                                    for pl in problem.plans]
        self.selected: dict[tuple[int, int], int] = {}
        self._claims = len(problem.plans)
        self._slots = [pl.slots for pl in problem.plans]
        self.candidates = [pd for pool in problem.pools if pool.usable for pd in pool.devices]
        self.counted_devices = any(pd.device.consumes_counters for pd in self.candidates)
        self.index = {id(pd): i for i, pd in enumerate(self.candidates)}
        # DC-2 per candidate, one int: bit c while claim c of this call holds it
        # (allocatingDevices), bit len(plans) when an allocated claim does
        committed = 1 << self._claims
        self.in_use = [committed if pd.id in problem.state.devices else 0 for pd in self.candidates]
        # per candidate: its counter row and consumption, once its counters were first checked
        self.compiled: list[CountUse | None] = [None] * len(self.candidates)
        self._lists: dict[tuple[int, int, int], CandidateList] = {}
        self.leaked: dict[tuple[str, str], CounterMap] = {}  # pool -> counters leaked by late refusals

    @property
    def events(self) -> set[str]:
        return set(self.first_seen)

    def event(self, name: str) -> None:
        self.first_seen.setdefault(name, self.steps)

    # ------------------------------------------------------------ search
    def run(self) -> bool:
        # The search recurses once per device slot, request and claim: give
        # Python room for many claims allocated together.
        depth = 4 * (sum(len(pl.slots) + MAX_RESULTS for pl in self.p.plans) + 16)
        old = sys.getrecursionlimit()
        if old < depth:   # for this search only: a limit left raised lets C code recurse until it crashes
            sys.setrecursionlimit(depth)
        try:
            if cancel_requested():
                raise SearchStopped(0, "cancel")
            out = self.allocate_one(0, 0, 0, 0, False)
        finally:
            if old < depth and sys.getrecursionlimit() == depth:
                sys.setrecursionlimit(old)
        self.capacity.settle(self.results)
        if out == MAX:
            raise AllocationError("allocation max size exceeded")
        return out == OK

    def _checkpoint(self) -> None:
        """Every so many steps: the step budget, the deadline, the callback."""
        if self.step_limit is not None and self.steps > self.step_limit:
            raise StepLimitReached(self.steps)
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise SearchStopped(self.steps, "time")
        if cancel_requested():
            raise SearchStopped(self.steps, "cancel")
        if self.checkpoint is not None and self.checkpoint(self):
            raise SearchStopped(self.steps, "checkpoint")
        nxt = self.steps + min(CHECKPOINT_EVERY, self.steps)
        self._next_check = nxt if self.step_limit is None else min(nxt, self.step_limit + 1)

    def allocate_one(self, c: int, r: int, s: int, k: int, in_sub: bool) -> str:
        self.steps += 1
        if self.steps >= self._next_check:
            self._checkpoint()
        if c == self._claims:
            return OK
        slots = self._slots[c]
        if r == len(slots):
            out = self.allocate_one(c + 1, 0, 0, 0, False)
            return FAIL if out == MAX else out
        slot = slots[r]
        subs = slot.subs
        if subs and not in_sub:
            return self._alternatives(c, r, len(subs))
        req = subs[s] if subs else slot.plain
        assert req is not None
        listed = req.all_devices  # set exactly for All requests
        if listed is not None and not listed:
            return FAIL
        if k >= req.num_devices:
            return self.allocate_one(c, r + 1, 0, 0, False)
        if len(self.results[c]) + req.num_devices - k > MAX_RESULTS:
            return MAX
        if listed is None:
            lst = self._lists.get(req.key)
            if lst is None:
                lst = self._lists[req.key] = CandidateList(
                    [con for con in self.constraints[c] if con.applies(req.base, req.sub)])
            return exact(self, c, r, req, lst)
        pd = listed[k]
        idx = self.index[id(pd)]
        if not self._free(c, req, pd, idx):
            return FAIL
        chosen = self.allocate_device(c, req, pd, idx, must=True)
        if chosen is None:
            return FAIL
        out = self.allocate_one(c, r, s, k + 1, in_sub)
        if out != OK:
            self.undo(c, chosen)
        return out

    def _alternatives(self, c: int, r: int, n: int) -> str:
        all_max = True
        for s in range(n):
            out = self.allocate_one(c, r, s, 0, True)
            if out == MAX:
                continue
            all_max = False
            if out == OK:
                self.selected[(c, r)] = s
                return OK
        return MAX if all_max else FAIL

    # ------------------------------------------------------------ devices
    def device_ok(self, c: int, req: RequestSpec, pd: PoolDevice) -> bool:
        """DC-1..DC-7, in Kubernetes' order (in-use before CEL)."""
        if not self._free(c, req, pd, self.index[id(pd)], admin_multi=False):
            return False
        if not self.p.selectable(pd, req):
            return False
        return not self.multi_ok or self.capacity.fits(req, pd)

    def _free(self, c: int, req: RequestSpec, pd: PoolDevice, idx: int, admin_multi: bool = True) -> bool:
        """DC-1/DC-2 and DC-9: not taken by this claim (admin access; DC-9
        lets a shared device through), else not in use at all."""
        if req.admin:
            if admin_multi and self.multi_ok and pd.device.allow_multiple_allocations:
                return True
            return not self.in_use[idx] >> c & 1
        return not self.in_use[idx]

    def allocate_device(self, c: int, req: RequestSpec, pd: PoolDevice, idx: int, must: bool) -> Chosen | None:
        """DC-10..DC-18 (the caller has made the DC-9 check); the device's
        result, or None when refused. Compatibility groups (1.37 alpha) are
        checked before the counters, so refusing for them leaks nothing; every
        later refusal takes the device's groups back."""
        dev = pd.device
        multi = self.multi_ok and bool(dev.allow_multiple_allocations)
        counted = False
        joined = None
        if self.counted_devices and dev.consumes_counters:
            if not self.features.partitionable_devices:
                return None
            if self.compat_on:
                joined = self.compat.try_add(pd)
                if joined is None:
                    return None
            counted = not (multi and self.capacity.skips_counters(pd.id))
            if counted and not self.counters.try_add(pd):
                return self._refused(joined)
        if dev.taints and self.features.device_taints and untolerated_taint(dev.taints, req.tolerations) is not None:
            self._leak(counted, "taint", pd)
            return self._refused(joined)
        if self.constraints[c] and not self._constraints_add(c, req, pd, must, counted):
            return self._refused(joined)
        if not multi:
            self.in_use[idx] |= 1 << c
        chosen = Chosen(req, pd, idx, None, None, counted, multi, len(self.results[c]), joined)
        if self.multi_ok:
            if not self.capacity.fits(req, pd):
                self._leak(counted, "capacity", pd)
                self.event("all-mode-capacity-leak")
                for con in self.constraints[c]:  # Kubernetes keeps their updates; the rule holds nothing
                    if con.applies(req.base, req.sub):
                        con.drop_holding(pd)
                return self._refused(joined)
            if multi:
                self.capacity.take(chosen)
        self.results[c].append(chosen)
        return chosen

    def _refused(self, joined: Undo | None) -> Chosen | None:
        """A refusal after the device joined its counter sets' groups."""
        if joined is not None:
            self.compat.undo(joined)
        return None

    def _constraints_add(self, c: int, req: RequestSpec, pd: PoolDevice, must: bool, counted: bool) -> bool:
        cons = self.constraints[c]
        for i, con in enumerate(cons):
            if con.add(req, pd):
                continue
            if must:
                raise AllocationError(f"claim {req.claim_key}, request {req.sub or req.base}: cannot add device "
                                      f"{pd.label} because a claim constraint would not be satisfied")
            for prev in cons[:i]:
                prev.remove(req, pd)
            self._leak(counted, "constraint", pd)
            return False
        return True

    def _leak(self, counted: bool, why: str, pd: PoolDevice) -> None:
        """A refusal after the counter check: the counters stay consumed (T-11)."""
        if not counted:
            return
        self.event(f"counter-leak-after-{why}")
        dst = self.leaked.setdefault(pd.pool.id, {})
        for cs, counters in pd.consumption().items():
            d = dst.setdefault(cs, {})
            for name, v in counters.items():
                d[name] = d.get(name, Fraction(0)) + v

    def undo(self, c: int, chosen: Chosen) -> None:
        """DC-19."""
        pd, req = chosen.pd, chosen.req
        for con in self.constraints[c]:
            con.remove(req, pd)
        self.in_use[chosen.idx] &= ~(1 << c)
        if chosen.joined is not None:
            self.compat.undo(chosen.joined)
        if chosen.multi:
            for event in self.capacity.give_back(chosen):
                self.event(event)
        elif chosen.counted:
            self.counters.release(pd)
        del self.results[c][chosen.n_before:]

    def defect_flags(self) -> set[str]:
        """Quirk events seen during the search (a defect may have fired)."""
        out = set(self.first_seen)
        for cons in self.constraints:
            for con in cons:
                if isinstance(con, DistinctAttribute) and con.forgot:
                    out.add("distinct-attribute-forgets")
                if isinstance(con, MatchAttribute) and con.narrowed_stale:
                    out.add("match-attribute-stale-intersection")
        if self.capacity.grew():
            out.add("quantity-dec-aliasing")
        return out
