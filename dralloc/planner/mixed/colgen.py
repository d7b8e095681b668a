"""Column generation: configurations generated from the LP's prices.

Start from first-fit's configurations and, per node type, the best
configuration for each shape alone and for the demand's own weights. Then
repeat: solve the master LP (GLOP), turn its duals into integer prices,
price every node type (CP-SAT on the allocator's encoding), add every
configuration found whose reduced cost is positive, and compute the
Lagrangian bound of these prices (valid at every iteration). Stop when no
type has an improving configuration (the LP is optimal over all
configurations: pricing proved it), when the bound meets the LP value, or
when the time share runs out (then the best bound so far is reported)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

from dralloc.io.progress import Progress
from dralloc.planner.mixed.bound import lagrangian_bound
from dralloc.planner.mixed.items import Items
from dralloc.planner.mixed.master import LpResult, Master
from dralloc.planner.mixed.nodetypes import NodeType
from dralloc.planner.mixed.pricing import Pricer, Prices

SCALE = 720720            # prices are multiples of 1/SCALE (lcm of 1..16: common LP fractions are exact)
MAX_ITERATIONS = 200


@dataclass(frozen=True)
class Cut:
    """Prices and, per node type, a proven bound on its best configuration
    at those prices: :func:`dralloc.planner.mixed.bound.lagrangian_bound`
    for any node counts (pricing does not depend on them)."""

    prices: Prices
    pricing: dict[int, int]


@dataclass
class ColgenResult:
    bound: Fraction                  # best proven bound on the optimum (weighted pods)
    lp: float                        # the last LP value over the configurations found
    iterations: int
    converged: bool                  # pricing proved that no configuration improves the LP
    pricing_seconds: float = 0.0
    ended: str = ""                  # why it ended: converged, bound meets the LP, time limit, iterations,
                                     # or pricing unproven (no improving column found, not proven)
    cuts: list[Cut] = field(default_factory=list)   # every round that priced every type: its prices and
                                                    # each type's pricing bound (a Lagrangian bound for any counts)


def scale_for(items: Items) -> int:
    """Integer prices must stay far from int64 in CP-SAT's objective."""
    slots = [sl for t in items.gangs for sl in t.slots] + [sl for b in items.bundles for sl in b.slots]
    top = max([g.weight for g in items.groups] + [w for (_, w), _n in slots] + [1])
    per_node = max([items.demand_of(s.id) for s in items.shapes] + [1])
    return max(1, min(SCALE, 2**52 // (top * per_node * max(1, len(items.shapes)) * 64)))


def prices_from(lp: LpResult | None, items: Items, scale: int) -> Prices:
    if lp is None:   # the demand's own weights: each shape at its heaviest pod
        shape: dict[int, int] = {}
        for g in items.groups:
            shape[g.shape] = max(shape.get(g.shape, 0), g.weight * scale)
        for t in items.gangs:
            for (s, w), _n in t.slots:
                shape[s] = max(shape.get(s, 0), w * scale)
        return Prices(scale, shape, {})
    return Prices(scale, {s: round(v * scale) for s, v in lp.shape.items()},
                  {b: round(v * scale) for b, v in lp.bundle.items()})


def seed(master: Master, pricers: dict[int, Pricer], items: Items, scale: int, time_limit: float,
         progress: Progress | None = None) -> None:
    """Per type: the most of each shape alone, of each bundle type alone,
    and the best for the demand's weights."""
    trials = [prices_from(None, items, scale)]
    trials += [Prices(scale, {s.id: scale}, {}) for s in items.shapes]
    trials += [Prices(scale, {}, {b: -scale}) for b in range(len(items.bundles))]
    for i, pr in enumerate(pricers.values()):
        if progress is not None:
            progress("column generation: first configurations, node type", i + 1, len(pricers))
        for p in trials:
            for _, c in pr.price(p, time_limit).configs[:1]:
                master.add(c)


def generate(master: Master, pricers: dict[int, Pricer], items: Items, types: list[NodeType], deadline: float,
             progress: Progress | None = None, seeded: bool = False) -> ColgenResult:
    """Column generation until converged or ``deadline``; ``progress`` is
    told each iteration. A pricing search that finds nothing in time gives
    no bound that round (the bound so far stands; every pod placed when no
    round gave one). ``seeded``: the master holds the first configurations
    already (a later call on the same master)."""
    scale = scale_for(items)
    if not seeded:
        seed(master, pricers, items, scale, max(0.5, (deadline - time.perf_counter()) / 20), progress)
    cuts: list[Cut] = []
    best: Fraction | None = None
    lp_value, it, converged, spent, ended = 0.0, 0, False, 0.0, "iterations"
    while it < MAX_ITERATIONS:
        it += 1
        lp = master.solve_lp()
        lp_value = lp.value
        prices = prices_from(lp, items, scale)
        bounds: dict[int, int | None] = {}
        added, proved = 0, True
        left = deadline - time.perf_counter()
        for tid, pr in pricers.items():
            res = pr.price(prices, max(0.2, left / (2 * len(pricers))))
            spent += res.seconds
            bounds[tid] = res.bound
            proved = proved and res.status == "OPTIMAL"
            floor = lp.node.get(tid, 0.0) * scale
            added += sum(master.add(c) for v, c in res.configs if v > floor + 1e-6 * max(1.0, floor))
        if all(b is not None for b in bounds.values()):
            cuts.append(Cut(prices, {t: b for t, b in bounds.items() if b is not None}))
            bound = lagrangian_bound(items, types, prices, cuts[-1].pricing)
            best = bound if best is None else min(best, bound)
        else:
            proved = False
        if progress is not None:
            shown = "none yet" if best is None else f"{float(best):.1f}"
            progress("column generation: iteration", it, note=f"{len(master.columns)} configurations, "
                     f"LP {lp.value:.1f}, bound {shown}")
        if added == 0:
            converged = proved
            ended = "converged" if proved else "pricing unproven"
            break
        if best is not None and float(best) - lp.value <= 1e-9 * max(1.0, lp.value):
            ended = "bound meets the LP"
            break
        if time.perf_counter() > deadline:
            ended = "time limit"
            break
    if best is None:   # no round priced every type in time: every pod placed is the only bound
        best = Fraction(items.total_weight())
    return ColgenResult(best, lp_value, it, converged, spent, ended, cuts)
