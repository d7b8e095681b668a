"""The replay's bookkeeping of device compatibility groups (KEP-5963,
1.37 alpha): per counter set of a pool, the intersection of the groups of
every device placed on it so far -- the allocated ones (as their claims
recorded them) and those of this call -- and the way back on backtracking.

The KEP describes the scheduler's check as this rolling intersection; a
candidate joins when it leaves the intersection non-empty, and undoing it
restores what was there before. That is the rule itself (an intersection
does not depend on the order it is taken in), so the replay and the CP-SAT
encoding (:mod:`dralloc.encoders.compat`) agree by construction."""

from __future__ import annotations

from dralloc.inventory.compat import Groups, baseline, device_groups
from dralloc.inventory.pools import PoolDevice
from dralloc.inventory.problem import Problem

Key = tuple[tuple[str, str], str]  # (pool id, counter set)
Undo = list[tuple[Key, Groups | None]]


class CompatBook:
    def __init__(self, problem: Problem) -> None:
        f = problem.features
        self.on = f.compatibility_groups and f.partitionable_devices
        self.state = problem.state
        self.running: dict[Key, Groups] = {}
        self._base: dict[tuple[str, str], dict[str, Groups]] = {}

    def _start(self, pd: PoolDevice, cs: str) -> Groups | None:
        base = self._base.get(pd.pool.id)
        if base is None:
            base = self._base[pd.pool.id] = baseline(self.state.compat_members(pd.pool))
        return base.get(cs)

    def try_add(self, pd: PoolDevice) -> Undo | None:
        """Place ``pd`` on every counter set it consumes; None (nothing
        changed) when one of them refuses it."""
        undo: Undo = []
        for cs, groups in device_groups(pd.device).items():
            key = (pd.pool.id, cs)
            cur = self.running[key] if key in self.running else self._start(pd, cs)
            if cur is not None and not cur & groups:
                self.undo(undo)
                return None
            undo.append((key, self.running.get(key)))
            self.running[key] = groups if cur is None else cur & groups
        return undo

    def undo(self, undo: Undo | None) -> None:
        for key, before in reversed(undo or []):
            if before is None:
                self.running.pop(key, None)
            else:
                self.running[key] = before
