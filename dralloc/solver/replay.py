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
from dralloc.solver.constraints import (
    Constraint,
    DistinctAttribute,
    MatchAttribute,
    build_constraints,
)
from dralloc.solver.ledger import CounterLedger, Use, Row
from dralloc.solver.replay_devices import CapacityBook, Chosen

OK, FAIL, MAX = "ok", "fail", "max"
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


class _Candidates:
    """The devices one request can select, in search order, found lazily: a
    device is looked at (selectors, node) the first time the search gets that
    far, as in Kubernetes. A selector error is kept and raised when the search
    reaches that device while it is free, where Kubernetes raises it.

    Beside each position, what taking the device involves for this request
    (``kinds``), decided once from what cannot change during the search:
    ``PLAIN`` -- only marking it in use (no counters, no taint, no
    constraint of this request, not shared, capacity verdict fixed and true),
    ``MATCH`` -- the same plus the constraints that apply to the request
    (``cons``), ``COUNT`` -- the same as ``PLAIN`` plus the device's counters,
    ``SKIP`` -- refused without any side effect (taint or fixed capacity
    verdict), ``FULL`` -- the general checks, in Kubernetes' order."""

    __slots__ = ("pos", "kinds", "errors", "scanned", "chosen", "cons")

    def __init__(self) -> None:
        self.pos: list[int] = []          # indices into ReplaySearch.candidates, increasing
        self.kinds: list[int] = []        # per position: PLAIN, SKIP or FULL
        self.errors: set[int] = set()     # of those, devices whose selectors fail
        self.scanned = 0                  # every index below this has been looked at
        self.chosen: dict[int, Chosen] = {}  # PLAIN and MATCH results, by (results before) * 2**20 + position
        self.cons: list[Constraint] = []     # the claim's constraints that apply to this request


