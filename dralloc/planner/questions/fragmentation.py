"""Stranded capacity and utilisation.

Per unit (one counter set group, e.g. one GPU): counters left, the largest
partition still allocatable (the free device that fits and takes the largest
share of the unit -- sum over counters of use/capacity), and the stranded
counters: free capacity that no set of free devices can use together.

Utilisation follows cluster-autoscaler's DRA calculation
(:mod:`.utilisation`).

The re-pack is the layout question on empty units for the devices allocated
now (same partitions): how many units they need at best."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from dralloc.planner.answer import Answer
from dralloc.planner.pattern.layouts import enumerate_layouts
from dralloc.planner.pattern.model import Group, PatternModel, Supply
from dralloc.planner.view.cluster import Cluster, Unit, UnitType
from dralloc.planner.view.utilisation import node_utilisation, pool_utilisation
from dralloc.solver.limits import limit_or_default
from dralloc.solver.proof import meets, optimum

__all__ = ["fragmentation", "node_utilisation", "pool_utilisation", "repack", "unit_report"]


def _share(use: tuple[int, ...], caps: tuple[int, ...]) -> Fraction:
    return sum((Fraction(u, c) for u, c in zip(use, caps, strict=True) if c), Fraction(0))


def unit_report(cluster: Cluster, u: Unit, known: dict[UnitType, tuple[int, ...]] | None = None) -> dict[str, Any]:
    """One unit's counters left, largest partition and stranded counters;
    ``known``: what each unit type can use, filled as types are met."""
    ut = cluster.types[u.type]
    fits = [(use, k) for use, k in ut.devices if all(a <= b for a, b in zip(use, ut.caps, strict=True))]
    largest = max(fits, key=lambda d: (_share(d[0], u.total), -d[1]), default=None)
    known = {} if known is None else known
    usable = known[ut] if ut in known else known.setdefault(ut, _usable(ut))
    stranded = {name: free - use for name, free, use in zip(ut.counters, ut.caps, usable, strict=True)
                if free - use > 0}
    return {"node": cluster.nodes[u.node].name, "unit": u.label, "allocated": len(u.used_devices),
            "free": dict(zip(ut.counters, ut.caps, strict=True)) if ut.caps else {"devices": len(ut.devices)},
            "largestAllocatable": cluster.kinds[largest[1]][1] if largest else None,
            "stranded": stranded}


def _usable(ut: UnitType) -> tuple[int, ...]:
    """Per counter, the most any layout of the free devices uses: the same
    for every unit of a type (asked once per type, not per GPU: at 0.5 s an
    enumeration, 8,000 GPUs took an hour)."""
    usable = [0] * len(ut.caps)
    for lay in enumerate_layouts(ut):
        for i, total in enumerate(_use_of(ut.devices, lay.witness, len(ut.caps))):
            usable[i] = max(usable[i], total)
    return tuple(usable)


def _use_of(devices: tuple[tuple[tuple[int, ...], int], ...], idx: tuple[int, ...], n: int) -> list[int]:
    out = [0] * n
    for i in idx:
        for j, v in enumerate(devices[i][0]):
            out[j] += v
    return out


def repack(cluster: Cluster, empty: Cluster, time_limit: float | None = None,
           workers: int = 2) -> dict[str, Any]:
    """Fewest units for the partitions allocated now; ``empty`` is the same
    cluster without allocations (its unit types have every device free)."""
    wanted: dict[str, int] = {}
    for u in cluster.units:
        for label in u.used_labels:
            wanted[label] = wanted.get(label, 0) + 1
    groups = [Group(label, frozenset(k for k, (_, lab) in enumerate(empty.kinds) if lab == label), n)
              for label, n in sorted(wanted.items())]
    useful = frozenset(k for g in groups for k in g.kinds)
    counts = empty.type_counts()
    sup = [Supply(f"type{t}", tuple(enumerate_layouts(empty.types[t], useful)), counts[t]) for t in sorted(counts)]
    model = PatternModel([s for s in sup if s.layouts], groups)
    model.fewest_units()
    res = model.solve(time_limit, workers)
    proven = res.proven or meets(res.objective, res.bound, maximize=False)
    out = {**optimum(res.objective, res.bound, res.status, False, res.why, limit_or_default(time_limit, "plan")),
           "units": res.objective, "partitions": wanted}
    out.update(status="OPTIMAL" if proven else out["status"], proven=proven)
    return out


def fragmentation(cluster: Cluster, empty: Cluster, time_limit: float | None = None,
                  workers: int = 2, groups: bool = False) -> Answer:
    """Stranded capacity now and after an optimal re-pack; ``groups``:
    compatibility groups (KEP-5963) decide which partitions may share a unit,
    which the re-pack's layouts do not know -- its count is then a lower
    bound, said so, not an answer."""
    known: dict[UnitType, tuple[int, ...]] = {}
    units = [unit_report(cluster, u, known) for u in cluster.units if u.total]
    in_use = sum(1 for u in cluster.units if u.used_devices)
    util = node_utilisation(cluster)
    best = repack(cluster, empty, time_limit, workers)
    if groups:
        best.update(status="NOT DECIDED", proven=False, bound=best["units"], units=None,
                    note="compatibility groups (DRADeviceCompatibilityGroups) decide which partitions may share a "
                         "unit and the re-pack does not know them: its count is a lower bound on the units needed "
                         "(and each unit's largest allocatable partition and stranded counters count free devices "
                         "its groups may exclude)")
    ans = Answer("fragmentation",
                 {"unitsInUse": in_use, "unitsWithStrandedCapacity": sum(1 for r in units if r["stranded"])},
                 {**best, "unitsInUse": best["units"],
                  "unitsFreed": in_use - best["units"] if best["units"] is not None else None})
    ans.gap = ans.optimal["unitsFreed"]
    ans.detail = {"units": units, "utilisation": {k: str(v) for k, v in util.items()}}
    return ans
