"""What Kubernetes would do: pods in queue order, each placed on a node chosen
by a policy among the nodes where the allocator succeeds, allocations
committed in turn.

For pods with one claim for one device the allocator's answer on a node is
the first device in search order (pools by name, slices, devices) that the
request selects, that is free, and whose counter consumption fits what is left
of its counter sets -- a one-device request never backtracks. This module
computes exactly that with integer vectors; ``replaysim`` runs the real
replay engine pod by pod, and the tests check both agree.

Node policies: ``first`` (first feasible node in name order), ``most`` /
``least`` allocated (the feasible node with the highest / lowest utilisation
as cluster-autoscaler computes it for DRA, :mod:`.utilisation`, exact
fractions, on the state so far -- ties by name)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction

from dralloc.errors import InputError
from dralloc.planner.simulate import POLICIES
from dralloc.planner.view.cluster import Cluster
from dralloc.planner.view.utilisation import UnitState, node_load, unit_state


@dataclass
class Placement:
    workload: str
    replica: int
    node: str
    device: str           # driver/pool/device


@dataclass
class SimResult:
    placed: list[Placement] = field(default_factory=list)
    unplaced: dict[str, int] = field(default_factory=dict)    # workload -> pods left pending
    served: dict[str, int] = field(default_factory=dict)      # workload -> pods placed
    units_used: int = 0
    free: list[list[int]] = field(default_factory=list)       # per unit: counters left
    taken: list[set[int]] = field(default_factory=list)       # per unit: device indices taken


class Simulator:
    def __init__(self, cluster: Cluster, policy: str = "first", record: bool = True) -> None:
        if policy not in POLICIES:
            raise InputError(f"unknown node policy {policy!r}; choose one of {', '.join(POLICIES)}")
        self.c = cluster
        self.policy = policy
        self.record = record
        self.free = [list(cluster.types[u.type].caps) for u in cluster.units]
        self.taken: list[set[int]] = [set() for _ in cluster.units]
        self.load = [node_load(cluster, n) if policy != "first" else Fraction(0) for n in range(len(cluster.nodes))]
        self.full: dict[int, set[int]] = {}   # claim type -> nodes where it no longer fits
        self.ptr: dict[int, int] = {}
        self._cands: dict[tuple[int, int], list[tuple[int, int]]] = {}

    def candidates(self, node: int, t: int) -> list[tuple[int, int]]:
        key = (node, t)
        if key not in self._cands:
            c = self.c
            self._cands[key] = [(ui, di) for ui, di in c.nodes[node].order
                                if t in c.kinds[c.types[c.units[ui].type].devices[di][1]][0]]
        return self._cands[key]

    def try_node(self, node: int, t: int) -> tuple[int, int] | None:
        types, units = self.c.types, self.c.units
        for ui, di in self.candidates(node, t):
            if di in self.taken[ui]:
                continue
            use = types[units[ui].type].devices[di][0]
            free = self.free[ui]
            if all(u <= f for u, f in zip(use, free, strict=True)):
                return ui, di
        return None

    def commit(self, node: int, ui: int, di: int) -> None:
        ut = self.c.types[self.c.units[ui].type]
        use = ut.devices[di][0]
        self.taken[ui].add(di)
        self.free[ui] = [f - u for f, u in zip(self.free[ui], use, strict=True)]
        if self.policy != "first":
            self.load[node] = node_load(self.c, node, self._state)

    def _state(self, ui: int) -> UnitState:
        return unit_state(self.c, self.c.units[ui], self.free[ui], len(self.taken[ui]))

    def place(self, t: int) -> tuple[int, int, int] | None:
        full = self.full.setdefault(t, set())
        if self.policy == "first":
            nodes: Iterable[int] = range(self.ptr.get(t, 0), len(self.c.nodes))
        else:
            sign = -1 if self.policy == "most" else 1
            nodes = sorted((n for n in range(len(self.c.nodes)) if n not in full),
                           key=lambda n: (sign * self.load[n], self.c.nodes[n].name.encode()))
        for n in nodes:
            hit = self.try_node(n, t)
            if hit is None:
                full.add(n)   # allocations only grow: it will not fit later either
                continue
            if self.policy == "first":
                self.ptr[t] = n   # every node before n is full for t
            return n, hit[0], hit[1]
        self.ptr[t] = len(self.c.nodes)
        return None

    def run(self) -> SimResult:
        res = SimResult()
        for w in self.c.demand.queue():
            res.served[w.name] = 0
            for r in range(w.replicas):
                got = self.place(w.type)
                if got is None:
                    res.unplaced[w.name] = w.replicas - r
                    break
                n, ui, di = got
                self.commit(n, ui, di)
                res.served[w.name] += 1
                if self.record:
                    res.placed.append(Placement(w.name, r, self.c.nodes[n].name, self.c.units[ui].device_ids[di]))
        res.units_used = sum(1 for u, t in zip(self.c.units, self.taken, strict=True) if t or u.used_devices)
        res.free, res.taken = self.free, self.taken
        return res


def simulate(cluster: Cluster, policy: str = "first", record: bool = True) -> SimResult:
    return Simulator(cluster, policy, record).run()
