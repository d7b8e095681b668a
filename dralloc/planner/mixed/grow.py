"""``add-nodes`` in the configuration model: the added node type is a count.

The cluster with one copy of the unit gives the node types (the copy's
type, possibly shared with nodes already there); for k added nodes that
type's count grows by k - 1 and nothing else changes, so pricing models and
the configurations found carry over from one k to the next. The whole
demand fits with k when the integer master places every pod; it provably
does not when the floor of the Lagrangian bound is below the whole demand's
weight. The search: k = 0, then the limit (does anything help?), then
bisection. A k decided neither way within the time limit counts as too few
and the answer is marked unproven. Blocks (several nodes per unit) are not
counted this way (the caller falls back to copies)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from dralloc.features import Features
from dralloc.io import ObjectSet
from dralloc.io.progress import Progress
from dralloc.planner.mixed.colgen import generate
from dralloc.planner.mixed.fit import applies
from dralloc.planner.mixed.items import Items
from dralloc.planner.mixed.master import Master
from dralloc.planner.mixed.nodetypes import node_types
from dralloc.planner.mixed.pricing import Pricer
from dralloc.planner.simulate.podsim import NodeObjects, probes
from dralloc.planner.view.pods import PodsDemand


@dataclass
class AddResult:
    nodes: int | None               # fewest added nodes with which everything fits (None: not within the limit)
    proven: bool
    undecided: list[int] = field(default_factory=list)
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

    def fits(self, k: int, time_limit: float, progress: Progress | None = None) -> bool | None:
        """True, False (proven), or None (not decided in time)."""
        self.added.extra = k - 1        # the type holds the one copy already: base - 1 + k nodes
        t0 = time.perf_counter()
        cg = generate(self.master, self.pricers, self.items, self.types, t0 + 0.6 * time_limit, progress)
        if math.floor(cg.bound) < self.total:
            return False
        sol = self.master.solve_ip(max(0.5, t0 + time_limit - time.perf_counter()), self.workers,
                                   target=self.total)
        if sol.status in ("OPTIMAL", "FEASIBLE") and sol.value >= self.total:
            return True
        return None


def fewest_added(objs_one: ObjectSet, demand: PodsDemand, features: Features, added: str, limit: int,
                 time_limit: float, workers: int = 2, progress: Progress | None = None) -> AddResult | str:
    """The fewest copies of node ``added`` (a copy in ``objs_one``) with
    which the whole demand fits, or why this model does not apply;
    ``progress`` is told each count tried."""
    items = applies(objs_one, demand)
    if isinstance(items, str):
        return items
    t0 = time.perf_counter()
    model = Counted(objs_one, demand, features, items, added, workers)
    out = AddResult(None, True)
    tried: list[int] = []

    def ok(k: int) -> bool:
        if progress is not None:
            progress("add-nodes (optimal): try", len(tried) + 1, note=f"does the demand fit with {k} added?")
        tried.append(k)
        got = model.fits(k, time_limit, progress)
        if got is None:
            out.undecided.append(k)
        return bool(got)

    if ok(0):
        out.nodes = 0
    elif ok(limit):
        lo, hi = 0, limit
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if ok(mid) else (mid, hi)
        out.nodes = hi
    out.proven = not out.undecided
    out.seconds = time.perf_counter() - t0
    return out

