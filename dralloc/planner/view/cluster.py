"""The cluster as the planner sees it: nodes made of *units* (a group of
counter sets and the devices consuming them -- one physical GPU, or one plain
device), devices reduced to integer counter vectors and a *kind* (which claim
types may use them), identical units grouped into types.

Everything comes from :func:`dralloc.inventory.problem.build_problem`, so pool
gathering, search order, allocated state and selectors (class and claim CEL,
device taints) are exactly the allocator's."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import networkx as nx

from dralloc.errors import AllocationError, InputError
from dralloc.features import DEFAULT_GATES as FEATURE_DEFAULTS
from dralloc.features import Features
from dralloc.inventory.fingerprint import Fingerprints, pool_names, read_attributes
from dralloc.inventory.pools import Pool, PoolDevice
from dralloc.inventory.problem import Problem, build_problem
from dralloc.inventory.taints import blocking_taint
from dralloc.io import ObjectSet
from dralloc.models import Node, ResourceClaim, ResourceSlice
from dralloc.planner.view.demand import Demand

# Gates the planner turns on unless told otherwise: the default release's, as
# every command and the library (dralloc.features.DEFAULT_GATES).
DEFAULT_GATES = FEATURE_DEFAULTS


@dataclass(frozen=True)
class UnitType:
    """Identical units share a type: counter names, free capacity, and the
    free devices in search order as (use vector, kind)."""

    counters: tuple[str, ...]
    caps: tuple[int, ...]
    devices: tuple[tuple[tuple[int, ...], int], ...]


@dataclass
class Unit:
    type: int
    node: int
    label: str                       # "pool/counter-set" or "pool/device"
    device_ids: list[str]            # "driver/pool/device" of the free devices, as in the type
    total: tuple[int, ...]           # capacity before allocations
    used_devices: list[str] = field(default_factory=list)
    used_labels: list[str] = field(default_factory=list)     # kind labels of the allocated devices
    used_uses: list[tuple[int, ...]] = field(default_factory=list)   # their counter use vectors


@dataclass
class NodeModel:
    name: str
    units: list[int]                 # indices into Cluster.units
    order: list[tuple[int, int]]     # search order: (unit index, device index in its type)


@dataclass
class Cluster:
    demand: Demand
    kinds: list[tuple[frozenset[int], str]] = field(default_factory=list)  # (claim types, label)
    types: list[UnitType] = field(default_factory=list)
    units: list[Unit] = field(default_factory=list)
    nodes: list[NodeModel] = field(default_factory=list)
    reps: list[Node] = field(default_factory=list)     # a node per fingerprint (nodes the allocator cannot tell apart)
    _kind_index: dict[tuple[frozenset[int], str], int] = field(default_factory=dict)
    _type_index: dict[UnitType, int] = field(default_factory=dict)

    def kind(self, mask: frozenset[int], label: str) -> int:
        key = (mask, label)
        if key not in self._kind_index:
            self._kind_index[key] = len(self.kinds)
            self.kinds.append(key)
        return self._kind_index[key]

    def unit_type(self, t: UnitType) -> int:
        if t not in self._type_index:
            self._type_index[t] = len(self.types)
            self.types.append(t)
        return self._type_index[t]

    def type_counts(self) -> dict[int, int]:
        out: dict[int, int] = {}
        for u in self.units:
            out[u.type] = out.get(u.type, 0) + 1
        return out


def _int(v: Fraction, where: str) -> int:
    if v.denominator != 1:
        raise InputError(f"{where}: counter value {v} is not a whole number; the planner needs integer counters")
    return int(v)


def _label(pd: PoolDevice) -> str:
    for key, attr in (pd.device.attributes or {}).items():
        if key == "profile" or key.endswith("/profile"):
            return str(attr.string if attr.string is not None else attr.int_)
    for key, attr in (pd.device.attributes or {}).items():
        if key == "type" or key.endswith("/type"):
            return str(attr.string)
    return pd.pool.driver


def _components(pool: Pool) -> list[tuple[list[str], list[PoolDevice]]]:
    """Counter sets and devices of a pool split into independent units."""
    g: nx.Graph = nx.Graph()
    for cs in pool.counter_sets:
        g.add_node(("c", cs))
    for i, pd in enumerate(pool.devices):
        g.add_node(("d", i))
        for cs in pd.consumption():
            g.add_edge(("d", i), ("c", cs))
    out = []
    for comp in nx.connected_components(g):
        sets = sorted(n[1] for n in comp if n[0] == "c")
        devs = sorted(n[1] for n in comp if n[0] == "d")
        if devs:
            out.append((sets, [pool.devices[i] for i in devs]))
    out.sort(key=lambda c: c[1][0].position)
    return out


def _node_slices(objs: ObjectSet) -> dict[str, list[ResourceSlice]]:
    """The slices of every pool that has a slice for a node, plus the pools
    of slices without a node name (for all or selected nodes): gather_pools
    then only sees what can matter for that node. Key "" holds the latter."""
    by_pool: dict[tuple[str, str], list[ResourceSlice]] = {}
    for s in objs.slices:
        by_pool.setdefault((s.spec.driver, s.spec.pool.name), []).append(s)
    shared_keys = sorted({k for k, group in by_pool.items() if any(not s.spec.node_name for s in group)})
    extra = [s for k in shared_keys for s in by_pool[k]]
    out: dict[str, list[ResourceSlice]] = {"": extra}
    for key, group in by_pool.items():
        if key in shared_keys:
            continue
        for name in sorted({s.spec.node_name for s in group if s.spec.node_name}):
            out.setdefault(name, list(extra)).extend(group)
    return out


class ClusterBuilder:
    def __init__(self, objs: ObjectSet, demand: Demand, features: Features) -> None:
        self.objs = objs
        self.features = features
        self.cluster = Cluster(demand)
        self.slices = _node_slices(objs)
        self.progress: Callable[[int, int], None] | None = None
        self.probes = [ResourceClaim.model_validate(ct.claim.model_dump(by_alias=True)) for ct in demand.types]

    def build(self, nodes: Sequence[Node]) -> Cluster:
        allocated = [c for c in self.objs.claims if c.status and c.status.allocation]
        taken = {(r.driver, r.pool, r.device) for c in allocated if c.status and c.status.allocation
                 and c.status.allocation.devices for r in c.status.allocation.devices.results or []}
        prints = Fingerprints(taken, read_attributes(self.objs.classes, self.probes))
        seen: dict[object, tuple[int, list[tuple[str, str]]]] = {}
        for i, node in enumerate(sorted(nodes, key=lambda n: n.name.encode())):
            if self.progress and (i % 100 == 0 or i == len(nodes) - 1) and len(nodes) >= 100:
                self.progress(i + 1, len(nodes))
            slices = self.slices.get(node.name, self.slices[""])
            sig = prints.node(node, slices)
            pools = pool_names(slices)
            if sig in seen:
                self._clone(node.name, *seen[sig], pools)
                continue
            try:
                problem = build_problem(slices, self.objs.classes, node, self.probes, allocated, self.features)
            except AllocationError as e:
                raise InputError(f"node {node.name}: {e}") from None
            seen[sig] = (len(self.cluster.nodes), pools)
            self.cluster.reps.append(node)
            self._node(problem)
        return self.cluster

    def single(self, node: Node) -> Cluster:
        """The cluster of ``node`` alone (no fingerprint: nothing to share)."""
        allocated = [c for c in self.objs.claims if c.status and c.status.allocation]
        try:
            problem = build_problem(self.slices.get(node.name, self.slices[""]), self.objs.classes, node,
                                    self.probes, allocated, self.features)
        except AllocationError as e:
            raise InputError(f"node {node.name}: {e}") from None
        self.cluster.reps.append(node)
        self._node(problem)
        return self.cluster

    def _clone(self, name: str, rep: int, rep_pools: list[tuple[str, str]],
               pools: list[tuple[str, str]]) -> None:
        """A node identical to node ``rep``: same unit types, own device names."""
        cl = self.cluster
        rename = {f"{d}/{p}/": f"{d}/{q}/" for (d, p), (_, q) in zip(rep_pools, pools, strict=True)}

        def fix(label: str) -> str:
            parts = label.split("/", 2)
            head = f"{parts[0]}/{parts[1]}/"
            return rename.get(head, head) + parts[2] if len(parts) == 3 else label

        src = cl.nodes[rep]
        node = NodeModel(name, [], [])
        first = len(cl.units)
        for ui in src.units:
            u = cl.units[ui]
            pool = dict(rep_pools_names(rep_pools, pools)).get(u.label.split("/", 1)[0], "")
            label = f"{pool}/{u.label.split('/', 1)[1]}" if pool else fix(u.label)
            cl.units.append(Unit(u.type, len(cl.nodes), label, [fix(d) for d in u.device_ids], u.total,
                                 [fix(d) for d in u.used_devices], list(u.used_labels), list(u.used_uses)))
            node.units.append(len(cl.units) - 1)
        offset = {ui: first + i for i, ui in enumerate(src.units)}
        node.order = [(offset[ui], di) for ui, di in src.order]
        cl.nodes.append(node)

    def _mask(self, problem: Problem, pd: PoolDevice) -> frozenset[int]:
        out = set()
        for t, plan in enumerate(problem.plans):
            spec = plan.slots[0].options[0]
            if not problem.selectable(pd, spec):
                continue
            if blocking_taint(pd.device.taints, spec.tolerations, self.features):
                continue
            out.add(t)
        return frozenset(out)

    def _node(self, problem: Problem) -> None:
        cl = self.cluster
        node = NodeModel(problem.node.name, [], [])
        where: dict[int, tuple[int, int]] = {}
        for pool in problem.pools:
            if not pool.usable:
                continue
            for sets, devs in _components(pool):
                self._unit(problem, pool, sets, devs, node, where)
        node.order = [where[id(pd)] for pool in problem.pools for pd in pool.devices if id(pd) in where]
        cl.nodes.append(node)

    def _unit(self, problem: Problem, pool: Pool, sets: list[str], devs: list[PoolDevice],
              node: NodeModel, where: dict[int, tuple[int, int]]) -> None:
        cl = self.cluster
        names = [(cs, c) for cs in sets for c in sorted(pool.counter_sets[cs])]
        where_c = f"pool {pool.driver}/{pool.name}"
        total = tuple(_int(pool.counter_sets[cs][c], f"{where_c} counter set {cs} counter {c}") for cs, c in names)
        free = list(total)
        kept: list[tuple[tuple[int, ...], int, str]] = []
        used: list[str] = []
        used_labels: list[str] = []
        used_uses: list[tuple[int, ...]] = []
        for pd in devs:
            cons = pd.consumption()
            use = tuple(_int(cons.get(cs, {}).get(c, Fraction(0)), f"{where_c} device {pd.device.name}")
                        for cs, c in names)
            if problem.state.is_allocated(pd.id):
                free = [f - u for f, u in zip(free, use, strict=True)]
                used.append(pd.label)
                used_labels.append(_label(pd))
                used_uses.append(use)
                continue
            kept.append((use, cl.kind(self._mask(problem, pd), _label(pd)), pd.label))
        rel = {cs: i for i, cs in enumerate(sets)}
        ut = UnitType(tuple(f"{rel[cs]}/{c}" for cs, c in names), tuple(free), tuple((u, k) for u, k, _ in kept))
        ui = len(cl.units)
        label = f"{pool.name}/{sets[0]}" if sets else devs[0].label
        cl.units.append(Unit(cl.unit_type(ut), len(cl.nodes), label, [d for _, _, d in kept], total, used, used_labels,
                             used_uses))
        node.units.append(ui)
        index = {d: i for i, (_, _, d) in enumerate(kept)}
        for pd in devs:
            if pd.label in index:
                where[id(pd)] = (ui, index[pd.label])


def rep_pools_names(rep: list[tuple[str, str]], mine: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(p, q) for (_, p), (_, q) in zip(rep, mine, strict=True)]


def build_cluster(objs: ObjectSet, demand: Demand, features: Features | None = None,
                  nodes: Sequence[Node] | None = None,
                  progress: Callable[[int, int], None] | None = None) -> Cluster:
    """The planner's view of ``objs`` for the claim types of ``demand``;
    ``progress(done, total)`` is called every 100 nodes and at the end."""
    builder = ClusterBuilder(objs, demand, features or Features.from_gates(DEFAULT_GATES))
    builder.progress = progress
    return builder.build(list(nodes if nodes is not None else objs.nodes))
