"""Pricing: the best configuration of one node type for given prices.

A *configuration* is what one node holds together: pods per shape and
bundles (shared claims plus the pods using them). Whether a configuration
fits is decided by the allocator's own per-node encoding
(:mod:`dralloc.encoders`: candidates from the class and claim selectors,
devices held once, counters, matchAttribute / distinctAttribute) on the
type's first node, with optional claims:

* a shape whose pod has one claim asking for one device is one *counted*
  claim (its devices form a set, one pod per device);
* any other shape is ``u`` copies of the pod's claims, ``u`` a bound from
  the candidates (pods take distinct devices), filled in order (copy i+1
  only if copy i) and ordered by the devices they take (symmetry);
* a bundle copy is its shared claims plus its members' claims; members only
  if the shared claims are allocated, at least the bundle's minimum.

The objective is the prices (integers) of what the node holds; CP-SAT's
proven bound on it is what makes the master's bound valid."""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, cast

from ortools.sat.python import cp_model

from dralloc.encoders import choice
from dralloc.encoders.model import Encoding, add_rules
from dralloc.errors import AllocationError, DrallocError, InputError
from dralloc.features import Features
from dralloc.inventory.problem import build_problem
from dralloc.models import ObjectMeta, ResourceClaim, ResourceSlice
from dralloc.planner.mixed.items import Items
from dralloc.planner.mixed.nodetypes import NodeType
from dralloc.solver.search import deterministic, run

Members = tuple[int, ...]                        # pods per slot of a bundle copy


@dataclass(frozen=True)
class Config:
    """What one node of ``type`` holds: pods per shape, and bundle copies
    (bundle type, members per slot)."""

    type: int
    shapes: tuple[tuple[int, int], ...] = ()
    bundles: tuple[tuple[int, Members], ...] = ()

    def pods(self, shape: int) -> int:
        return next((n for s, n in self.shapes if s == shape), 0)

    def bundle_count(self, b: int) -> int:
        return sum(1 for t, _ in self.bundles if t == b)

    def value(self, items: Items) -> int:
        """The weighted pods of its bundles (plain pods count in the master)."""
        return sum(n * items.bundles[b].slots[i][0][1] for b, ms in self.bundles for i, n in enumerate(ms))


@dataclass
class Prices:
    scale: int                                   # prices are integers: value x scale
    shape: dict[int, int] = field(default_factory=dict)
    bundle: dict[int, int] = field(default_factory=dict)   # price of placing one bundle of the type


@dataclass
class PriceResult:
    bound: int | None                            # proven upper bound on the best configuration's price
                                                 # (None: the search found nothing in time, no bound)
    configs: list[tuple[int, Config]]            # (price, configuration) found, best first
    status: str
    seconds: float


def _copy(claim: ResourceClaim, name: str) -> ResourceClaim:
    return claim.model_copy(update={"metadata": ObjectMeta(name=name, namespace=claim.metadata.namespace or "default"),
                                    "status": None})


def _countable(claims: Sequence[ResourceClaim]) -> bool:
    if len(claims) != 1 or not claims[0].spec.devices:
        return False
    d = claims[0].spec.devices
    reqs = d.requests or []
    if len(reqs) != 1 or d.constraints or reqs[0].exactly is None:
        return False
    ex = reqs[0].exactly
    return (ex.allocation_mode or "ExactCount") == "ExactCount" and (ex.count or 1) == 1 and not ex.admin_access


@dataclass
class _Copy:
    active: cp_model.IntVar
    claims: list[int]


@dataclass
class _Bundle:
    b: int
    active: cp_model.IntVar
    claims: list[int]
    members: list[cp_model.LinearExprT]          # pods per slot


