"""Who may hold a device: at most one exclusive holder across the claims
being allocated and those already allocated; admin access may share a device
(but not twice in one claim, and an earlier claim's admin use blocks a later
claim's normal use, as Kubernetes does); devices that allow multiple
allocations are shared while their consumable capacity lasts."""

from __future__ import annotations

from fractions import Fraction

from ortools.sat.python import cp_model

from dralloc.encoders.base import Encoding, Option
from dralloc.encoders.linear import at_most, forbid
from dralloc.features import Variant
from dralloc.inventory.capacity import calculate_consumed, violates_policy
from dralloc.inventory.pools import PoolDevice
from dralloc.quantity import Quantity


def _is_multi(enc: Encoding, pd: PoolDevice) -> bool:
    p = enc.problem
    return (p.features.consumable_capacity and p.variant is not Variant.STABLE
            and bool(pd.device.allow_multiple_allocations))


def add_device_sharing(enc: Encoding) -> None:
    m = enc.model
    for pd, uses in enc.uses_of_device().values():
        guard = enc.guard(f"device {pd.label}")
        # one device at most once per claim
        by_claim: dict[int, list[cp_model.IntVar]] = {}
        for o, v in uses:
            by_claim.setdefault(o.key[0], []).append(v)
        for vs in by_claim.values():
            if len(vs) > 1 and not _is_multi(enc, pd):
                m.Add(sum(vs) <= 1).OnlyEnforceIf(guard)
        if _is_multi(enc, pd):
            _capacity(enc, pd, uses, guard)
            continue
        normal = [v for o, v in uses if not o.spec.admin]
        normal += enc.held[pd.id][1] if normal and pd.id in enc.held else []
        if normal:
            m.Add(sum(normal) <= 1).OnlyEnforceIf(guard)
        for o, v in uses:
            if o.spec.admin:
                continue
            for o2, v2 in uses:
                if o2.spec.admin and o2.key[0] < o.key[0]:
                    m.AddBoolOr([v.Not(), v2.Not()]).OnlyEnforceIf(guard)
        # a single request cannot take one device twice (devices are distinct per option)


def share_consumption(spec_capacity: dict[str, Quantity] | None, pd: PoolDevice) -> dict[str, Fraction] | None:
    """What one share consumes of each capacity, or None when a policy refuses it."""
    out: dict[str, Fraction] = {}
    for name, cap in (pd.device.capacity or {}).items():
        c = calculate_consumed((spec_capacity or {}).get(name), cap)
        if violates_policy(c, cap.request_policy):
            return None
        out[name] = c
    return out


def _capacity(enc: Encoding, pd: PoolDevice, uses: list[tuple[Option, cp_model.IntVar]],
              guard: list[cp_model.IntVar]) -> None:
    m = enc.model
    committed = enc.problem.state.aggregated.get(pd.id, {})
    for name, cap in (pd.device.capacity or {}).items():
        amounts = []
        for o, v in uses:
            use = share_consumption(o.spec.capacity, pd)
            if use is None:
                m.Add(v == 0)
                continue
            amounts.append((use[name], v))
        limit = cap.value.value - committed.get(name, Fraction(0))
        what = f"capacity {name} of device {pd.label}"
        if any(a < 0 for a, _ in amounts):
            _each_pick(m, amounts, limit, guard, what)
        elif limit < 0:   # over-committed: no new share fits (0 + committed > value)
            forbid(m, [v for _, v in amounts], guard)
        else:
            at_most(m, amounts, limit, guard, what)


def _each_pick(m: cp_model.CpModel, amounts: list[tuple[Fraction, cp_model.IntVar]], limit: Fraction,
               guard: list[cp_model.IntVar], what: str) -> None:
    """Kubernetes checks a share when it picks it: what is committed, plus the
    shares picked before it, plus its own, within the capacity. With amounts
    of one sign the last pick's check implies the others; a negative amount (a
    negative capacity taken whole by a request that names none) makes every
    pick's check count, in pick order (``amounts`` is: claims, then requests,
    in order)."""
    for k in range(len(amounts)):
        at_most(m, amounts[:k + 1], limit, [*guard, amounts[k][1]], what)
