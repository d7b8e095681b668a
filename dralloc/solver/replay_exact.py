"""The replay's hot loop: every device of one ExactCount request, as one loop
over a stack instead of one ``allocateOne`` recursion per device (spec §4,
DC-1..DC-19), visiting the same devices in the same order with the same step
count as Kubernetes.

Kubernetes searches device k of a request from the position after device k-1
(incubating and experimental: combinations) or from the first position
(stable: permutations), skipping devices in use. Here the positions that can
be taken now are bits of one integer (free when the loop started, not refused
for good, not held by this loop), so a skipped device costs nothing; a
device is looked at (its in-use bits at the start, its selectors the first
time the search gets that far) exactly when Kubernetes' scan reaches it."""

from __future__ import annotations

from typing import Protocol

from dralloc.errors import AllocationError
from dralloc.features import Features, Variant
from dralloc.inventory.pools import PoolDevice
from dralloc.inventory.problem import Problem
from dralloc.inventory.requests import RequestSpec
from dralloc.inventory.taints import untolerated_taint
from dralloc.solver.constraints import Constraint
from dralloc.solver.ledger import CounterLedger, Row, Use
from dralloc.solver.replay_devices import CapacityBook, Chosen

OK, FAIL, MAX = "ok", "fail", "max"
PLAIN, MATCH, COUNT, SKIP, FULL = 0, 1, 2, 3, 4
# a device's counters, compiled once: its row, its use, and for a device
# consuming one counter (consumed list, slot, amount, available value)
CountUse = tuple[Row, Use, tuple[list[int], int, int, int] | None]


class CandidateList:
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

    def __init__(self, cons: list[Constraint]) -> None:
        self.pos: list[int] = []          # indices into ReplaySearch.candidates, increasing
        self.kinds: list[int] = []        # per position: PLAIN, MATCH, COUNT, SKIP or FULL
        self.errors: set[int] = set()     # of those, devices whose selectors fail
        self.scanned = 0                  # every index below this has been looked at
        # per position: the result of a PLAIN, MATCH or COUNT taking, made once
        # (its n_before is not used: untake() takes it back, not undo())
        self.chosen: list[Chosen | None] = []
        self.cons = cons                  # the claim's constraints that apply to this request


class Search(Protocol):
    """What the loop uses of :class:`~dralloc.solver.replay.ReplaySearch`
    (a protocol: that module imports this one)."""

    p: Problem
    variant: Variant
    features: Features
    multi_ok: bool
    counted_devices: bool
    compat_on: bool
    candidates: list[PoolDevice]
    in_use: list[int]
    results: list[list[Chosen]]
    compiled: list[CountUse | None]
    counters: CounterLedger
    capacity: CapacityBook
    steps: int
    _next_check: int

    def _checkpoint(self) -> None: ...
    def allocate_one(self, c: int, r: int, s: int, k: int, in_sub: bool) -> str: ...
    def allocate_device(self, c: int, req: RequestSpec, pd: PoolDevice, idx: int, must: bool) -> Chosen | None: ...
    def undo(self, c: int, chosen: Chosen) -> None: ...


def exact(s: Search, c: int, r: int, req: RequestSpec, lst: CandidateList) -> str:
    """allocateOne for every device of an ExactCount request of claim ``c``.

    The allocateOne step after taking a device is counted here (what
    allocateOne checks first cannot differ: same claim, same request, and
    the results limit holds when it held for the device before); after the
    last device the search moves on to the next request."""
    pos, kinds, chosen_at = lst.pos, lst.kinds, lst.chosen
    in_use, results, cands = s.in_use, s.results[c], s.candidates
    compiled, try_use = s.compiled, s.counters.try_use
    bit = 1 << c
    busy = bit if req.admin else -1   # in-use bits that exclude a device: this claim's (admin access), any
    last = req.num_devices - 1
    stable = s.variant is Variant.STABLE
    taken: list[tuple[int, int, int, int, Chosen]] = []  # per device held: (position, index, in use before, kind, result)
    avail = 0   # bit j: position j (< known) is free for this request now, and not SKIP
    known = 0   # positions looked at in this call (their in-use bits when it started)
    j = 0       # the scan's position (<= known)
    while True:
        m = avail >> j
        if not m:
            # nothing to take from j among the known positions: look at the
            # next ones (growing the list if needed), else give back the last device
            n = len(pos)
            if known < n:
                for known in range(known, n):  # noqa: B020 - the scan goes on from where it stopped
                    if not in_use[pos[known]] & busy and kinds[known] != SKIP:
                        avail |= 1 << known
                        break
                known += 1
                continue
            if lst.scanned < len(cands) and extend(s, lst, req):
                continue
            if not taken:
                return FAIL
            j, idx, held, kind, chosen = taken.pop()
            if kind == PLAIN:
                in_use[idx] = held
                del results[-1]
            else:
                untake(s, c, lst, idx, held, kind, chosen)
            avail |= 1 << j
            j += 1
            continue
        j += (m & -m).bit_length() - 1
        idx = pos[j]
        kind = kinds[j]
        held = in_use[idx]
        if kind != PLAIN:
            if kind == COUNT:
                cu = compiled[idx]
                if cu is None:
                    cu = compiled[idx] = compile_counters(s, idx)
                one = cu[2]
                if one is not None:   # one counter, compared with its available value
                    consumed, i, amount, most = one
                    now = consumed[i] + amount
                    if now > most:
                        j += 1
                        continue
                    consumed[i] = now
                elif not try_use(cu[0], cu[1]):
                    j += 1
                    continue
            elif kind == MATCH:
                if not match(lst.cons, req, cands[idx]):
                    j += 1
                    continue
            else:
                got = full(s, c, req, lst, idx)
                if got is None:
                    j += 1
                    continue
                if in_use[idx] & busy:
                    avail ^= 1 << j
                chosen = got
        if kind != FULL:
            in_use[idx] = held | bit
            avail ^= 1 << j
            got = chosen_at[j]
            if got is None:
                got = chosen_at[j] = Chosen(req, cands[idx], idx, counted=kind == COUNT)
            chosen = got
            results.append(chosen)
        s.steps += 1
        if s.steps >= s._next_check:
            s._checkpoint()
        if len(taken) < last:
            taken.append((j, idx, held, kind, chosen))
            j = 0 if stable else j + 1
            continue
        # allocateOne past the request's last device: on to the next request
        out = s.allocate_one(c, r + 1, 0, 0, False)
        if out == OK:
            return OK
        untake(s, c, lst, idx, held, kind, chosen)
        if out == MAX:
            while taken:
                _, idx, held, kind, chosen = taken.pop()
                untake(s, c, lst, idx, held, kind, chosen)
            return MAX
        avail |= 1 << j
        j += 1


