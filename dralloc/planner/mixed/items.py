"""The demand, counted: what the configuration model places.

* A **shape** is the claim specs one pod allocates from its templates (names
  aside): pods of one shape are interchangeable on any node.
* A **group** is plain pods (no gang, no pending shared claim) of one shape
  and priority, with a count: 10^6 replicas are one number.
* A **gang type** is identical gangs (same member shapes and priorities, same
  minimum) without pending shared claims: their pods may spread over nodes;
  a gang is placed with at least ``needed`` of its pods or not at all.
* A **bundle type** is identical sets of pods that share pending claims
  (PodGroup-level claims, ``resourceClaimName`` claims not allocated yet):
  the shared claims are allocated once, on one node (node-local devices),
  so every pod using them runs there; a gang's bundle needs at least its
  minimum, a plain bundle at least one pod (no claim allocated for nobody).

:func:`read_items` says why the demand does not have this structure (then
another model answers)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from dralloc.models import ResourceClaim
from dralloc.planner.view.pods import PodDemand, PodsDemand

Slot = tuple[int, int]     # (shape, weight): members of one shape and weight in the objective


@dataclass
class Shape:
    id: int
    claims: tuple[ResourceClaim, ...]      # one pod's template claims (a representative)
    needs: frozenset[str]                  # allocated shared claims that must be visible on the node


@dataclass
class Group:
    shape: int
    weight: int
    pods: list[PodDemand] = field(default_factory=list)   # queue order
    count: int = 0


@dataclass
class GangType:
    slots: tuple[tuple[Slot, int], ...]    # ((shape, weight), pods per gang)
    needed: int                            # at least this many pods per placed gang
    gangs: list[str] = field(default_factory=list)        # gang keys, queue order

    @property
    def size(self) -> int:
        return sum(n for _, n in self.slots)


@dataclass
class BundleType:
    claims: tuple[ResourceClaim, ...]      # the pending shared claims (allocated once per bundle)
    slots: tuple[tuple[Slot, int], ...]
    needed: int
    groups: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)  # (unit key, shared claim keys)


@dataclass
class Items:
    shapes: list[Shape] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)
    gangs: list[GangType] = field(default_factory=list)
    bundles: list[BundleType] = field(default_factory=list)
    members: dict[str, list[PodDemand]] = field(default_factory=dict)   # gang/bundle key -> pods, queue order
    pod_shape: dict[str, int] = field(default_factory=dict)             # pod name -> shape
    free_shape: int = -1                                                # the shape with no claims, if any

    def total_weight(self) -> int:
        """Every pod placed: the bound when nothing better is proven."""
        out = sum(g.count * g.weight for g in self.groups)
        out += sum(len(t.gangs) * n * w for t in self.gangs for (_, w), n in t.slots)
        return out + sum(len(b.groups) * n * w for b in self.bundles for (_, w), n in b.slots)

    def demand_of(self, shape: int) -> int:
        """Pods of ``shape`` asked for in all (an upper bound per node)."""
        n = sum(g.count for g in self.groups if g.shape == shape)
        n += sum(len(t.gangs) * k for t in self.gangs for (s, _), k in t.slots if s == shape)
        n += sum(len(b.groups) * k for b in self.bundles for (s, _), k in b.slots if s == shape)
        return n


def spec_key(claim: ResourceClaim) -> str:
    return json.dumps(claim.spec.model_dump(by_alias=True, exclude_none=True), sort_keys=True)


def _allocated(c: ResourceClaim) -> bool:
    return c.status is not None and c.status.allocation is not None


class _Reader:
    def __init__(self, demand: PodsDemand) -> None:
        self.demand = demand
        self.items = Items()
        self.index: dict[tuple[tuple[str, ...], frozenset[str]], int] = {}
        self.pending = {k for k, c in demand.shared.items() if not _allocated(c)}

    def shape(self, pod: PodDemand) -> int:
        claims = tuple(c for _, c in pod.templates) if not pod.lone else (self.demand.shared[pod.shared[0]],)
        needs = frozenset(k for k in pod.shared if k not in self.pending) if not pod.lone else frozenset()
        key = (tuple(spec_key(c) for c in claims), needs)
        if key not in self.index:
            self.index[key] = len(self.items.shapes)
            self.items.shapes.append(Shape(len(self.items.shapes), claims, needs))
        sid = self.index[key]
        self.items.pod_shape[pod.name] = sid
        if not claims:
            self.items.free_shape = sid
        return sid

    def slots(self, pods: list[PodDemand]) -> tuple[tuple[Slot, int], ...]:
        count: dict[Slot, int] = {}
        for p in pods:
            slot = (self.shape(p), self.demand.weight(p))
            count[slot] = count.get(slot, 0) + p.replicas
        return tuple(sorted(count.items()))


def read_items(demand: PodsDemand) -> Items | str:
    """The demand counted, or why it is not made of groups, gangs and
    bundles (a pod sharing pending claims with pods outside its gang, or
    with two different sets of pods)."""
    r = _Reader(demand)
    queue = demand.queue()
    users: dict[str, list[PodDemand]] = {}
    in_gang: dict[str, list[PodDemand]] = {}
    for p in queue:
        if p.gang is not None:
            in_gang.setdefault(p.gang, []).append(p)
        if not p.lone:
            for k in p.shared:
                if k in r.pending:
                    users.setdefault(k, []).append(p)
    done: set[str] = set()
    gang_types: dict[object, GangType] = {}
    bundle_types: dict[object, BundleType] = {}
    groups: dict[tuple[int, int, int], Group] = {}
    for p in queue:
        mine = tuple(sorted(k for k in p.shared if k in r.pending)) if not p.lone else ()
        unit = p.gang or (f"shared:{mine[0]}" if mine else None)
        if unit is None:
            w = demand.weight(p)
            g = groups.setdefault((r.shape(p), p.priority, w), Group(r.shape(p), w))
            g.pods.append(p)
            g.count += p.replicas
            continue
        if unit in done:
            continue
        done.add(unit)
        names = {u.name for k in mine for u in users[k]}
        members = in_gang[p.gang] if p.gang else [q for q in queue if q.name in names]
        why = _unit(r, unit, p, members, users, gang_types, bundle_types)
        if why:
            return why
    r.items.groups = list(groups.values())
    r.items.gangs = list(gang_types.values())
    r.items.bundles = list(bundle_types.values())
    return r.items


def _unit(r: _Reader, unit: str, p: PodDemand, members: list[PodDemand], users: dict[str, list[PodDemand]],
          gang_types: dict[object, GangType], bundle_types: dict[object, BundleType]) -> str | None:
    keys = {tuple(sorted(k for k in q.shared if k in r.pending)) for q in members}
    mine = max(keys)
    if len(keys) > 1 or any(q.gang != p.gang for q in members) or any({u.name for u in users[k]} - {q.name for q in members} for k in mine):
        return (f"pods {', '.join(sorted(q.name for q in members))} do not all share the same pending claims "
                f"(and only them): the configuration model places a gang or a set of pods sharing claims on "
                f"one node")
    needed = r.demand.gangs[p.gang].needed if p.gang else 1
    slots = r.slots(members)
    r.items.members[unit] = members
    if not mine:
        gt = gang_types.setdefault((slots, needed), GangType(slots, needed))
        gt.gangs.append(unit)
        return None
    claims = tuple(r.demand.shared[k] for k in mine)
    sig = (tuple(spec_key(c) for c in claims), slots, needed)
    bt = bundle_types.setdefault(sig, BundleType(claims, slots, needed))
    bt.groups.append((unit, mine))
    return None
