"""The fewest disruptions, proven over the whole cluster while modelling
only a region of it.

Small clusters (at most :data:`WHOLE` nodes) are one model. Otherwise every
node is screened (:mod:`.screen`): nodes where the work cannot fit even with
every disruptable pod gone are left out; the others are ranked by the floor
of what making room there costs. The region starts with the cheapest nodes
(room for twice the work); every other candidate node joins the model as a
*proxy* (alike nodes grouped: at most ``cap`` pods of a shape each, at least
``floor`` each node used). That model is a relaxation of the whole cluster:
its optimum is a lower bound of every plan. When its optimum uses no proxy,
it is a real plan and meets the bound: proven. Otherwise the proxies it used
become real nodes of the region and it is solved again. A plan found costs
``U``; nodes whose floor is at least ``U`` cannot improve on it and are left
out of later relaxations.

Move mode solves the region of the evict answer with every disruptable pod
there re-placed (on the region, or on nodes where it fits now: at most
:data:`DESTINATIONS` per shape); every move plan is also an evict plan, so the
evict minimum is its bound; it is proven when it meets that bound, or when
the model held the whole cluster."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from dralloc.io import ObjectSet
from dralloc.io.progress import Progress
from dralloc.models import Node
from dralloc.planner.makeroom.model import Proxy, RoomModel, RoomResult, Setup
from dralloc.planner.makeroom.screen import NodeScreen
from dralloc.solver.limits import Deadline, stopped

WHOLE = 64             # clusters up to this many nodes are modelled whole
DESTINATIONS = 16      # move mode: nodes (outside the region) per shape where displaced pods may go



@dataclass
class Search:
    setup: Setup
    screens: dict[str, NodeScreen]
    nodes: list[Node]                              # every node, name order
    deadline: Deadline
    workers: int = 2
    progress: Progress | None = None
    # move mode: per shape of the displaced pods, nodes outside a region where one fits now
    dests: Callable[[set[str]], dict[str, list[Node]]] | None = None
    best: RoomResult | None = None
    bound: int = 0
    region: list[Node] = field(default_factory=list)
    rounds: int = 0
    proven_infeasible: bool = False
    notes: list[str] = field(default_factory=list)

    def candidates(self) -> list[Node]:
        """Nodes where some pod of the work could go, cheapest floor first."""
        found = [n for n in self.nodes if self.screens[n.name].cap]
        return sorted(found, key=lambda n: (self.screens[n.name].floor, n.name.encode()))

    def cands(self, region: list[Node], dests: dict[str, list[Node]]) -> dict[str, list[str]]:
        """Per pod of the model, the nodes it may go to."""
        out: dict[str, list[str]] = {}
        for p in self.setup.work.demand.pods:
            shape = self.setup.shapes[p.name]
            out[p.name] = [n.name for n in region if shape in self.screens[n.name].cap]
        names = [n.name for n in region]
        for mover in self.setup.movers:
            out[mover] = names + [n.name for n in dests.get(self.setup.shapes[mover], [])]
        return out

    def _stopped(self, what: str, res: RoomResult | None = None) -> str:
        if res is not None and res.why not in (None, "time limit"):
            return f"the search was {res.why}, {what}"
        return f"{stopped(self.deadline.limit, 'the search')}, {what}"

    def _say(self, text: str) -> None:
        if self.progress is not None:
            self.progress("make-room: search", self.rounds, None, text)

    def solve(self, region: list[Node], proxies: list[Proxy], by_shape: dict[str, list[Node]]) -> RoomResult:
        dests = sorted({n.name: n for ns in by_shape.values() for n in ns}.values(), key=lambda n: n.name.encode())
        model = RoomModel(self.setup, region, dests, self.cands(region, by_shape), proxies)
        model.build()
        self.rounds += 1
        res = model.solve(self.deadline.left(), self.workers)
        self._say(f"round {self.rounds}: {len(region)} nodes{f' + {len(dests)} destinations' if dests else ''}, "
                  f"{sum(len(p.nodes) for p in proxies)} outside: {res.status}"
                  + (f", cost {res.cost}" if res.feasible else ""))
        return res

    def whole(self) -> None:
        """The whole cluster in one model."""
        self.region = list(self.nodes)
        res = self.solve(self.region, [], {})
        if res.status == "INFEASIBLE":
            self.proven_infeasible = True
            return
        self.bound = res.bound
        if res.feasible:
            self.best = res

    def _proxies(self, inside: set[str], cands: list[Node]) -> list[Proxy]:
        limit = self.best.cost if self.best is not None else None
        groups: dict[tuple[int, tuple[tuple[str, int], ...]], list[str]] = {}
        for n in cands:
            sc = self.screens[n.name]
            if n.name in inside or (limit is not None and sc.floor >= limit):
                continue
            groups.setdefault((sc.floor, tuple(sorted(sc.cap.items()))), []).append(n.name)
        return [Proxy(f, dict(cap), names) for (f, cap), names in sorted(groups.items())]

    def _start(self, cands: list[Node]) -> list[Node]:
        want = 2 * sum(p.replicas for p in self.setup.work.demand.pods)
        out, room = [], 0
        for n in cands:
            if room >= want:
                break
            out.append(n)
            room += min(want, sum(self.screens[n.name].cap.values()))
        return out

    def evict(self) -> None:
        """The region search of the module docstring (evict mode)."""
        cands = self.candidates()
        if not cands:
            self.proven_infeasible = True
            return
        region = self._start(cands)
        while True:
            inside = {n.name for n in region}
            proxies = self._proxies(inside, cands)
            res = self.solve(region, proxies, {})
            if res.status == "INFEASIBLE":
                self.proven_infeasible = self.best is None
                break
            if not res.feasible:
                self.bound = max(self.bound, min(res.bound, self.best.cost) if self.best else res.bound)
                self.notes.append(self._stopped("before it found a plan" if self.best is None
                                                else "before it proved the plan minimal", res))
                break
            bound = res.bound if self.best is None else min(res.bound, self.best.cost)
            self.bound = max(self.bound, bound)
            if not res.proxies and (self.best is None or res.cost < self.best.cost):
                self.best, self.region = res, list(region)
            if self.best is not None and self.best.cost <= self.bound:
                break
            if not res.proxies or self.deadline.over():
                if self.deadline.over() or res.status != "OPTIMAL":
                    self.notes.append(self._stopped("before it proved the plan minimal"))
                break
            region = self._grow(region, proxies, res)

    def _grow(self, region: list[Node], proxies: list[Proxy], res: RoomResult) -> list[Node]:
        by_name = {n.name: n for n in self.nodes}
        add: list[Node] = []
        for i, k in sorted(res.proxies.items()):
            add.extend(by_name[name] for name in proxies[i].nodes[:2 * k])
        return sorted({n.name: n for n in [*region, *add]}.values(), key=lambda n: n.name.encode())

    def move(self, evict_bound: int) -> None:
        """Move mode on the evict answer's region (or the whole cluster)."""
        assert self.dests is not None
        cands = self.candidates()
        region = list(self.region) or self._start(cands)
        while True:
            inside = {n.name for n in region}
            dests = self.dests(inside)
            res = self.solve(region, [], dests)
            count = len({n.name for ns in dests.values() for n in ns})
            whole = len(inside) == len(self.nodes)
            if res.feasible:
                self.best, self.region = res, region
                self.bound = max(evict_bound, res.bound if whole else 0)
                if not whole and res.cost > self.bound:
                    self.notes.append(f"move mode modelled {len(region)} nodes and {count} destinations; "
                                      f"the bound is the fewest evictions")
                if res.status != "OPTIMAL":
                    self.notes.append(self._stopped("before it proved the plan minimal"))
                return
            if res.status != "INFEASIBLE" or self.deadline.over():
                self.notes.append(self._stopped("before it found a plan"))
                self.bound = evict_bound
                return
            if whole:
                self.proven_infeasible = True
                return
            more = [n for n in self.nodes if n.name not in inside]
            region = sorted([*region, *more[:max(len(region), 8)]], key=lambda n: n.name.encode())


def with_region(objs: ObjectSet, names: set[str]) -> list[Node]:
    return [n for n in objs.nodes if n.name in names]