class Pricer:
    """The configuration model of one node type, built once; ``price`` re-solves
    it with new prices."""

    def __init__(self, t: NodeType, items: Items, slices: list[ResourceSlice], classes: Sequence[object],
                 allocated: Sequence[ResourceClaim], features: Features, model: cp_model.CpModel | None = None) -> None:
        self.t, self.items = t, items
        self.slices, self.classes, self.allocated, self.features = slices, classes, list(allocated), features
        self.shapes = [s.id for s in items.shapes if s.claims and s.needs <= t.visible]
        self.bundle_types = [b for b, bt in enumerate(items.bundles)
                             if all(items.shapes[s].needs <= t.visible for (s, _), _n in bt.slots)]
        caps = self._caps([items.shapes[s].claims for s in self.shapes]
                          + [items.bundles[b].claims for b in self.bundle_types])
        self.caps = {s: min(c, items.demand_of(s)) for s, c in zip(self.shapes, caps, strict=False)}
        self.bundle_caps = {b: min(c, len(items.bundles[b].groups))
                            for b, c in zip(self.bundle_types, caps[len(self.shapes):], strict=True)}
        self.claims: list[ResourceClaim] = []
        self.counted: dict[int, int] = {}
        self.pods: dict[int, list[cp_model.LinearExprT]] = {}
        self.units: dict[int, tuple[str, object]] = {}
        self.bundles: list[_Bundle] = []
        self.m = model if model is not None else cp_model.CpModel()
        self._build()

    def _problem(self, claims: list[ResourceClaim]) -> Encoding:
        try:
            problem = build_problem(self.slices, self.classes, self.t.rep, claims, self.allocated,  # type: ignore[arg-type]
                                    self.features)
        except AllocationError as e:
            raise InputError(f"node {self.t.rep.name}: {e}") from None
        return Encoding(problem, cp_model.CpModel(), optional_claims=True)

    def _caps(self, units: list[tuple[ResourceClaim, ...]]) -> list[int]:
        """Per unit (claims allocated together), an upper bound on how many
        fit on one node: requests take distinct devices, so the requests whose
        candidates lie in a set C need no more devices than C holds."""
        enc = self._problem([c for u in units for c in u])
        out, at = [], 0
        for u in units:
            need: list[tuple[frozenset[object], int]] = []
            for plan in enc.problem.plans[at:at + len(u)]:
                for slot in plan.slots:
                    cands = frozenset(pd.id for o in slot.options for pd in choice.candidates(enc, o))
                    need.append((cands, slot.minimum()))
            at += len(u)
            cap = 10**9
            for cset, _ in need:
                total = sum(k for c, k in need if c <= cset)
                if total:
                    cap = min(cap, len(cset) // total)
            out.append(cap)
        return out

    def _add(self, claims: Sequence[ResourceClaim], tag: str) -> list[int]:
        first = len(self.claims)
        self.claims.extend(_copy(c, f"{tag}-{i}") for i, c in enumerate(claims))
        return list(range(first, len(self.claims)))

    def _unit(self, claims: tuple[ResourceClaim, ...], most: int, tag: str) -> tuple[str, object]:
        """Claims for up to ``most`` pods of one shape: counted, or copies."""
        if not claims:
            return "free", most
        if _countable(claims):
            idx = self._add(claims, tag)[0]
            self.counted[idx] = most
            return "count", idx
        return "copies", [self._add(claims, f"{tag}c{j}") for j in range(most)]

    def _build(self) -> None:
        plain = [(s, self._unit(self.items.shapes[s].claims, self.caps[s], f"s{s}"))
                 for s in self.shapes if self.caps[s] > 0]
        layout = []
        for b in self.bundle_types:
            bt = self.items.bundles[b]
            for j in range(self.bundle_caps[b]):
                layout.append((b, self._add(bt.claims, f"b{b}c{j}"),
                               [self._unit(self.items.shapes[s].claims, n, f"b{b}c{j}s{k}")
                                for k, ((s, _), n) in enumerate(bt.slots)]))
        enc = self.enc = Encoding(self._problem(self.claims).problem, self.m, optional_claims=True,
                                  counted=self.counted)
        choice.add_choices(enc)
        add_rules(enc)
        for s, unit in plain:
            self.pods[s] = [self._members(unit, None)]
            self.units[s] = unit
        for b, claims, slots in layout:
            self._bundle(b, claims, slots)

    def _members(self, unit: tuple[str, object], under: cp_model.IntVar | None) -> cp_model.LinearExprT:
        """Pods of one unit (only while ``under`` holds, when given)."""
        enc, m = self.enc, self.m
        kind, data = unit
        if kind == "free":
            v = m.new_int_var(0, int(data), "free")  # type: ignore[call-overload]
            if under is not None:
                m.add(v <= int(data) * under)  # type: ignore[call-overload]
            return v
        if kind == "count":
            if under is not None:
                m.add_implication(enc.sat[int(data)], under)  # type: ignore[call-overload]
            return enc.counts[int(data)]  # type: ignore[call-overload]
        cs = [_Copy(enc.sat[c[0]], c) for c in data]  # type: ignore[attr-defined]
        for c in cs:
            for i in c.claims[1:]:
                m.add(enc.sat[i] == c.active)
            if under is not None:
                m.add_implication(c.active, under)
        for a, b in itertools.pairwise(cs):
            m.add(a.active >= b.active)
            m.add(self._order(a) <= self._order(b)).only_enforce_if(b.active)
        return sum(c.active for c in cs)

    def _order(self, c: _Copy) -> cp_model.LinearExprT:
        """A number that tells apart the devices a copy takes (its first request's)."""
        if not hasattr(self, "_pos"):
            self._pos = {pd.id: k for k, pd in enumerate(pd for pool in self.enc.problem.pools for pd in pool.devices)}
        first = [o for o in self.enc.options_of(c.claims[0]) if o.key[1] == 0]
        return sum(self._pos.get(pd.id, 0) * v for o in first for pd, v in o.devices)

    def _bundle(self, b: int, claims: list[int], slots: list[tuple[str, object]]) -> None:
        enc, m = self.enc, self.m
        active = enc.sat[claims[0]]
        for i in claims[1:]:
            m.add(enc.sat[i] == active)
        members = [self._members(unit, active) for unit in slots]
        m.add(sum(members) >= self.items.bundles[b].needed * active)
        same = [x for x in self.bundles if x.b == b]
        if same:
            m.add(same[-1].active >= active)
        self.bundles.append(_Bundle(b, active, claims, members))

    def hint(self, c: Config) -> None:
        """Start from configuration ``c``'s pod counts (devices left to the search)."""
        for s, (kind, data) in self.units.items():
            n = c.pods(s)
            if kind == "count":
                self.m.add_hint(self.enc.counts[int(data)], n)  # type: ignore[call-overload]
            elif kind == "copies":
                copies = cast(list[list[int]], data)
                for j, claims in enumerate(copies):
                    self.m.add_hint(self.enc.sat[claims[0]], j < n)

    # ----- solving
    def objective(self, prices: Prices) -> cp_model.LinearExprT:
        terms: list[cp_model.LinearExprT] = []
        for s, exprs in self.pods.items():
            if prices.shape.get(s, 0):
                terms.extend(prices.shape[s] * e for e in exprs)
        for bd in self.bundles:
            slots = self.items.bundles[bd.b].slots
            terms.extend(prices.scale * w * e for ((_, w), _n), e in zip(slots, bd.members, strict=True))
            terms.append(-prices.bundle.get(bd.b, 0) * bd.active)
        return sum(terms)

    def config(self, solver: cp_model.CpSolver | _Values) -> Config:
        shapes = tuple(sorted((s, n) for s, exprs in self.pods.items()
                              if (n := sum(int(solver.value(e)) for e in exprs))))
        bundles = tuple(sorted((bd.b, tuple(int(solver.value(e)) for e in bd.members))
                               for bd in self.bundles if solver.value(bd.active)))
        return Config(self.t.id, shapes, bundles)

    def price(self, prices: Prices, time_limit: float) -> PriceResult:
        """The best configuration at these prices, with every improving one
        met on the way (more columns per round). One search thread: the
        improving solutions a racing or interleaved search reports depend on
        which of its workers finishes first, and so would the columns."""
        t0 = time.perf_counter()
        self.m.clear_objective()
        obj = self.objective(prices)
        self.m.maximize(obj)
        solver = deterministic(self.m, 1, max(0.05, time_limit))
        found = _Collect(self, obj)
        ran = run(solver, self.m, found)
        status, code = ran.name, ran.status
        if code in (cp_model.INFEASIBLE, cp_model.MODEL_INVALID):   # holding nothing is always a configuration
            raise DrallocError(f"node {self.t.rep.name}: the configuration model is {status} (a dralloc bug)")
        if code == cp_model.UNKNOWN:   # nothing found in time: no column, no bound this round
            return PriceResult(None, [], status, time.perf_counter() - t0)
        best = round(solver.best_objective_bound) if code != cp_model.OPTIMAL else \
            round(solver.objective_value)
        configs = sorted(found.seen.items(), key=lambda kv: -kv[1])
        return PriceResult(best, [(v, c) for c, v in configs], status, time.perf_counter() - t0)


class _Values(Protocol):
    def value(self, e: cp_model.LinearExprT) -> int: ...


class _Collect(cp_model.CpSolverSolutionCallback):
    """Every improving configuration the search meets."""

    def __init__(self, pricer: Pricer, obj: cp_model.LinearExprT) -> None:
        super().__init__()
        self.pricer, self.obj = pricer, obj
        self.seen: dict[Config, int] = {}

    def on_solution_callback(self) -> None:
        self.seen[self.pricer.config(self)] = int(self.value(self.obj))  # type: ignore[arg-type]