PLAIN, MATCH, COUNT, SKIP, FULL = 0, 1, 2, 3, 4
_POS_BITS = 20


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
        self.first_seen: dict[str, int] = {}      # event -> step it first fired at
        set_mode = self.variant is Variant.EXPERIMENTAL and self.features.list_type_attributes
        self.constraints: list[list[Constraint]] = [build_constraints(pl.constraints, set_mode, self.event)
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
        self.compiled: list[tuple[Row, Use] | None] = [None] * len(self.candidates)
        self._lists: dict[tuple[int, int, int], _Candidates] = {}
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
                lst = self._lists[req.key] = _Candidates()
                lst.cons = [con for con in self.constraints[c] if con.applies(req.base, req.sub)]
            return self._exact(c, r, s, in_sub, req, lst)
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

    def _exact(self, c: int, r: int, s: int, in_sub: bool, req: RequestSpec, lst: _Candidates) -> str:
        """allocateOne for every device of an ExactCount request, as one loop.

        Kubernetes recurses once per device: device k is searched from the
        position after device k-1 (incubating and experimental search
        combinations) or from the first (stable: permutations). Here the
        devices taken so far are a stack; the allocateOne step after taking
        a device is counted here (what allocateOne checks first cannot
        differ: same claim, same request, and the results limit holds when
        it held for the device before), and after the last device it moves
        on to the next request."""
        pos, kinds = lst.pos, lst.kinds
        in_use, results, cache = self.in_use, self.results[c], lst.chosen
        cands, compiled, try_use = self.candidates, self.compiled, self.counters.try_use
        bit = 1 << c
        busy = bit if req.admin else -1   # in-use bits that exclude a device: this claim's (admin access), any
        last = req.num_devices - 1
        stable = self.variant is Variant.STABLE
        taken: list[tuple[int, int, int, Chosen]] = []  # per device held: (next position, index, in use before, result)
        j = 0
        while True:
            n = len(pos)
            for j in range(j, n):
                # DC-1/DC-2 (the hot path of a deep search), then DC-3..DC-18.
                idx = pos[j]
                held = in_use[idx]
                if held & busy:
                    continue
                kind = kinds[j]
                if kind <= COUNT:
                    if kind == MATCH:
                        if not self._match(lst.cons, req, cands[idx]):
                            continue
                    elif kind == COUNT:
                        cu = compiled[idx]
                        if cu is None:
                            cu = compiled[idx] = self.counters.compiled(cands[idx])
                        if not try_use(*cu):
                            continue
                    in_use[idx] = held | bit
                    n_before = len(results)
                    ck = (n_before << _POS_BITS) | j
                    chosen = cache.get(ck)
                    if chosen is None:
                        chosen = cache[ck] = Chosen(req, cands[idx], idx, counted=kind == COUNT, n_before=n_before)
                    results.append(chosen)
                elif kind == SKIP:
                    continue
                else:
                    got = self._full(c, req, lst, idx)
                    if got is None:
                        continue
                    chosen, held = got, -1
                break
            else:
                # no device from here on: deeper devices of this request may
                # have grown the list meanwhile, or the next one is looked at
                if n < len(pos) or (lst.scanned < len(cands) and self._extend(lst, req)):
                    j = n
                    continue
                if not taken:
                    return FAIL
                j, idx, held, chosen = taken.pop()
                self._untake(c, lst, idx, held, chosen)
                continue
            j += 1
            self.steps += 1
            if self.steps >= self._next_check:
                self._checkpoint()
            if len(taken) < last:
                taken.append((j, idx, held, chosen))
                if stable:
                    j = 0
                continue
            # allocateOne past the request's last device: on to the next request
            out = self.allocate_one(c, r + 1, 0, 0, False)
            if out == OK:
                return OK
            self._untake(c, lst, idx, held, chosen)
            if out == MAX:
                while taken:
                    _, idx, held, chosen = taken.pop()
                    self._untake(c, lst, idx, held, chosen)
                return MAX

    def _untake(self, c: int, lst: _Candidates, idx: int, held: int, chosen: Chosen) -> None:
        """DC-19 for a device taken by :meth:`_exact` (``held``: the in-use
        bits before, or -1 when the general checks took it)."""
        if held < 0:
            self.undo(c, chosen)
            return
        if lst.cons:
            req, pd = chosen.req, chosen.pd
            for con in lst.cons:
                con.remove(req.base, req.sub, pd)
        elif chosen.counted:
            cu = self.compiled[idx]
            assert cu is not None
            CounterLedger.release_use(*cu)
        self.in_use[idx] = held
        del self.results[c][-1]

    def _match(self, cons: list[Constraint], req: RequestSpec, pd: PoolDevice) -> bool:
        """DC-15 for a device with nothing else to check: the constraints
        that apply to the request, in order; a refusal takes back the ones
        that took the device (nothing was counted: nothing leaks)."""
        for i, con in enumerate(cons):
            if not con.add(req.base, req.sub, pd):
                for prev in cons[:i]:
                    prev.remove(req.base, req.sub, pd)
                return False
        return True

    def _full(self, c: int, req: RequestSpec, lst: _Candidates, idx: int) -> Chosen | None:
        """DC-3..DC-18 for a free device whose taking is not PLAIN."""
        pd = self.candidates[idx]
        if lst.errors and idx in lst.errors:
            self.p.selectable(pd, req)  # raises the selector's error, as Kubernetes does here
        if self.multi_ok and not self.capacity.fits(req, pd):
            return None
        return self.allocate_device(c, req, pd, idx, must=False)

    def _extend(self, lst: _Candidates, req: RequestSpec) -> bool:
        """Look at the next devices until one is selectable for ``req``."""
        cands = self.candidates
        while lst.scanned < len(cands):
            idx = lst.scanned
            lst.scanned += 1
            try:
                if not self.p.selectable(cands[idx], req):
                    continue
            except AllocationError:
                lst.errors.add(idx)
            lst.pos.append(idx)
            lst.kinds.append(FULL if idx in lst.errors else self._kind(lst, req, cands[idx]))
            return True
        return False

    def _kind(self, lst: _Candidates, req: RequestSpec, pd: PoolDevice) -> int:
        """What taking ``pd`` for ``req`` involves (:class:`_Candidates`),
        from what stays fixed during the search."""
        dev = pd.device
        if self.multi_ok:
            if dev.allow_multiple_allocations or self.capacity.may_grow(req):
                return FULL   # tentative shares and growing requests change the verdict
            if not self.capacity.fits(req, pd):
                return SKIP   # DC-7
        tainted = bool(dev.taints) and self.features.device_taints and untolerated_taint(
            dev.taints, req.tolerations) is not None
        if self.counted_devices and dev.consumes_counters:
            if not self.features.partitionable_devices:
                return SKIP
            return FULL if tainted or lst.cons else COUNT  # a later refusal leaks the counters (T-11)
        if tainted:
            return SKIP
        return MATCH if lst.cons else PLAIN

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
        result, or None when refused."""
        dev = pd.device
        multi = self.multi_ok and bool(dev.allow_multiple_allocations)
        counted = False
        if self.counted_devices and dev.consumes_counters:
            if not self.features.partitionable_devices:
                return None
            counted = not (multi and self.capacity.skips_counters(pd.id))
            if counted and not self.counters.try_add(pd):
                return None
        if dev.taints and self.features.device_taints and untolerated_taint(dev.taints, req.tolerations) is not None:
            self._leak(counted, "taint", pd)
            return None
        if self.constraints[c] and not self._constraints_add(c, req, pd, must, counted):
            return None
        if not multi:
            self.in_use[idx] |= 1 << c
        chosen = Chosen(req, pd, idx, None, None, counted, multi, len(self.results[c]))
        if self.multi_ok:
            if not self.capacity.fits(req, pd):
                self._leak(counted, "capacity", pd)
                self.event("all-mode-capacity-leak")
                for con in self.constraints[c]:  # Kubernetes keeps their updates; the rule holds nothing
                    if con.applies(req.base, req.sub):
                        con.drop_holding(pd)
                return None
            if multi:
                self.capacity.take(chosen)
        self.results[c].append(chosen)
        return chosen

    def _constraints_add(self, c: int, req: RequestSpec, pd: PoolDevice, must: bool, counted: bool) -> bool:
        cons = self.constraints[c]
        for i, con in enumerate(cons):
            if con.add(req.base, req.sub, pd):
                continue
            if must:
                raise AllocationError(f"claim {req.claim_key}, request {req.sub or req.base}: cannot add device "
                                      f"{pd.label} because a claim constraint would not be satisfied")
            for prev in cons[:i]:
                prev.remove(req.base, req.sub, pd)
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
            con.remove(req.base, req.sub, pd)
        self.in_use[chosen.idx] &= ~(1 << c)
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
