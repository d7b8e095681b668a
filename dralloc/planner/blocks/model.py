"""Block-layout pattern model for one-device shared claims (multi-host TPU
slices and the like): the exact optimum of ``fit`` without the joint model.

Shape it answers (:func:`detect`): every pod uses exactly one shared
ResourceClaim of its own, not allocated yet, asking for exactly one device
(no templates, no constraints); the pod's replicas need nothing else, so a
slice runs all its replicas as soon as its claim has a device some node of
the cluster sees. Then only the devices matter, pool by pool:

* A device's **kind** is the set of claim types (claim specs) whose
  selectors, class and node visibility accept it (from the allocator's own
  inventory, :func:`dralloc.inventory.problem.build_problem`, per pool and
  node that sees it). Allocated devices drop out; their counters are
  subtracted.
* A **block** is a pool (e.g. KEP-4815's 4x4 block of four hosts). Its
  **layouts** are the maximal multisets of kinds whose devices fit the
  counters together (enumerated from the real devices, e.g. {4x4},
  {2x4,2x4}, {2x4,2x2,2x2}, {2x2 x4}). Blocks with the same layouts are one
  block type with a count.
* CP-SAT: ``x[t,L]`` blocks of type t using layout L, ``y[g,k]`` slices of
  group g (claim type x replicas x priority) on kind k, supply of a kind =
  layout multiplicities. Objective: placed pods (replicas), weighted by
  priority. Exact: pools are independent, any layout choice per block is
  realisable, any y within the supply is realisable.
* Decode: layouts to blocks in name order, slices to devices in queue
  order; each claim is allocated by the allocator itself on a node that sees
  its device (the pool reduced to that device), then the whole answer is
  re-checked by the verifier."""

from __future__ import annotations

import itertools
import json
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from ortools.sat.python import cp_model

from dralloc.encoders.linear import require_int64
from dralloc.errors import AllocationError
from dralloc.features import Features
from dralloc.inventory.compat import declares_groups
from dralloc.inventory.nodesel import NodeSelectorError, node_matches
from dralloc.inventory.problem import build_problem
from dralloc.io import ObjectSet
from dralloc.models import Node, ResourceClaim, ResourceSlice
from dralloc.planner.view.demand import one_device_claim
from dralloc.planner.view.pods import PodDemand, PodsDemand
from dralloc.solver.search import run, tie_break

MAX_DEVICES = 24        # selectable devices per pool beyond which the joint model is used
MAX_LAYOUTS = 2000      # distinct kind multisets per pool beyond which the joint model is used
Kind = tuple[int, ...]  # claim types accepting a device
Layout = tuple[tuple[Kind, int], ...]


@dataclass
class BlockDevice:
    name: str
    kind: Kind
    use: dict[tuple[str, str], Fraction]     # (counter set, counter) -> amount
    nodes: list[str]                         # nodes that see it (name order)


@dataclass
class Block:
    pool: tuple[str, str]
    slices: list[ResourceSlice]
    devices: list[BlockDevice]
    left: dict[tuple[str, str], Fraction]    # counters not consumed by allocated devices
    layouts: dict[Layout, list[BlockDevice]] = field(default_factory=dict)   # maximal layout -> devices


@dataclass
class BlockProblem:
    types: list[str]                         # claim spec (JSON) per claim type
    pods: list[tuple[PodDemand, int, int]]   # (pod, claim type, weight of one replica) in queue order
    blocks: list[Block]


def _spec_key(claim: ResourceClaim) -> str:
    return json.dumps(claim.spec.model_dump(by_alias=True, exclude_none=True), sort_keys=True)


def _pods(demand: PodsDemand) -> tuple[list[str], list[tuple[PodDemand, int]]] | str:
    users = Counter(k for p in demand.pods for k in p.shared)
    types: dict[str, int] = {}
    out = []
    for p in demand.queue():
        if p.templates or len(p.shared) != 1:
            return f"pod {p.name} has template claims or not exactly one shared claim"
        claim = demand.shared[p.shared[0]]
        if users[claim.key] != 1 or (claim.status and claim.status.allocation) or not one_device_claim(claim):
            return f"claim {claim.key} is shared by several pods, allocated, or not one device"
        out.append((p, types.setdefault(_spec_key(claim), len(types))))
    return list(types), out


def _sees(node: Node, s: ResourceSlice) -> bool:
    spec = s.spec
    srcs = list(spec.devices or []) if spec.per_device_node_selection else [spec]
    try:
        return any(node_matches(node, x.node_name, x.all_nodes, x.node_selector) for x in srcs)
    except NodeSelectorError:
        return False


