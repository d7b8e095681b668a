"""``add-nodes`` in the configuration model: the added node type is a count.

The cluster with one copy of the unit gives the node types (the copy's
type, possibly shared with nodes already there); for k added nodes that
type's count grows by k - 1 and nothing else changes, so pricing models and
the configurations found carry over from one k to the next.

**Lower bound from the LP.** Every round of column generation that prices
every node type gives a Lagrangian bound (:mod:`.bound`) that holds for any
node counts: with ``k`` added nodes it is ``A + (base - 1 + k) * v``, ``v``
the added type's pricing bound (what one more such node can be worth at
those prices). So one round bounds every k at once: the smallest k whose
bound reaches the whole demand's weight is a proven lower bound on the
nodes needed (all smaller counts provably cannot hold the demand), and
``v = 0`` with a bound below the demand proves that no number of added
nodes helps. Near the LP's optimum this is the ceiling of the LP relaxation
of "fewest added nodes" (the configuration LP's bound).

**Upper bound.** The whole demand fits with k when the integer master
places every pod. The search: k = 0 (does it fit as it is?), then the
lower bound; if the integer master does not place everything there, counts
above it (steps doubling) until one does; then bisection between the
highest count not found to fit and that one, the lower bound rising as the
counts tried add rounds. The answer is proven when it meets the lower
bound; otherwise it is an upper bound and the gap is said. Blocks (several
nodes per unit) are not counted this way (the caller falls back to
copies)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

from dralloc.features import Features
from dralloc.io import ObjectSet
from dralloc.io.progress import Progress
from dralloc.planner.mixed.bound import lagrangian_bound
from dralloc.planner.mixed.colgen import Cut, generate
from dralloc.planner.mixed.fit import applies
from dralloc.planner.mixed.items import Items
from dralloc.planner.mixed.master import Master
from dralloc.planner.mixed.nodetypes import node_types
from dralloc.planner.mixed.pricing import Pricer
from dralloc.planner.simulate.podsim import NodeObjects, probes
from dralloc.planner.view.pods import PodsDemand

NEVER = -1    # a lower bound meaning: no number of added nodes holds the demand


@dataclass
class AddResult:
    nodes: int | None               # fewest added nodes with which the integer master placed everything
                                    # (None: no count up to the limit was found to)
    proven: bool                    # ``nodes`` is the fewest (or, None: no count up to the limit holds it)
    lower: int = 0                  # proven: fewer added nodes cannot hold the demand (NEVER: no count can)
    undecided: list[int] = field(default_factory=list)   # counts decided neither way
    counts: list[int] = field(default_factory=list)      # the counts tried, in order
    stopped: bool = False           # a count's search reached its time limit
    seconds: float = 0.0


class Counted:
    """The configuration model with the added type's count as a knob."""

    def __init__(self, objs: ObjectSet, demand: PodsDemand, features: Features, items: Items, added: str,
                 workers: int) -> None:
        per_node = NodeObjects(objs, probes(demand))
        held = [c for c in objs.claims if c.status and c.status.allocation]
        self.items, self.workers = items, workers
        self.types = node_types(objs.nodes, per_node, items, demand.shared)
        self.added = next(t for t in self.types if any(n.name == added for n in t.nodes))
        self.base = self.added.count
        self.pricers = {t.id: Pricer(t, items, per_node.get(t.rep).slices, objs.classes, held, features)
                        for t in self.types}
        self.master = Master(items, self.types)
        self.total = items.total_weight()
        self.cuts: list[Cut] = []
        self.lower = 0                 # the best proven lower bound so far (NEVER: no count holds the demand)
        self.stopped = False           # the last count's search reached its time limit

    def _least(self, cut: Cut) -> int:
        """The fewest added nodes this cut's Lagrangian bound allows (NEVER: none)."""
        now = self.added.count
        at = lagrangian_bound(self.items, self.types, cut.prices, cut.pricing)     # at the current count
        per = Fraction(max(0, cut.pricing.get(self.added.id, 0)), cut.prices.scale)
        zero = at + (self.base - 1 - now) * per                                      # with 0 added
        if zero >= self.total:
            return 0
        if per == 0:
            return NEVER
        need = (self.total - zero) / per
        return int(need) if need.denominator == 1 else int(need) + 1

    def _learn(self, cuts: list[Cut]) -> None:
        for cut in cuts:
            least = self._least(cut)
            self.lower = NEVER if NEVER in (least, self.lower) else max(self.lower, least)
        self.cuts += cuts

    def fits(self, k: int, time_limit: float, progress: Progress | None = None) -> bool | None:
        """True, False (proven: k is below the lower bound), or None (not
        decided in time, or the integer master over the configurations found
        does not place everything although the bound allows it)."""
        self.stopped = False
        if self.lower == NEVER or k < self.lower:
            return False
        self.added.extra = k - 1        # the type holds the one copy already: base - 1 + k nodes
        t0 = time.perf_counter()
        cg = generate(self.master, self.pricers, self.items, self.types, t0 + 0.6 * time_limit, progress,
                      seeded=bool(self.master.columns))
        self._learn(cg.cuts)
        if self.lower == NEVER or k < self.lower:
            return False
        sol = self.master.solve_ip(max(0.5, t0 + time_limit - time.perf_counter()), self.workers,
                                   target=self.total)
        if sol.status in ("OPTIMAL", "FEASIBLE") and sol.value >= self.total:
            return True
        self.stopped = cg.ended == "time limit" or sol.why == "time limit"
        return None


