"""A proven upper bound from any prices (Lagrangian relaxation of the
master's supply and bundle rows), exact.

With prices ``p_s >= 0`` per shape and ``r_b >= 0`` per bundle type, every
placement is worth at most

    sum_g  d_g * max(0, w_g - p_s(g))                 plain pods
  + sum_G  N_G * max(0, best gang value at p)          gangs
  + sum_b  N_b * r_b                                   bundles
  + sum_t  n_t * max over configurations of t of (sum_s p_s * pods_s + sum_b (value_b - r_b) * bundles_b)

and the last maximum is what pricing bounds (CP-SAT's proven bound, never
below the empty configuration's 0). This holds for every price, so it is a
valid bound at any iteration of column generation, not only once pricing
finds no improving column (where it meets the LP's value). Prices are
integers over a common scale; the arithmetic is exact (Fractions)."""

from __future__ import annotations

from fractions import Fraction

from dralloc.planner.mixed.items import GangType, Items
from dralloc.planner.mixed.nodetypes import NodeType
from dralloc.planner.mixed.pricing import Prices


def gang_value(t: GangType, prices: Prices, free: int) -> int | None:
    """The best scaled value of one gang at these prices (pods of a slot
    between 0 and its size, at least the minimum in all), or None when the
    gang can never be placed."""
    margins: list[tuple[int, int]] = []
    for (s, w), n in t.slots:
        margins.append((prices.scale * w - (0 if s == free else prices.shape.get(s, 0)), n))
    margins.sort(key=lambda mn: -mn[0])
    if sum(n for _, n in margins) < t.needed:
        return None
    value, count = 0, 0
    for margin, n in margins:
        if margin > 0:
            value, count = value + margin * n, count + n
            continue
        take = min(n, max(0, t.needed - count))
        value, count = value + margin * take, count + take
    return value


def lagrangian_bound(items: Items, types: list[NodeType], prices: Prices, pricing: dict[int, int]) -> Fraction:
    """The bound above; ``pricing[t]`` bounds type t's best configuration
    (scaled); a type missing from it holds nothing."""
    k = prices.scale
    total = 0
    for g in items.groups:
        total += g.count * max(0, k * g.weight - prices.shape.get(g.shape, 0))
    for t in items.gangs:
        v = gang_value(t, prices, items.free_shape)
        total += len(t.gangs) * max(0, v or 0)
    for b, bt in enumerate(items.bundles):
        total += len(bt.groups) * max(0, prices.bundle.get(b, 0))
    for nt in types:
        total += nt.count * max(0, pricing.get(nt.id, 0))
    return Fraction(total, k)
