"""Tentative counter bookkeeping during one allocation call (CN-1..CN-5),
keyed by pool name as Kubernetes keys it, in exact integers.

Each pool name gets one row of counters ``(counter set, counter)``; every
quantity that can meet a counter of that name (the counter-set values, what
committed devices consume, what each device consumes) is scaled by the least
common multiple of their denominators, so the search adds and compares plain
integers. Each device's consumption is compiled once into ``(slot, amount)``
pairs.

Only the counters a device touches are compared after adding it. That is
Kubernetes' check of *every* counter of the pool, because the untouched ones
already hold: every addition is checked and undone on failure, and releases
only lower the sums. Two cases break that argument, and for them every counter
is compared as Kubernetes does: an available value below zero (T-14: it blocks
every counter-consuming device of the pool) and a negative consumption."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import lcm

from dralloc.inventory.pools import CounterMap, DeviceID, Pool, PoolDevice
from dralloc.inventory.state import AllocatedState

Use = tuple[tuple[int, int], ...]  # (slot, scaled amount) per counter a device consumes


@dataclass
class Row:
    """The counters of one pool name."""

    slots: dict[tuple[str, str], int]        # (counter set, counter) -> slot
    scale: list[int]                         # slot -> denominator multiplier
    available: list[int | None] = field(default_factory=list)  # None: not a counter of the cached pool
    consumed: list[int] = field(default_factory=list)
    check_all: bool = False                  # compare every counter (T-14, negative consumption)


def _device_uses(pool: Pool) -> tuple[dict[tuple[str, str], int], bool]:
    """The counters the pool's devices consume, each with the least common
    multiple of the amounts' denominators, and whether an amount is negative
    (kept on the pool: pools kept across calls compute it once)."""
    got = pool.memo.get("ledger-uses")
    if got is None:
        dens: dict[tuple[str, str], int] = {}
        negative = False
        for pd in pool.devices:
            for cs, counters in pd.consumption().items():
                for name, v in counters.items():
                    dens[(cs, name)] = lcm(dens.get((cs, name), 1), v.denominator)
                    negative = negative or v.numerator < 0
        got = pool.memo["ledger-uses"] = (dens, negative)
    return got  # type: ignore[no-any-return]


class CounterLedger:
    """CN-1..CN-5: available counters are computed once per pool *name* from
    the first pool of that name whose device is checked, minus what committed
    devices consume; tentative consumption is added and checked."""

    def __init__(self, state: AllocatedState, pools: list[Pool]) -> None:
        self.state = state
        self.pools = pools
        self.rows: dict[str, Row] = {}
        self.uses: dict[int, Use] = {}     # id(PoolDevice) -> compiled consumption
        self._hold: list[PoolDevice] = []  # keeps the ids above alive and unique

    # ------------------------------------------------------------ set-up
    def _row(self, pool: Pool) -> Row:
        row = self.rows.get(pool.name)
        if row is None:
            row = self.rows[pool.name] = self._build(pool)
        return row

    def _build(self, first: Pool) -> Row:
        """The row for ``first.name``: slots and scales over every pool of that
        name, available values from ``first`` (the pool Kubernetes caches)."""
        same = [p for p in self.pools if p.name == first.name]
        if first not in same:
            same.append(first)
        dens: dict[tuple[str, str], int] = {}
        avail = self.state.available_counters(first)
        for cs, counters in avail.items():
            for name, v in counters.items():
                dens[(cs, name)] = lcm(dens.get((cs, name), 1), v.denominator)
        negative = False
        for pool in same:
            uses, neg = _device_uses(pool)
            negative = negative or neg
            for key, den in uses.items():
                dens[key] = lcm(dens.get(key, 1), den)
        slots = {key: i for i, key in enumerate(dens)}
        scale = list(dens.values())
        row = Row(slots, scale, [None] * len(slots), [0] * len(slots), check_all=negative)
        for cs, counters in avail.items():
            for name, v in counters.items():
                i = slots[(cs, name)]
                row.available[i] = v.numerator * scale[i] if v.denominator == 1 else int(v * scale[i])
                row.check_all = row.check_all or v.numerator < 0
        return row

    def use(self, pd: PoolDevice) -> Use:
        got = self.uses.get(id(pd))
        if got is None:
            row = self._row(pd.pool)
            out = []
            for cs, counters in pd.consumption().items():
                for name, v in counters.items():
                    i = row.slots[(cs, name)]
                    out.append((i, v.numerator * row.scale[i] if v.denominator == 1 else int(v * row.scale[i])))
            got = self.uses[id(pd)] = tuple(out)
            self._hold.append(pd)
        return got

    def compiled(self, pd: PoolDevice) -> tuple[Row, Use]:
        """The device's row and consumption, for :meth:`try_use` and
        :meth:`release_use` (the row is built now if it is the first device
        of its pool name to be checked)."""
        return self._row(pd.pool), self.use(pd)

    # ------------------------------------------------------------ search
    def try_add(self, pd: PoolDevice) -> bool:
        """CN-3: add the device's consumption; refuse (and take it back) when
        some counter of the pool is over its available value."""
        return self.try_use(self._row(pd.pool), self.use(pd))

    @staticmethod
    def try_use(row: Row, use: Use) -> bool:
        """:meth:`try_add` with the device compiled. Each counter is compared
        right after the device's amount is added to it: the device touches
        each counter once, so that is the comparison after adding them all."""
        consumed, available = row.consumed, row.available
        if row.check_all:
            for i, a in use:
                consumed[i] += a
            if any(v is not None and v < consumed[i] for i, v in enumerate(available)):
                for i, a in use:
                    consumed[i] -= a
                return False
            return True
        for n, (i, a) in enumerate(use):
            now = consumed[i] + a
            consumed[i] = now
            v = available[i]
            if v is not None and v < now:
                for i2, a2 in use[:n + 1]:
                    consumed[i2] -= a2
                return False
        return True

    def release(self, pd: PoolDevice) -> None:
        """CN-4."""
        self.release_use(self._row(pd.pool), self.use(pd))

    @staticmethod
    def release_use(row: Row, use: Use) -> None:
        consumed = row.consumed
        for i, a in use:
            consumed[i] -= a

    def consumed_counters(self, name: str) -> CounterMap:
        """What the search holds now for pool name ``name`` (exact values)."""
        row = self.rows.get(name)
        out: CounterMap = {}
        if row is None:
            return out
        for (cs, counter), i in row.slots.items():
            if row.consumed[i]:
                out.setdefault(cs, {})[counter] = Fraction(row.consumed[i], row.scale[i])
        return out


def in_use(dev: DeviceID, state: AllocatedState, allocating: dict[DeviceID, set[int]]) -> bool:
    """DC-2: held by an allocated claim or tentatively by a claim of this call."""
    return dev in state.devices or bool(allocating.get(dev))
