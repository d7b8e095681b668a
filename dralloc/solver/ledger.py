"""Tentative bookkeeping during one allocation call: devices taken, shared
capacity, counters consumed (keyed by pool name, as Kubernetes keys them)."""

from __future__ import annotations

from fractions import Fraction

from dralloc.inventory.pools import CounterMap, DeviceID, Pool, PoolDevice
from dralloc.inventory.state import AllocatedState


class CounterLedger:
    """CN-1..CN-5: available counters are computed once per pool *name* from
    the first pool of that name seen, minus what committed devices consume;
    tentative consumption is added and checked against every counter."""

    def __init__(self, state: AllocatedState) -> None:
        self.state = state
        self.available: dict[str, CounterMap] = {}
        self.consumed: dict[str, CounterMap] = {}

    def available_for(self, pool: Pool) -> CounterMap:
        """The cached available counters for the pool's *name* (the first pool
        of that name seen fills the cache, as in Kubernetes)."""
        got = self.available.get(pool.name)
        if got is not None:
            return got
        avail = self.state.available_counters(pool)
        self.available[pool.name] = avail
        return avail

    def try_add(self, pd: PoolDevice) -> bool:
        avail = self.available_for(pd.pool)
        consumed = self.consumed.setdefault(pd.pool.name, {})
        use = pd.consumption()
        _apply(consumed, use, 1)
        for cs, counters in avail.items():
            used = consumed.get(cs, {})
            for name, value in counters.items():
                if value < used.get(name, Fraction(0)):
                    _apply(consumed, use, -1)
                    return False
        return True

    def release(self, pd: PoolDevice) -> None:
        _apply(self.consumed.setdefault(pd.pool.name, {}), pd.consumption(), -1)


def _apply(dst: CounterMap, use: CounterMap, sign: int) -> None:
    for cs, counters in use.items():
        d = dst.setdefault(cs, {})
        for name, v in counters.items():
            d[name] = d.get(name, Fraction(0)) + sign * v


def in_use(dev: DeviceID, state: AllocatedState, allocating: dict[DeviceID, set[int]]) -> bool:
    """DC-2: held by an allocated claim or tentatively by a claim of this call."""
    return dev in state.devices or bool(allocating.get(dev))