def _pool_devices(slices: list[ResourceSlice], nodes: Sequence[Node], probes: list[ResourceClaim],
                  objs: ObjectSet, allocated: list[ResourceClaim], features: Features) -> Block | str | None:
    """The block of one pool as the allocator sees it from each node."""
    found: dict[str, BlockDevice] = {}
    block: Block | None = None
    for node in nodes:
        if not any(_sees(node, s) for s in slices):
            continue
        try:
            problem = build_problem(slices, objs.classes, node, probes, allocated, features)
        except AllocationError as e:
            return f"node {node.name}: {e}"
        for pool in problem.pools:
            if not pool.usable:
                continue
            if block is None:
                block = Block(pool.id, slices, [], _left(pool, problem.state.devices))
            for pd in pool.devices:
                if problem.state.is_allocated(pd.id):
                    continue
                kind = tuple(t for t, plan in enumerate(problem.plans)
                             if plan.slots[0].plain is not None and problem.selectable(pd, plan.slots[0].plain))
                if not kind:
                    continue
                if pd.device.allow_multiple_allocations or pd.device.binding_conditions:
                    return f"device {pd.label} allows multiple allocations or has binding conditions"
                use = {(cs, n): v for cs, m in pd.consumption().items() for n, v in m.items()}
                dev = found.setdefault(pd.device.name, BlockDevice(pd.device.name, (), use, []))
                dev.kind = tuple(sorted(set(dev.kind) | set(kind)))
                dev.nodes.append(node.name)
    if block is None or not found:
        return None
    block.devices = list(found.values())
    return block


def _left(pool: object, held: set[tuple[str, str, str]]) -> dict[tuple[str, str], Fraction]:
    left = {(cs, n): v for cs, m in pool.counter_sets.items() for n, v in m.items()}  # type: ignore[attr-defined]
    devs = [d for s in pool.slices + pool.nontargeting for d in s.spec.devices or []]  # type: ignore[attr-defined]
    for d in devs:
        if (pool.driver, pool.name, d.name) in held:  # type: ignore[attr-defined]
            for cc in d.consumes_counters or []:
                for n, c in (cc.counters or {}).items():
                    left[cc.counter_set, n] = left.get((cc.counter_set, n), Fraction(0)) - c.value.value
    return left


def _layouts(block: Block) -> bool:
    """Maximal kind multisets of ``block`` with one device set each; False
    when there are too many."""
    seen: dict[Layout, list[BlockDevice]] = {}
    devs = block.devices

    def fits(chosen: list[BlockDevice], d: BlockDevice) -> bool:
        return all(sum((c.use.get(k, Fraction(0)) for c in chosen), v) <= block.left.get(k, Fraction(0))
                   for k, v in d.use.items())

    def walk(i: int, chosen: list[BlockDevice]) -> bool:
        if len(seen) > MAX_LAYOUTS:
            return False
        if i == len(devs):
            key = tuple(sorted(Counter(d.kind for d in chosen).items()))
            seen.setdefault(key, list(chosen))
            return True
        if fits(chosen, devs[i]) and not walk(i + 1, [*chosen, devs[i]]):
            return False
        return walk(i + 1, chosen)

    if len(devs) > MAX_DEVICES or not walk(0, []):
        return False
    keys = [dict(k) for k in seen]
    for key, chosen in seen.items():
        mine = dict(key)
        if not any(o != mine and all(o.get(k, 0) >= v for k, v in mine.items()) for o in keys):
            block.layouts[key] = chosen
    return True


def detect(objs: ObjectSet, demand: PodsDemand, features: Features, nodes: Sequence[Node],
           allocated: list[ResourceClaim]) -> BlockProblem | str:
    """The block problem, or why the demand or cluster does not have this shape."""
    got = _pods(demand)
    if isinstance(got, str):
        return got
    if features.compatibility_groups and _grouped(objs, allocated):
        return "compatibility groups decide which devices go together (the block model's layouts do not know them)"
    types, pods = got
    probes = [ResourceClaim.model_validate({"metadata": {"name": f"probe-{i}", "namespace": "default"},
                                            "spec": json.loads(t)}) for i, t in enumerate(types)]
    by_pool: dict[tuple[str, str], list[ResourceSlice]] = {}
    for s in objs.slices:
        by_pool.setdefault((s.spec.driver, s.spec.pool.name), []).append(s)
    blocks = []
    ordered = sorted(nodes, key=lambda n: n.name.encode())
    for key in sorted(by_pool):
        b = _pool_devices(by_pool[key], ordered, probes, objs, allocated, features)
        if isinstance(b, str):
            return b
        if b is None:
            continue
        if not _layouts(b):
            return f"pool {key[1]} has too many devices or layouts for the block model"
        blocks.append(b)
    return BlockProblem(types, [(p, t, demand.weight(p)) for p, t in pods], blocks)