def untake(s: Search, c: int, lst: CandidateList, idx: int, held: int, kind: int, chosen: Chosen) -> None:
    """DC-19 for a device taken by :func:`exact` (``held``: its in-use bits before)."""
    if kind == FULL:
        s.undo(c, chosen)
        return
    if kind == MATCH:
        req, pd = chosen.req, chosen.pd
        for con in lst.cons:
            con.release(req, pd)
    elif kind == COUNT:
        cu = s.compiled[idx]
        assert cu is not None
        CounterLedger.release_use(cu[0], cu[1])
    s.in_use[idx] = held
    del s.results[c][-1]


def compile_counters(s: Search, idx: int) -> CountUse:
    """The device's counter row and consumption (:meth:`CounterLedger.compiled`),
    and when it consumes one counter of a row compared counter by counter:
    ``(the row's consumed list, slot, amount, available)``."""
    row, use = s.counters.compiled(s.candidates[idx])
    one = None
    if len(use) == 1 and not row.check_all:
        most = row.available[use[0][0]]
        if most is not None:
            one = (row.consumed, use[0][0], use[0][1], most)
    return row, use, one


def match(cons: list[Constraint], req: RequestSpec, pd: PoolDevice) -> bool:
    """DC-15 for a device with nothing else to check: the constraints that
    apply to the request, in order; a refusal takes back the ones that took
    the device (nothing was counted: nothing leaks)."""
    for i, con in enumerate(cons):
        if not con.admit(req, pd):
            for prev in cons[:i]:
                prev.release(req, pd)
            return False
    return True


def full(s: Search, c: int, req: RequestSpec, lst: CandidateList, idx: int) -> Chosen | None:
    """DC-3..DC-18 for a free device whose taking is not PLAIN."""
    pd = s.candidates[idx]
    if lst.errors and idx in lst.errors:
        s.p.selectable(pd, req)  # raises the selector's error, as Kubernetes does here
    if s.multi_ok and not s.capacity.fits(req, pd):
        return None
    return s.allocate_device(c, req, pd, idx, must=False)


def extend(s: Search, lst: CandidateList, req: RequestSpec) -> bool:
    """Look at the next devices until one is selectable for ``req``."""
    cands = s.candidates
    while lst.scanned < len(cands):
        idx = lst.scanned
        lst.scanned += 1
        try:
            if not s.p.selectable(cands[idx], req):
                continue
        except AllocationError:
            lst.errors.add(idx)
        lst.pos.append(idx)
        lst.kinds.append(FULL if idx in lst.errors else kind_of(s, lst, req, cands[idx]))
        lst.chosen.append(None)
        return True
    return False


def kind_of(s: Search, lst: CandidateList, req: RequestSpec, pd: PoolDevice) -> int:
    """What taking ``pd`` for ``req`` involves (:class:`CandidateList`), from
    what stays fixed during the search."""
    dev = pd.device
    if s.multi_ok:
        if dev.allow_multiple_allocations or s.capacity.may_grow(req):
            return FULL   # tentative shares and growing requests change the verdict
        if not s.capacity.fits(req, pd):
            return SKIP   # DC-7
    tainted = bool(dev.taints) and s.features.device_taints and untolerated_taint(
        dev.taints, req.tolerations) is not None
    if s.counted_devices and dev.consumes_counters:
        if not s.features.partitionable_devices:
            return SKIP
        if tainted or lst.cons or s.compat_on:  # a later refusal leaks the counters (T-11); groups
            return FULL
        return COUNT
    if tainted:
        return SKIP
    return MATCH if lst.cons else PLAIN
