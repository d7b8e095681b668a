"""The replay's device results and its bookkeeping of shared devices'
capacity (DC-7, DC-11, DC-17, DC-19 for devices that allow multiple
allocations), quirks included (T-12, T-41, the inf.Dec aliasing)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

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
from dralloc.inventory.requests import RequestSpec
from dralloc.quantity import Quantity


@dataclass(eq=False, slots=True)
class Chosen:
    """One device result of the search."""

    req: RequestSpec
    pd: PoolDevice
    idx: int = -1          # the device's position among the search's candidates
    consumed: dict[str, Quantity] | None = None
    shared: dict[str, RequestCell] | None = None  # consumed entries that are the request itself (inf.Dec)
    counted: bool = False  # its counters were added to the ledger
    multi: bool = False    # a share of a device that allows multiple allocations (gets a share ID)
    n_before: int = 0      # results the claim held before this one
    joined: list[tuple[tuple[tuple[str, str], str], frozenset[str] | None]] | None = None  # compat undo


class CapacityBook:
    """Committed and tentative capacity of shared devices during one call."""

    def __init__(self, problem: Problem) -> None:
        self.committed = problem.state.aggregated
        self.tentative: dict[DeviceID, dict[str, Fraction]] = {}
        self.active: dict[DeviceID, int] = {}   # shares this call holds now, per device
        self.cells: dict[tuple[int, int, int], dict[str, RequestCell] | None] = {}
        self._static: dict[tuple[tuple[int, int, int], DeviceID], bool] = {}  # verdicts without tentative use

    def _cells(self, req: RequestSpec) -> dict[str, RequestCell] | None:
        """The claim request's capacity requests as Go holds them (None when
        none is an inf.Dec, so nothing can alias)."""
        if req.key not in self.cells:
            self.cells[req.key] = request_cells(req.capacity)
        return self.cells[req.key]

    def may_grow(self, req: RequestSpec) -> bool:
        """Whether checking ``req`` can change it (a request Go holds as a
        shared inf.Dec): then every check must run where Kubernetes runs it."""
        return bool(req.capacity) and self._cells(req) is not None

    def fits(self, req: RequestSpec, pd: PoolDevice) -> bool:
        """CC-1 with committed plus tentative capacity (DC-7, DC-17). Without a
        tentative share of the device and without a request Go can alias, the
        verdict depends on the request and the device alone: it is cached."""
        cells = self._cells(req) if req.capacity else None
        if cells is None and pd.id not in self.tentative:
            key = (req.key, pd.id)
            got = self._static.get(key)
            if got is None:
                got = self._static[key] = self._fits(req, pd, None)
            return got
        return self._fits(req, pd, cells)

    def _fits(self, req: RequestSpec, pd: PoolDevice, cells: dict[str, RequestCell] | None) -> bool:
        try:
            if cells is not None:
                return request_over_capacity_live(cells, pd.device.capacity, self.committed.get(pd.id),
                                                  self.tentative.get(pd.id))
            return request_over_capacity_ok(req.capacity, pd.device.capacity, self.committed.get(pd.id),
                                            self.tentative.get(pd.id))
        except UnknownCapacity:
            return False

    def skips_counters(self, pid: DeviceID) -> bool:
        """DC-11: a shared device already holding a share skips the counter check."""
        return pid in self.committed or pid in self.tentative

    def take(self, chosen: Chosen) -> None:
        """DC-17 for a shared device: record the share's consumed capacity."""
        req, dev = chosen.req, chosen.pd.device
        cells = self._cells(req) if req.capacity else None
        if cells is not None:
            chosen.consumed, chosen.shared = consumed_from_request_live(cells, dev.capacity)
        else:
            chosen.consumed = consumed_from_request(req.capacity, dev.capacity)
        chosen.multi = True  # its share ID comes with the results (dralloc.solver.shareids)
        pid = chosen.pd.id
        tent = self.tentative.setdefault(pid, {})
        for k, q in chosen.consumed.items():
            tent[k] = tent.get(k, Fraction(0)) + q.value
        self.active[pid] = self.active.get(pid, 0) + 1

    def give_back(self, chosen: Chosen) -> list[str]:
        """DC-19 for a share: subtract what the result holds now (a shared
        request may have grown); the entry goes only when every value is zero;
        counters are never returned. The defect events this fired."""
        pid = chosen.pd.id
        self.active[pid] -= 1
        events = []
        if chosen.consumed:
            tent = self.tentative.get(pid, {})
            shared = chosen.shared or {}
            for k, q in chosen.consumed.items():
                now = shared[k].value if k in shared else q.value
                tent[k] = tent.get(k, Fraction(0)) - now
            if all(v == 0 for v in tent.values()):
                self.tentative.pop(pid, None)
        if chosen.counted:  # the first share's counters are not returned (T-12)
            events.append("shared-device-counter-leak")
        if not self.active[pid] and pid in self.tentative and chosen.pd.device.consumes_counters:
            events.append("shared-capacity-entry-kept")  # T-41: later shares skip the counter check
        return events

    def settle(self, results: list[list[Chosen]]) -> None:
        """Results that share a request record its final value (Go deep-copies
        consumedCapacity only when it builds the AllocationResult)."""
        for res in results:
            for ch in res:
                if ch.shared and ch.consumed is not None:
                    ch.consumed = {**ch.consumed, **{k: cell.quantity() for k, cell in ch.shared.items()}}

    def grew(self) -> bool:
        return any(cell.grew for cells in self.cells.values() if cells for cell in cells.values())
