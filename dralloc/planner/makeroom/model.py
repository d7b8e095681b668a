"""One CP-SAT model of making room on a region of the cluster.

Built on the joint model's per-node encodings (:class:`JointModel`: the
allocator's own encoding of every pod that may go to a node). On the
region's nodes the claims of pods that may be disrupted are left out of the
allocated state; their devices are *held* while ``keep[c]`` is true (a
claim is kept while any pod using it stays). Variables and rules:

* ``stay[p]`` for every pod that may be disrupted (below the work's
  priority, its eviction not refused); ``d[p] = not stay[p]``;
* the work: every pending pod placed (a gang: at least the pods it needs),
  in the region (``z``) or, when the search relaxes the rest of the cluster,
  on a *proxy* group of outside nodes (at most ``cap`` pods of a shape per
  node, each node used costing at least its ``floor``);
* move mode: a disrupted pod is placed again (any node of the model, its
  own included), a pod that stays is not;
* a running gang: either at least ``minCount`` of its pods stay, or all go
  (``broken[G]``, every member counted);
* a PodDisruptionBudget: at most ``allowed`` of the pods it counts go;
* objective: the cost of the disrupted pods (1 each, or priority weights)
  plus the proxies' floors, then fewer pods on proxies, then more of a
  gang's optional pods placed."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from dralloc.encoders.base import Encoding
from dralloc.encoders.linear import require_int64
from dralloc.features import Features
from dralloc.inventory.compat import recorded_groups
from dralloc.io import ObjectSet
from dralloc.models import Node, ResourceClaim
from dralloc.planner.general.joint import JointModel, Part, PartResult, Replica
from dralloc.planner.makeroom.budgets import Budgets
from dralloc.planner.makeroom.running import Running
from dralloc.planner.makeroom.work import Work
from dralloc.planner.view.pods import PodDemand
from dralloc.solver.search import deterministic, run, tie_break

Var = cp_model.IntVar


@dataclass
class Proxy:
    """Outside nodes alike for the relaxation: each hosts at most ``cap``
    pods of a shape and costs at least ``floor`` when used."""

    floor: int
    cap: dict[str, int]
    nodes: list[str]


@dataclass
class Setup:
    """What does not change from one region to the next."""

    objs: ObjectSet
    features: Features
    running: Running
    budgets: Budgets
    work: Work
    mode: str                                  # "evict" or "move"
    weight: dict[str, int]                     # pod -> cost of disrupting it (the pods that may be)
    shapes: dict[str, str]                     # pending or movable pod name -> shape
    movers: dict[str, PodDemand] = field(default_factory=dict)   # move mode: pod -> its claims as a demand
    relaxed: bool = False                      # priorities left out (to say what blocks a plan)


@dataclass
class RoomResult:
    status: str
    cost: int = 0
    bound: int = 0                             # proven floor of the cost (over this model)
    disrupted: list[str] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)
    placed: dict[str, str] = field(default_factory=dict)        # replica -> node
    moved: dict[str, str] = field(default_factory=dict)         # pod -> node
    claims: dict[str, list[ResourceClaim]] = field(default_factory=dict)
    proxies: dict[int, int] = field(default_factory=dict)       # proxy group -> nodes used
    seconds: float = 0.0
    why: str | None = None                                      # why CP-SAT stopped first (search.Ran.why)

    @property
    def feasible(self) -> bool:
        return self.status in ("OPTIMAL", "FEASIBLE")


class RoomModel:
    def __init__(self, setup: Setup, region: list[Node], dests: list[Node], cands: dict[str, list[str]],
                 proxies: list[Proxy]) -> None:
        self.s = setup
        self.region = {n.name for n in region}
        self.proxies = proxies
        run = setup.running
        self.vars_pods = sorted(p for p in setup.weight if run.pods[p].node in self.region)
        self.releasable = {k for k, c in run.claims.items()
                           if not c.shares and all(u in setup.weight and run.pods[u].node in self.region
                                                   for u in c.users)}
        allocated = [c for c in setup.objs.claims if c.status and c.status.allocation and c.key not in self.releasable]
        reps = [Replica(p, r, 1) for p in setup.work.demand.queue() for r in range(p.replicas)]
        if setup.mode == "move":
            reps += [Replica(setup.movers[p], 0, 1) for p in self.vars_pods if p in setup.movers]
        pending = {k: c for k, c in setup.work.demand.shared.items() if not (c.status and c.status.allocation)}
        nodes = sorted([*region, *dests], key=lambda n: n.name.encode())
        from dralloc.planner.simulate.podsim import NodeObjects
        self.per_node = NodeObjects(setup.objs)
        self.jm = JointModel(Part(reps, nodes, cands, pending), self.per_node.slices, list(setup.objs.classes),
                             allocated, setup.features)
        self.m = self.jm.m
        self.stay = {p: self.m.new_bool_var(f"stay[{p}]") for p in self.vars_pods}
        self.keep = {k: self.m.new_bool_var(f"keep[{k}]") for k in sorted(self.releasable)}
        self.broken: dict[str, Var] = {}
        self.px: dict[str, Var] = {}
        self.used: dict[int, Var] = {}
        self.cost: cp_model.LinearExprT = 0
        self.objective: cp_model.LinearExprT = 0
        self.jm.on_encoding = self._hold
        self.work_prio = {f"{p.name}#{r}": p.priority for p in setup.work.demand.pods for r in range(p.replicas)}

    def _hold(self, node: Node, enc: Encoding) -> None:
        """The devices of claims the model may release are held while kept."""
        for pool in enc.problem.pools:
            for pd in pool.devices:
                holder = self.s.running.holders.get(pd.id)
                if holder in self.keep:
                    enc.hold(pd, self.keep[holder], recorded_groups(self.s.running.claims[holder].claim, pd.id))

    def build(self) -> None:
        self.jm.constrain()
        self._claims()
        self._work()
        self._gangs()
        self._budgets()
        if not self.s.relaxed:
            self._preemption()
        if self.s.mode == "move":
            for p in self.vars_pods:
                if p in self.s.movers:
                    self.m.add(cp_model.LinearExpr.sum([self.jm.placed_var(p + "#0"), self.stay[p]]) == 1)
                else:
                    self.m.add(self.stay[p] == 1)
        self._objective()

    def _claims(self) -> None:
        """A claim is kept exactly while some pod using it stays."""
        for k, keep in self.keep.items():
            users = [self.stay[u] for u in self.s.running.claims[k].users]
            for u in users:
                self.m.add_implication(u, keep)
            self.m.add(keep <= sum(users))

    def _work(self) -> None:
        demand = self.s.work.demand
        shapes_px: dict[str, list[Var]] = {}
        gang_sum: dict[str, list[cp_model.LinearExprT]] = {}
        for p in demand.queue():
            for r in range(p.replicas):
                key = f"{p.name}#{r}"
                placed: cp_model.LinearExpr = cp_model.LinearExpr.sum([self.jm.placed_var(key)])
                shape = self.s.shapes[p.name]
                if any(shape in px.cap for px in self.proxies):
                    self.px[key] = self.m.new_bool_var(f"proxy[{key}]")
                    shapes_px.setdefault(shape, []).append(self.px[key])
                    placed = placed + self.px[key]
                if p.gang is None:
                    self.m.add(placed == 1)
                else:
                    self.m.add(placed <= 1)
                    gang_sum.setdefault(p.gang, []).append(placed)
        for g, terms in gang_sum.items():
            self.m.add(sum(terms) >= demand.gangs[g].needed)
        self._proxies(shapes_px)

    def _proxies(self, shapes_px: dict[str, list[Var]]) -> None:
        on: dict[str, list[cp_model.LinearExprT]] = {}
        for i, px in enumerate(self.proxies):
            n = len(px.nodes)
            self.used[i] = self.m.new_int_var(0, n, f"proxyNodes[{i}]")
            for shape, cap in sorted(px.cap.items()):
                if shape not in shapes_px:
                    continue
                y = self.m.new_int_var(0, cap * n, f"proxyPods[{i}|{len(on)}]")
                self.m.add(y <= cap * self.used[i])
                on.setdefault(shape, []).append(y)
        for shape, lits in shapes_px.items():
            self.m.add(sum(lits) == sum(on.get(shape, [])))

    def _gangs(self) -> None:
        run = self.s.running
        for g, gang in sorted(run.gangs.items()):
            mine = [m for m in gang.running if m in self.stay]
            if not mine:
                continue
            n = len(gang.running)
            gone = sum(1 - self.stay[m] for m in mine)
            if len(mine) < n:        # some member cannot go: the gang may lose only what its minimum spares
                self.m.add(gone <= max(0, n - (gang.min_count or n)))
                continue
            b = self.broken[g] = self.m.new_bool_var(f"broken[{g}]")
            for m in mine:
                self.m.add_implication(b, self.stay[m].Not())
            self.m.add(gone <= max(0, n - (gang.min_count or n)) + n * b)

    def _higher(self, node: str, priority: int) -> list[Var]:
        """Placements of the work's pods of priority above ``priority`` on ``node``."""
        return [v for (k, n), v in self.jm.z.items() if n == node and k in self.work_prio
                and self.work_prio[k] > priority]

    def _preemption(self) -> None:
        """A pod goes only to make room on its node for a pod of the work of
        higher priority (or with its gang, broken for one)."""
        run = self.s.running
        for p, stay in self.stay.items():
            rp = run.pods[p]
            broken = self.broken.get(rp.gang) if rp.gang is not None else None
            self.m.add_bool_or([stay, *self._higher(rp.node, rp.priority), *([broken] if broken is not None else [])])
        for g, b in self.broken.items():
            members = run.gangs[g].running
            top = max(run.pods[m].priority for m in members)
            self.m.add_bool_or([b.Not(), *[v for m in members for v in self._higher(run.pods[m].node, top)]])

    def _budgets(self) -> None:
        for b in self.s.budgets.budgets:
            mine = [p for p in b.pods if p in self.stay and b.key in self.s.budgets.of_pod.get(p, [])]
            if mine and len(mine) > b.allowed:
                self.m.add(sum(1 - self.stay[p] for p in mine) <= b.allowed)

    def _objective(self) -> None:
        w = self.s.weight
        self.cost = sum(w[p] * (1 - v) for p, v in self.stay.items()) + \
            sum(self.proxies[i].floor * u for i, u in self.used.items())
        optional = [self.jm.placed_var(f"{p.name}#{r}") for p in self.s.work.demand.pods if p.gang is not None
                    for r in range(p.replicas)]
        self.b_weight = len(optional) + 1
        self.a_weight = self.b_weight * (len(self.px) + 1)
        require_int64((sum(w.values()) + sum(px.floor * len(px.nodes) for px in self.proxies)) * self.a_weight,
                      "the cost of disrupting every pod that may be")
        self.objective = cp_model.LinearExpr.weighted_sum(
            [self.cost, *self.px.values(), *optional],
            [self.a_weight, *[self.b_weight] * len(self.px), *[-1] * len(optional)])
        self.m.minimize(self.objective)

    def order(self) -> list[Var]:
        """Tie-break: keep pods in name order, then the joint model's order."""
        return [self.stay[p] for p in self.vars_pods] + self.jm.order()

    def solve(self, time_limit: float, workers: int) -> RoomResult:
        t0 = time.perf_counter()
        solver = deterministic(self.m, workers, max(time_limit, 0.01))
        ran = run(solver, self.m)
        code = ran.status
        res = RoomResult(ran.name, why=ran.why)
        if code == cp_model.INFEASIBLE:
            res.seconds = time.perf_counter() - t0
            return res
        lower = (round(solver.best_objective_bound) - len(self.px) * self.b_weight)
        res.bound = max(0, -(-lower // self.a_weight))
        if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            value = round(solver.objective_value)
            left = max(0.01, time_limit - (time.perf_counter() - t0))
            canon, ok = tie_break(self.m, self.objective, False, value, code == cp_model.OPTIMAL, self.order(), left)
            self._decode(canon if ok else solver, res)
            if code == cp_model.OPTIMAL:
                res.bound = res.cost
        res.seconds = time.perf_counter() - t0
        return res

    def _decode(self, solver: cp_model.CpSolver, res: RoomResult) -> None:
        res.cost = int(solver.value(self.cost))
        res.disrupted = [p for p, v in self.stay.items() if not solver.boolean_value(v)]
        res.broken = [g for g, v in self.broken.items() if solver.boolean_value(v)]
        res.proxies = {i: int(solver.value(u)) for i, u in self.used.items() if solver.value(u)}
        part = PartResult(res.status)
        self.jm.decode(solver, part)
        res.claims = part.claims
        for key, node in part.placed.items():
            pod = key.rpartition("#")[0]
            if pod in self.s.movers and self.s.mode == "move" and pod in self.stay:
                res.moved[pod] = node
            else:
                res.placed[key] = node