def fewest_added(objs_one: ObjectSet, demand: PodsDemand, features: Features, added: str, limit: int,
                 time_limit: float, workers: int = 2, progress: Progress | None = None) -> AddResult | str:
    """The fewest copies of node ``added`` (a copy in ``objs_one``) with
    which the whole demand fits, or why this model does not apply;
    ``progress`` is told each count tried with the bounds so far."""
    items = applies(objs_one, demand)
    if isinstance(items, str):
        return items
    t0 = time.perf_counter()
    search = _Search(Counted(objs_one, demand, features, items, added, workers), limit, time_limit, progress)
    search.run()
    out = search.out
    out.lower, out.seconds = search.model.lower, time.perf_counter() - t0
    if out.nodes is not None:
        out.proven = out.lower == out.nodes
    else:
        out.proven = out.lower == NEVER or out.lower > limit or (limit in out.counts and limit not in out.undecided)
    return out


class _Search:
    """k = 0, the lower bound, counts above it until one fits, bisection."""

    def __init__(self, model: Counted, limit: int, time_limit: float, progress: Progress | None) -> None:
        self.model, self.limit, self.time_limit, self.progress = model, limit, time_limit, progress
        self.out = AddResult(None, False)
        self.failed = -1                  # the highest count tried below ``out.nodes`` that was not found to fit

    def ok(self, k: int) -> bool:
        m, out = self.model, self.out
        if self.progress is not None:
            low = "none can" if m.lower == NEVER else f">= {m.lower}"
            up = "none found yet" if out.nodes is None else f"<= {out.nodes}"
            self.progress("add-nodes (optimal): count", len(out.counts) + 1,
                          note=f"{k} added? (nodes needed {low}, {up})")
        out.counts.append(k)
        got = m.fits(k, self.time_limit, self.progress)
        if got is None:
            out.undecided.append(k)
            out.stopped = out.stopped or m.stopped
        if got:
            out.nodes = k if out.nodes is None else min(out.nodes, k)
        else:
            self.failed = max(self.failed, k)
        return bool(got)

    def settled(self) -> bool:
        lower = self.model.lower
        return lower == NEVER or lower > self.limit or (self.out.nodes is not None and self.out.nodes <= lower)

    def run(self) -> None:
        if self.ok(0) or self.settled():
            return
        k, step = min(self.limit, max(self.model.lower, 1)), 1
        while not (self.ok(k) or self.settled() or k >= self.limit):     # upwards until a count fits
            k, step = min(self.limit, max(self.model.lower, k + step)), step * 2
        while self.out.nodes is not None and not self.settled():      # bisection
            lo = max(self.failed, self.model.lower - 1)
            if self.out.nodes - lo <= 1:
                return
            self.ok((lo + self.out.nodes) // 2)
