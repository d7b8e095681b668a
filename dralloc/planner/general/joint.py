"""One CP-SAT model placing the replicas of general pods over several nodes
(one independent part of the cluster at a time; see :mod:`.general`).

Per node, the solver's own encoding (:mod:`dralloc.encoders`, optional
claims) holds every replica that may go there and every pending shared claim
of those pods. ``z[r,n]``: replica r runs on node n, exactly when all its
template claims are allocated in n's encoding; a replica runs on at most one
node. ``s[S,n]``: shared claim S is allocated in n's encoding, on at most one
node. A replica on node m that uses S needs S allocated on m, or on some node
n with only devices a pod on m may use (network-attached or multi-host
devices). Across nodes: a device is held by at most one node's claims, and
counters of pools several nodes see (multi-host slices) are summed over all
nodes. Replicas of one pod are interchangeable: replica r+1 runs only if r
does. Objective: placed replicas weighted by priority."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

from ortools.sat.python import cp_model

from dralloc.encoders import choice, counters, devices
from dralloc.encoders.linear import NeedsReplay, OutOfRange, at_most, forbid, require_int64
from dralloc.encoders.model import Encoding, add_rules
from dralloc.errors import AllocationError
from dralloc.features import Features, Variant
from dralloc.inventory.nodesel import NodeSelectorError, node_matches
from dralloc.inventory.pools import PoolDevice
from dralloc.inventory.problem import build_problem
from dralloc.models import Node, ResourceClaim, ResourceSlice
from dralloc.planner.simulate.podsim import done
from dralloc.planner.view.pods import PodDemand
from dralloc.solver.cpsat import decode, fill
from dralloc.solver.outcome import Outcome, Status
from dralloc.solver.search import run, tie_break

Var = cp_model.IntVar


@dataclass(frozen=True)
class Replica:
    pod: PodDemand
    index: int
    weight: int

    @property
    def key(self) -> str:
        return f"{self.pod.name}#{self.index}"


@dataclass
class Part:
    """An independent part: replicas, their candidate nodes, shared claims."""

    replicas: list[Replica]
    nodes: list[Node]
    candidates: dict[str, list[str]]            # pod name -> candidate node names
    pending: dict[str, ResourceClaim]           # shared claims not allocated yet (key -> claim)


@dataclass
class PartResult:
    status: str
    value: int = 0
    bound: int = 0
    placed: dict[str, str] = field(default_factory=dict)                    # replica key -> node
    claims: dict[str, list[ResourceClaim]] = field(default_factory=dict)    # node -> claims allocated there
    wall_time: float = 0.0
    why: str | None = None          # why the search ended unfinished (search.Ran.why)
    notes: list[str] = field(default_factory=list)


@dataclass
class _NodeEnc:
    node: Node
    enc: Encoding
    slots: dict[str, list[int]]                 # replica key / shared key -> claim indices
    claims: list[ResourceClaim]


def reachable(pd: PoolDevice, node: Node) -> bool:
    """Whether a pod on ``node`` may use device ``pd`` (its slice's or, with
    per-device node selection, its own node selection)."""
    spec = pd.slice.spec
    src = pd.device if spec.per_device_node_selection else spec
    try:
        return node_matches(node, src.node_name, src.all_nodes, src.node_selector)
    except NodeSelectorError:
        return False


class JointModel:
    def __init__(self, part: Part, slices: dict[str, list[ResourceSlice]], classes: list[object],
                 allocated: list[ResourceClaim], features: Features, gangs: dict[str, int] | None = None) -> None:
        self.part = part
        self.slices = slices
        self.classes = classes
        self.allocated = allocated
        self.features = features
        self.variant: Variant = features.variant()
        self.m = cp_model.CpModel()
        self.encs: list[_NodeEnc] = []
        self.z: dict[tuple[str, str], Var] = {}
        self.s: dict[tuple[str, str], Var] = {}
        self.skipped: list[str] = []
        self.objective: cp_model.LinearExprT = 0
        self.gangs = gangs or {}                 # gang -> pods it needs placed together
        # called with each node's encoding before its constraints are added
        # (make-room registers the devices of claims it may release)
        self.on_encoding: Callable[[Node, Encoding], None] | None = None

    def _encode(self, node: Node) -> None:
        here = [r for r in self.part.replicas if node.name in self.part.candidates[r.pod.name]]
        claims: list[ResourceClaim] = []
        slots: dict[str, list[int]] = {}
        for r in here:
            inst = r.pod.instances(r.index)
            slots[r.key] = list(range(len(claims), len(claims) + len(inst)))
            claims.extend(inst)
        for key in sorted({k for r in here for k in r.pod.shared if k in self.part.pending}):
            slots[key] = [len(claims)]
            claims.append(self.part.pending[key])
        try:
            problem = build_problem(self.slices.get(node.name, self.slices[""]), self.classes,  # type: ignore[arg-type]
                                    node, claims, self.allocated, self.features, self.variant)
            enc = Encoding(problem, self.m, optional_claims=True)
            if self.on_encoding is not None:
                self.on_encoding(node, enc)
            choice.add_choices(enc)
            add_rules(enc)
        except (AllocationError, NeedsReplay) as e:
            self.skipped.append(f"node {node.name}: {e}")
            return
        self.encs.append(_NodeEnc(node, enc, slots, claims))

    def build(self) -> None:
        """The constraints, and the objective: replicas placed, by weight."""
        self.constrain()
        w = {r.key: r.weight for r in self.part.replicas}
        require_int64(sum(w.values()), "the priority weights of the pods placed together (each priority "
                      "level outweighs all lower ones)")
        self.objective = sum(w[k] * v for (k, _), v in self.z.items())
        self.m.maximize(self.objective)

    def constrain(self) -> None:
        """Every node's encoding and the constraints across them (no objective)."""
        for node in self.part.nodes:
            self._encode(node)
        for ne in self.encs:
            for key, idx in ne.slots.items():
                if key in self.part.pending:
                    self.s[key, ne.node.name] = ne.enc.sat[idx[0]]
                    continue
                lit = self.z[key, ne.node.name] = self.m.new_bool_var(f"z[{key}@{ne.node.name}]")
                for c in idx:
                    self.m.add(ne.enc.sat[c] == lit)
        self._at_most_once()
        self._gangs()
        self._shared_claims()
        self._across_nodes()

    def order(self) -> list[Var]:
        """The tie-break order: replicas in demand order, each on the nodes in
        order; the shared claims; then each node's choices in Kubernetes'
        search order."""
        out = [self.z[r.key, n.name] for r in self.part.replicas for n in self.part.nodes
               if (r.key, n.name) in self.z]
        out += [self.s[k] for k in sorted(self.s)]
        for ne in self.encs:
            out.extend(ne.enc.decision_order())
        return out

    def placed_var(self, key: str) -> cp_model.LinearExprT:
        return sum(v for (k, _), v in self.z.items() if k == key)

    def _at_most_once(self) -> None:
        by_key: dict[str, list[Var]] = {}
        for (k, _), v in self.z.items():
            by_key.setdefault(k, []).append(v)
        for (k, _), v in self.s.items():
            by_key.setdefault(k, []).append(v)
        for vs in by_key.values():
            self.m.add_at_most_one(vs)
        for a, b in itertools.pairwise(self.part.replicas):
            if a.pod is b.pod:   # interchangeable replicas: fill them in order
                self.m.add(self.placed_var(a.key) >= self.placed_var(b.key))

    def _gangs(self) -> None:
        """A gang's replicas run only if at least its minimum does."""
        for g, needed in sorted(self.gangs.items()):
            mine = [v for r in self.part.replicas if r.pod.gang == g
                    for (k, _), v in self.z.items() if k == r.key]
            if not mine:
                continue
            on = self.m.new_bool_var(f"gang[{g}]")
            for v in mine:
                self.m.add_implication(v, on)
            self.m.add(sum(mine) >= needed * on)

    def _visible(self, key: str, ne: _NodeEnc, target: Node) -> Var | None:
        """A literal: S allocated in ``ne`` with devices a pod on ``target`` may use."""
        s = self.s[key, ne.node.name]
        if ne.node.name == target.name:
            return s
        opts = ne.enc.options_of(ne.slots[key][0])
        devs = [(pd, v) for o in opts for pd, v in o.devices]
        if not any(reachable(pd, target) for pd, _ in devs):
            return None
        lit = self.m.new_bool_var(f"vis[{key}|{ne.node.name}->{target.name}]")
        self.m.add_implication(lit, s)
        for pd, v in devs:
            if not reachable(pd, target):
                self.m.add_bool_or([lit.Not(), v.Not()])
        return lit

    def _shared_claims(self) -> None:
        users: dict[str, list[Var]] = {}
        for r in self.part.replicas:
            for key in r.pod.shared:
                if key not in self.part.pending:
                    continue
                for ne in self.encs:
                    z = self.z.get((r.key, ne.node.name))
                    if z is None:
                        continue
                    users.setdefault(key, []).append(z)
                    vis = [lit for other in self.encs if (key, other.node.name) in self.s
                           if (lit := self._visible(key, other, ne.node)) is not None]
                    self.m.add(z <= sum(vis))
        for (key, _), s in self.s.items():
            self.m.add(s <= sum(users.get(key, [])))   # no claim allocated for nobody

    def _across_nodes(self) -> None:
        held: dict[tuple[str, str, str], list[tuple[PoolDevice, Var]]] = {}
        for ne in self.encs:
            for pd, uses in ne.enc.uses_of_device().values():
                if devices._is_multi(ne.enc, pd):
                    continue
                normal = [v for o, v in uses if not o.spec.admin]
                if normal:
                    u = self.m.new_bool_var(f"holds[{ne.node.name}|{pd.label}]")
                    self.m.add_max_equality(u, normal)
                    held.setdefault(pd.id, []).append((pd, u))
        pools: dict[tuple[str, str], list[tuple[PoolDevice, Var]]] = {}
        for hs in held.values():
            if len(hs) > 1:
                self.m.add_at_most_one([u for _, u in hs])
            for pd, u in hs:
                pools.setdefault(pd.pool.id, []).append((pd, u))
        for items in pools.values():
            if len({id(pd.pool) for pd, _ in items}) > 1:
                self._shared_counters(items)

    def _shared_counters(self, items: list[tuple[PoolDevice, Var]]) -> None:
        """A pool seen from several nodes: its counters bound the devices held
        on all of them together."""
        pool = items[0][0].pool
        ne = next(n for n in self.encs if any(p is pool for p in n.enc.problem.pools))
        for cs, names in counters.available_counters(pool, ne.enc).items():
            for name, value in names.items():
                terms = [(pd.consumption().get(cs, {}).get(name, Fraction(0)), u) for pd, u in items]
                terms = [(a, u) for a, u in terms if a]
                if not terms:
                    continue
                label = f"counter {pool.driver}/{pool.name}/{cs}/{name} across nodes"
                if value < 0:
                    forbid(self.m, [u for _, u in terms], [])
                    continue
                try:
                    at_most(self.m, terms, value, [], label)
                except OutOfRange as e:   # the verifier re-checks every part's answer
                    self.skipped.append(f"{e}; not coupled in the model")

    def hint(self, placed: dict[str, str]) -> None:
        for (k, n), v in self.z.items():
            self.m.add_hint(v, placed.get(k) == n)

    def solve(self, time_limit: float, workers: int) -> PartResult:
        t0 = time.perf_counter()
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = workers
        solver.parameters.max_time_in_seconds = time_limit
        ran = run(solver, self.m)
        code = ran.status
        res = PartResult(ran.name, why=ran.why, notes=ran.notes)
        if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            res.bound = round(solver.best_objective_bound)
            res.value = round(solver.objective_value)
            canon, ok = tie_break(self.m, self.objective, True, res.value, code == cp_model.OPTIMAL,
                                  self.order(), time_limit)
            self.decode(canon if ok else solver, res)
        res.wall_time = time.perf_counter() - t0
        return res

    def decode(self, solver: cp_model.CpSolver, res: PartResult) -> None:
        for ne in self.encs:
            out = Outcome(Status.ERROR, "optimal", ne.node.name, [])
            fill(out, ne.enc, *decode(ne.enc, solver))
            assert out.allocations is not None
            mine: list[ResourceClaim] = []
            for key, idx in ne.slots.items():
                lit = self.s.get((key, ne.node.name)) if key in self.part.pending else self.z.get((key, ne.node.name))
                if lit is None or not solver.boolean_value(lit):
                    continue
                if key not in self.part.pending:
                    res.placed[key] = ne.node.name
                mine.extend(done(ne.claims[i], out.allocations[i]) for i in idx)
            if mine:
                res.claims[ne.node.name] = mine
