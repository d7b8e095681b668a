"""Utilisation as cluster-autoscaler computes it for DRA, exact.

Per pool: the highest share of any counter consumed by allocated devices,
blended with the share of allocated devices that consume no counters,
weighted by the number of distinct partitionable devices (counter groups) in
use against the number of counter-less devices; a node's utilisation is its
highest pool's. The autoscaler uses float64 and yields NaN for a pool with
counters but no allocation and no counter-less device; this reports 0.

Used by the fragmentation report and as the score of the ``most`` / ``least``
node policies of both simulations (:mod:`.firstfit`, :mod:`.podsim`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from dralloc.planner.view.cluster import Cluster, Unit


@dataclass(frozen=True)
class UnitState:
    """One unit now: counter capacity and what is left of it (empty for a
    counter-less device), whether any of its devices is allocated, and its
    device count and allocated device count."""

    total: tuple[int, ...]
    free: Sequence[int]
    in_use: bool
    devices: int
    used: int


def utilisation(units: Iterable[UnitState]) -> Fraction:
    """One pool's utilisation."""
    part = Fraction(0)
    in_use = plain = plain_used = 0
    for u in units:
        if not u.total:
            plain += u.devices
            plain_used += u.used
            continue
        in_use += 1 if u.in_use else 0
        for total, free in zip(u.total, u.free, strict=True):
            if total:
                part = max(part, Fraction(total - free, total))
    if in_use + plain == 0:
        return Fraction(0)
    atomic = Fraction(plain_used, plain) if plain else Fraction(0)
    w = Fraction(in_use, in_use + plain)
    return part * w + atomic * (1 - w)


def unit_pool(u: Unit) -> str:
    """The pool of a unit: labels are "pool/counter-set" or, for a device
    without counters, "driver/pool/device"."""
    parts = u.label.split("/")
    return parts[1] if len(parts) == 3 else parts[0]


def unit_state(cluster: Cluster, u: Unit, free: Sequence[int] | None = None, taken: int = 0) -> UnitState:
    """``u`` as built (its allocated devices), or with ``free`` counters left
    and ``taken`` more devices allocated by a simulation."""
    ut = cluster.types[u.type]
    used = len(u.used_devices) + taken
    return UnitState(u.total, ut.caps if free is None else free, used > 0, len(ut.devices) + len(u.used_devices),
                     used)


def node_load(cluster: Cluster, node: int, state: Callable[[int], UnitState] | None = None) -> Fraction:
    """Utilisation of ``cluster.nodes[node]``; ``state(unit index)`` replaces
    the units' built state."""
    pools: dict[str, list[UnitState]] = {}
    for ui in cluster.nodes[node].units:
        u = cluster.units[ui]
        pools.setdefault(unit_pool(u), []).append(state(ui) if state is not None else unit_state(cluster, u))
    return max((utilisation(us) for us in pools.values()), default=Fraction(0))


def pool_utilisation(cluster: Cluster, units: list[Unit]) -> Fraction:
    """cluster-autoscaler's DRA utilisation of one pool, exact."""
    return utilisation(unit_state(cluster, u) for u in units)


def node_utilisation(cluster: Cluster) -> dict[str, Fraction]:
    return {n.name: node_load(cluster, i) for i, n in enumerate(cluster.nodes)}
