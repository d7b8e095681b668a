"""Which nodes matter, and a proven floor on what making room costs on each.

For every pending pod shape (the claim specs one pod allocates) and every
request of it that asks for a fixed count of devices, the devices the
request may ever take on a node are computed once per node *type* -- on the
node with nothing allocated, by the allocator's own inventory (pools in
search order, class and request selectors, taints) -- and mapped to each
node of the type by pool. Requests drawing from the same devices are added
up. On a node:

* ``cap``: at most this many pods of the shape fit once every pod that may
  be disrupted is gone (devices held by the others subtracted; counters
  ignored, so it is an upper bound);
* ``floor``: disruptions located on the node cost at least this much before
  one pod of some shape fits: for each request, the devices still missing
  must come from claims released there, and the cheapest way to cover them
  (fractional knapsack, rounded up) bounds the cost; at least one claim when
  anything is missing.

Both only ever over-estimate what fits, so a node with cap 0 can be left out
and the floor is a valid lower bound (:mod:`.search` uses it to prove the
answer minimal over the whole cluster)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from fractions import Fraction

from dralloc.errors import AllocationError, InputError
from dralloc.features import Features
from dralloc.inventory.candidates import request_candidates
from dralloc.inventory.problem import build_problem
from dralloc.io import ObjectSet
from dralloc.models import Node, ResourceClaim
from dralloc.planner.makeroom.running import DeviceID, Running
from dralloc.planner.simulate.podsim import NodeObjects
from dralloc.planner.view.pods import PodDemand

Group = tuple[int, frozenset[tuple[int, str]]]   # (devices needed, candidate devices as (pool index, name))


def _pending_shared(pod: PodDemand, shared: dict[str, ResourceClaim]) -> list[ResourceClaim]:
    out = []
    for k in pod.shared:
        c = shared.get(k)
        if c is not None and (c.status is None or c.status.allocation is None):
            out.append(c)
    return out


def shape_of(pod: PodDemand, shared: dict[str, ResourceClaim]) -> str:
    """The claim specs one pod of ``pod`` allocates (its templates and its
    shared claims not allocated yet), names aside."""
    claims = [c for _, c in pod.templates] + _pending_shared(pod, shared)
    return json.dumps([c.spec.model_dump(by_alias=True, exclude_none=True) for c in claims], sort_keys=True)


def shape_claims(pod: PodDemand, shared: dict[str, ResourceClaim]) -> list[ResourceClaim]:
    return [*pod.instances(0), *_pending_shared(pod, shared)]


@dataclass
class NodeScreen:
    cap: dict[str, int] = field(default_factory=dict)      # work shape -> most pods once the disruptable are gone
    floor: int = 0                                         # least cost of making room for one pod
    free_fits: set[str] = field(default_factory=set)      # work shapes whose devices are free now (floor 0)
    room: dict[str, int] = field(default_factory=dict)     # any shape -> most pods on the devices free now


class Screener:
    """Per node: ``cap`` and ``floor`` for the shapes of the pending work.
    ``cost(claim)`` is what releasing an allocated claim costs (None: it
    cannot be released)."""

    def __init__(self, objs: ObjectSet, features: Features, shapes: dict[str, list[ResourceClaim]],
                 running: Running, cost: Callable[[str], int | None], most: int,
                 others: dict[str, list[ResourceClaim]] | None = None) -> None:
        self.features = features
        self.held = {(r.driver, r.pool, r.device) for c in objs.claims if c.status and c.status.allocation
                     and c.status.allocation.devices for r in c.status.allocation.devices.results or []
                     if not r.admin_access and not r.share_id}
        self.work = set(shapes)
        self.shapes = {**(others or {}), **shapes}    # ``others``: only the room free now is asked of them
        self.running = running
        self.cost = cost
        self.most = most                      # an unbounded cap: every pending pod
        empty = ObjectSet()
        for o in objs.all():
            if not (isinstance(o, ResourceClaim) and o.status is not None and o.status.allocation is not None):
                empty.add(o)
        self.per_node = NodeObjects(empty, [c for cs in self.shapes.values() for c in cs])
        self.classes = list(objs.classes)
        self._types: dict[Hashable, dict[str, list[Group] | None]] = {}

    def _type_groups(self, node: Node) -> dict[str, list[Group] | None]:
        """Per shape, its boundable requests as groups (None: the shape never fits here)."""
        fp = self.per_node.fingerprint(node)
        if fp not in self._types:
            self._types[fp] = self._groups(node)
        return self._types[fp]

    def _groups(self, node: Node) -> dict[str, list[Group] | None]:
        pools = {p: i for i, p in enumerate(self.per_node.pools(node))}
        out: dict[str, list[Group] | None] = {}
        for shape, claims in self.shapes.items():
            try:
                problem = build_problem(self.per_node.get(node).slices, self.classes, node, claims, [], self.features)
            except AllocationError as e:
                raise InputError(f"node {node.name}: {e}") from None
            need: dict[frozenset[tuple[int, str]], int] = {}
            for plan in problem.plans:
                for slot in plan.slots:
                    spec = slot.plain
                    if spec is None or spec.is_all or spec.admin:
                        continue
                    try:
                        cands, _ = request_candidates(problem, spec)
                    except AllocationError:
                        continue
                    devs = frozenset((pools[(pd.pool.driver, pd.pool.name)], pd.device.name) for pd in cands)
                    need[devs] = need.get(devs, 0) + spec.num_devices
            groups = [(k, devs) for devs, k in need.items()]
            out[shape] = None if any(len(devs) < k for k, devs in groups) else groups
        return out

    def screen(self, node: Node) -> NodeScreen:
        names = self.per_node.pools(node)
        out = NodeScreen()
        floors: list[int] = []
        for shape, groups in self._type_groups(node).items():
            if groups is None:
                continue
            room = self._room(groups, names)
            if room > 0:
                out.room[shape] = room
            if shape not in self.work:
                continue
            cap, floor = self._shape(groups, names)
            if cap <= 0:
                continue
            out.cap[shape] = cap
            floors.append(floor)
            if floor == 0:
                out.free_fits.add(shape)
        out.floor = min(floors, default=0)
        return out

    def _shape(self, groups: list[Group], names: list[tuple[str, str]]) -> tuple[int, int]:
        cap, floor = self.most, 0
        for k, devs in groups:
            ids: list[DeviceID] = [(names[i][0], names[i][1], d) for i, d in devs]
            holders = [self.running.holders.get(d) for d in ids]
            fixed = sum(1 for d, h in zip(ids, holders, strict=True)
                        if d in self.held and (h is None or self.cost(h) is None))
            cap = min(cap, (len(ids) - fixed) // k)
            free = sum(1 for d in ids if d not in self.held)
            floor = max(floor, self._cover(k - free, holders))
        return cap, floor

    def _room(self, groups: list[Group], names: list[tuple[str, str]]) -> int:
        """At most this many pods of the shape on the devices free now."""
        room = self.most
        for k, devs in groups:
            room = min(room, sum(1 for i, d in devs if (names[i][0], names[i][1], d) not in self.held) // k)
        return room

    def _cover(self, missing: int, holders: list[str | None]) -> int:
        """Least cost of releasing claims that together free ``missing`` of
        these devices (fractional, rounded up; at least one claim)."""
        if missing <= 0:
            return 0
        count: dict[str, int] = {}
        for h in holders:
            if h is not None and self.cost(h) is not None:
                count[h] = count.get(h, 0) + 1
        items = sorted((Fraction(int(self.cost(h) or 0), n), n, int(self.cost(h) or 0)) for h, n in count.items())
        if not items:
            return 0     # cannot fit (cap would be 0); no floor needed
        total, left = Fraction(0), missing
        for ratio, n, _ in items:
            take = min(n, left)
            total += ratio * take
            left -= take
            if left <= 0:
                break
        return max(math.ceil(total), min(c for _, _, c in items))