def _grouped(objs: ObjectSet, allocated: list[ResourceClaim]) -> bool:
    """A device declares compatibility groups, or an allocation recorded some."""
    if any(declares_groups(d) for s in objs.slices for d in s.spec.devices or []):
        return True
    return any(r.compatibility_groups for c in allocated if c.status and c.status.allocation
               for r in (c.status.allocation.devices.results or [] if c.status.allocation.devices else []))


@dataclass
class BlockSolution:
    status: str
    value: int = 0
    bound: int = 0
    assign: list[tuple[PodDemand, Block, BlockDevice]] = field(default_factory=list)
    block_types: int = 0
    layouts: int = 0
    wall_time: float = 0.0
    why: str | None = None          # why the search ended unfinished (search.Ran.why)
    notes: list[str] = field(default_factory=list)


def solve(bp: BlockProblem, time_limit: float, workers: int) -> BlockSolution:
    """The pattern model (see the module doc) and its decoding to devices."""
    t0 = time.perf_counter()
    groups: dict[frozenset[Layout], list[Block]] = {}
    for b in bp.blocks:
        groups.setdefault(frozenset(b.layouts), []).append(b)
    btypes = list(groups.values())
    demand: dict[tuple[int, int, int, int], list[PodDemand]] = {}   # (type, replicas, priority, weight)
    for p, t, w in bp.pods:
        if p.replicas:
            demand.setdefault((t, p.replicas, p.priority, w), []).append(p)
    m = cp_model.CpModel()
    x = {(i, lay): m.new_int_var(0, len(bs), f"x[{i},{j}]")
         for i, bs in enumerate(btypes) for j, lay in enumerate(sorted(bs[0].layouts))}
    for i, bs in enumerate(btypes):
        m.add(sum(v for (j, _), v in x.items() if j == i) <= len(bs))
    kinds = sorted({k for lay in {lay for _, lay in x} for k, _ in lay})
    y = {(g, k): m.new_int_var(0, len(ps), f"y[{g},{k}]") for g, ps in demand.items() for k in kinds if g[0] in k}
    for g, ps in demand.items():
        m.add(sum(v for (h, _), v in y.items() if h == g) <= len(ps))
    for k in kinds:
        supply = sum(dict(lay).get(k, 0) * v for (_, lay), v in x.items())
        m.add(sum(v for (_, kk), v in y.items() if kk == k) <= supply)
    require_int64(sum(g[3] * g[1] * len(ps) for g, ps in demand.items()),
                  "the weighted pods of the block model (priority: each level outweighs all lower ones)")
    objective = sum(g[3] * g[1] * v for (g, _), v in y.items())
    m.maximize(objective)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    solver.parameters.max_time_in_seconds = time_limit
    ran = run(solver, m)
    code = ran.status
    out = BlockSolution(ran.name, block_types=len(btypes), layouts=len(x), why=ran.why, notes=ran.notes)
    if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        out.value, out.bound = round(solver.objective_value), round(solver.best_objective_bound)
        # the canonical answer among equally good ones: block types' layouts, then groups' kinds, in order
        canon, ok = tie_break(m, objective, True, out.value, code == cp_model.OPTIMAL,
                              [x[k] for k in sorted(x)] + [y[k] for k in sorted(y)], time_limit)
        solver = canon if ok else solver
        devices = _supply(btypes, {key: solver.value(v) for key, v in x.items()})
        for (g, k), v in sorted(y.items()):
            for _ in range(solver.value(v)):
                out.assign.append((demand[g].pop(0), *devices[k].pop(0)))
    out.assign.sort(key=lambda a: (-a[0].priority, a[0].order))
    out.wall_time = time.perf_counter() - t0
    return out


def _supply(btypes: list[list[Block]], x: dict[tuple[int, Layout], int]
            ) -> dict[Kind, list[tuple[Block, BlockDevice]]]:
    """Layouts handed to blocks in name order; per kind, its devices."""
    out: dict[Kind, list[tuple[Block, BlockDevice]]] = {}
    for i, bs in enumerate(btypes):
        todo = iter(sorted(bs, key=lambda b: b.pool))
        for (j, lay), n in sorted(x.items()):
            if j != i:
                continue
            for b in itertools.islice(todo, n):
                for d in b.layouts[lay]:
                    out.setdefault(d.kind, []).append((b, d))
    return out

