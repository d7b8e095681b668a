"""The Kubernetes allocator's depth-first search, replayed step by step
(spec §4 and §9). This is the reference every other mode is checked against:
same orders, same quirks, same step count (``allocateOne`` invocations)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from dralloc.errors import AllocationError
from dralloc.features import Variant
from dralloc.inventory.capacity import (
    RequestCell,
    UnknownCapacity,
    consumed_from_request,
    consumed_from_request_live,
    request_cells,
    request_over_capacity_live,
    request_over_capacity_ok,
)
from dralloc.inventory.pools import DeviceID, PoolDevice
from dralloc.inventory.problem import Problem
from dralloc.inventory.requests import MAX_RESULTS, RequestSpec
from dralloc.inventory.taints import untolerated_taint
from dralloc.quantity import Quantity
from dralloc.solver.constraints import (
    Constraint,
    DistinctAttribute,
    MatchAttribute,
    build_constraints,
)
from dralloc.solver.ledger import CounterLedger, in_use

OK, FAIL, MAX = "ok", "fail", "max"
Undo = Callable[[], None]


class StepLimitReached(Exception):
    """The replay ran out of its step budget (used to hand over to CP-SAT)."""


@dataclass(eq=False)
class Chosen:
    """One device result of the search."""

    req: RequestSpec
    pd: PoolDevice
    multi: bool = False  # a share of a device that allows multiple allocations (gets a share ID)
    consumed: dict[str, Quantity] | None = None
    shared: dict[str, RequestCell] | None = None  # consumed entries that are the request itself (inf.Dec)
    counted: bool = False  # its counters were added to the ledger


class ReplaySearch:
    def __init__(self, problem: Problem, step_limit: int | None = None,
                 time_limit: float | None = None) -> None:
        self.p = problem
        # Kubernetes' only effort limit is the scheduler's context: a deadline
        # checked on every allocateOne entry (checked here every 1,024 steps).
        self.deadline = None if time_limit is None else time.monotonic() + time_limit
        self.variant = problem.variant
        self.features = problem.features
        self.multi_ok = self.features.consumable_capacity and self.variant is not Variant.STABLE
        self.step_limit = step_limit
        self.steps = 0
        self.results: list[list[Chosen]] = [[] for _ in problem.plans]
        self.allocating: dict[DeviceID, set[int]] = {}
        self.allocating_capacity: dict[DeviceID, dict[str, Fraction]] = {}
        self.cells: dict[tuple[int, int, int], dict[str, RequestCell] | None] = {}
        self.counters = CounterLedger(problem.state)
        self.committed = problem.state.devices  # DC-2's committed half, read on every candidate
        set_mode = self.variant is Variant.EXPERIMENTAL and self.features.list_type_attributes
        self.constraints: list[list[Constraint]] = [build_constraints(pl.constraints, set_mode) for pl in problem.plans]
        self.selected: dict[tuple[int, int], int] = {}
        self.candidates = [pd for pool in problem.pools if pool.usable for pd in pool.devices]
        self.events: set[str] = set()

    # ------------------------------------------------------------ search
    def run(self) -> bool:
        # The search recurses once per device slot, request and claim: give
        # Python room for many claims allocated together.
        depth = 4 * (sum(len(pl.slots) + MAX_RESULTS for pl in self.p.plans) + 16)
        if sys.getrecursionlimit() < depth:
            sys.setrecursionlimit(depth)
        out = self.allocate_one(0, 0, 0, 0, False, 0)
        self._settle_shared()
        if out == MAX:
            raise AllocationError("allocation max size exceeded")
        return out == OK

    def allocate_one(self, c: int, r: int, s: int, k: int, in_sub: bool, start: int) -> str:
        self.steps += 1
        if self.step_limit is not None and self.steps > self.step_limit:
            raise StepLimitReached(self.steps)
        if self.deadline is not None and not self.steps & 1023 and time.monotonic() > self.deadline:
            raise AllocationError("filter operation aborted: context deadline exceeded")
        plans = self.p.plans
        if c == len(plans):
            return OK
        if r == len(plans[c].slots):
            out = self.allocate_one(c + 1, 0, 0, 0, False, 0)
            return FAIL if out == MAX else out
        slot = plans[c].slots[r]
        if slot.subs and not in_sub:
            return self._alternatives(c, r, len(slot.subs))
        req = slot.subs[s] if slot.subs else slot.plain
        assert req is not None
        if req.is_all and not req.all_devices:
            return FAIL
        if k >= req.num_devices:
            return self.allocate_one(c, r + 1, 0, 0, False, 0)
        if len(self.results[c]) + req.num_devices - k > MAX_RESULTS:
            return MAX
        if req.is_all:
            assert req.all_devices is not None
            undo = self.allocate_device(c, req, req.all_devices[k], must=True)
            if undo is None:
                return FAIL
            out = self.allocate_one(c, r, s, k + 1, in_sub, 0)
            if out != OK:
                undo()
            return out
        return self._exact(c, r, s, k, in_sub, req, start)

    def _alternatives(self, c: int, r: int, n: int) -> str:
        all_max = True
        for s in range(n):
            out = self.allocate_one(c, r, s, 0, True, 0)
            if out == MAX:
                continue
            all_max = False
            if out == OK:
                self.selected[(c, r)] = s
                return OK
        return MAX if all_max else FAIL

    def _exact(self, c: int, r: int, s: int, k: int, in_sub: bool, req: RequestSpec, start: int) -> str:
        first = 0 if self.variant is Variant.STABLE else start
        cands, committed, allocating = self.candidates, self.committed, self.allocating
        admin = req.admin
        for idx in range(first, len(cands)):
            pd = cands[idx]
            pid = pd.id
            # DC-1/DC-2 inline (the hot path of a deep search), then the rest.
            if admin:
                if c in allocating.get(pid, ()):
                    continue
            elif pid in committed or allocating.get(pid):
                continue
            if not self._selectable_ok(req, pd):
                continue
            undo = self.allocate_device(c, req, pd, must=False)
            if undo is None:
                continue
            out = self.allocate_one(c, r, s, k + 1, in_sub, idx + 1)
            if out == OK:
                return OK
            undo()
            if out == MAX:
                return MAX
        return FAIL

    # ------------------------------------------------------------ devices
    def _cells(self, req: RequestSpec) -> dict[str, RequestCell] | None:
        """The claim request's capacity requests as Go holds them (None when
        none is an inf.Dec, so nothing can alias)."""
        if req.key not in self.cells:
            self.cells[req.key] = request_cells(req.capacity)
        return self.cells[req.key]

    def _capacity_ok(self, req: RequestSpec, pd: PoolDevice) -> bool:
        cells = self._cells(req) if req.capacity else None
        try:
            if cells is not None:
                return request_over_capacity_live(cells, pd.device.capacity,
                                                  self.p.state.aggregated.get(pd.id),
                                                  self.allocating_capacity.get(pd.id))
            return request_over_capacity_ok(req.capacity, pd.device.capacity,
                                            self.p.state.aggregated.get(pd.id),
                                            self.allocating_capacity.get(pd.id))
        except UnknownCapacity:
            return False

    def _settle_shared(self) -> None:
        """Results that share a request record its final value (Go deep-copies
        consumedCapacity only when it builds the AllocationResult)."""
        for res in self.results:
            for ch in res:
                if ch.shared and ch.consumed is not None:
                    ch.consumed = {**ch.consumed, **{k: cell.quantity() for k, cell in ch.shared.items()}}

    def device_ok(self, c: int, req: RequestSpec, pd: PoolDevice) -> bool:
        """DC-1..DC-7, in Kubernetes' order (in-use before CEL)."""
        pid = pd.id
        if req.admin:
            if c in self.allocating.get(pid, ()):
                return False
        elif pid in self.committed or self.allocating.get(pid):
            return False
        return self._selectable_ok(req, pd)

    def _selectable_ok(self, req: RequestSpec, pd: PoolDevice) -> bool:
        """DC-3..DC-7: selectors and node (cached), then shared capacity."""
        if not self.p.selectable(pd, req):
            return False
        if self.multi_ok and not self._capacity_ok(req, pd):
            return False
        return True

    def allocate_device(self, c: int, req: RequestSpec, pd: PoolDevice, must: bool) -> Undo | None:
        """DC-8..DC-18; returns the undo closure, or None when refused."""
        dev = pd.device
        multi = self.multi_ok and bool(dev.allow_multiple_allocations)
        if not multi and req.admin and c in self.allocating.get(pd.id, ()):
            return None
        if not req.admin and in_use(pd.id, self.p.state, self.allocating):
            return None
        if not self.features.partitionable_devices and dev.consumes_counters:
            return None
        skip_counters = multi and (pd.id in self.p.state.aggregated or pd.id in self.allocating_capacity)
        counted = False
        if not skip_counters and dev.consumes_counters:
            if not self.counters.try_add(pd):
                return None
            counted = True
        if self.features.device_taints and untolerated_taint(dev.taints, req.tolerations) is not None:
            self._leak(counted, "taint")
            return None
        cons = self.constraints[c]
        for i, con in enumerate(cons):
            if con.add(req.base, req.sub, pd):
                continue
            if must:
                raise AllocationError(f"claim {req.claim_key}, request {req.sub or req.base}: cannot add device "
                                      f"{pd.label} because a claim constraint would not be satisfied")
            for prev in cons[:i]:
                prev.remove(req.base, req.sub, pd)
            self._leak(counted, "constraint")
            return None
        self.allocating.setdefault(pd.id, set())
        if not multi:
            self.allocating[pd.id].add(c)
        chosen = Chosen(req, pd, counted=counted)
        if self.multi_ok:
            if not self._capacity_ok(req, pd):
                self._leak(counted, "capacity")
                self.events.add("all-mode-capacity-leak")
                return None
            if multi:
                cells = self._cells(req) if req.capacity else None
                if cells is not None:
                    chosen.consumed, chosen.shared = consumed_from_request_live(cells, dev.capacity)
                else:
                    chosen.consumed = consumed_from_request(req.capacity, dev.capacity)
                chosen.multi = True
                tent = self.allocating_capacity.setdefault(pd.id, {})
                for k, q in chosen.consumed.items():
                    tent[k] = tent.get(k, Fraction(0)) + q.value
        self.results[c].append(chosen)
        n_before = len(self.results[c]) - 1
        return lambda: self._undo(c, chosen, multi, n_before)

    def _leak(self, counted: bool, why: str) -> None:
        if counted:
            self.events.add(f"counter-leak-after-{why}")

    def _undo(self, c: int, chosen: Chosen, multi: bool, n_before: int) -> None:
        pd, req = chosen.pd, chosen.req
        for con in self.constraints[c]:
            con.remove(req.base, req.sub, pd)
        held = self.allocating.get(pd.id)
        if held is not None:
            held.discard(c)
        if multi:
            if chosen.consumed:
                tent = self.allocating_capacity.get(pd.id, {})
                shared = chosen.shared or {}
                for k, q in chosen.consumed.items():
                    # Go subtracts what the result holds now: a shared request may have grown
                    now = shared[k].value if k in shared else q.value
                    tent[k] = tent.get(k, Fraction(0)) - now
                if all(v == 0 for v in tent.values()):
                    self.allocating_capacity.pop(pd.id, None)
            if chosen.counted:  # the first share's counters are not returned (T-12)
                self.events.add("shared-device-counter-leak")
        elif self.features.partitionable_devices and pd.device.consumes_counters:
            self.counters.release(pd)
        del self.results[c][n_before:]

    def defect_flags(self) -> set[str]:
        """Quirk events seen during the search (a defect may have fired)."""
        out = set(self.events)
        for cons in self.constraints:
            for con in cons:
                if isinstance(con, DistinctAttribute) and con.forgot:
                    out.add("distinct-attribute-forgets")
                if isinstance(con, MatchAttribute) and con.narrowed_stale:
                    out.add("match-attribute-stale-intersection")
        if any(cell.grew for cells in self.cells.values() if cells for cell in cells.values()):
            out.add("quantity-dec-aliasing")
        return out
