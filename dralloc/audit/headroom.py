"""How many more claims of a shape a node can still take, exactly: beyond
what a ResourcePoolStatusRequest reports (:mod:`dralloc.audit.poolstatus`),
the largest number of copies of the shape the allocator's rules admit
together on the node, given what its allocated claims already hold --
shared counters (a MIG partition's memory slices, engines, memory),
partitions, placement, consumable capacity, compatibility groups, taints,
selectors and constraints, all through the allocator's own per-node encoding
(:mod:`dralloc.encoders`), maximised by CP-SAT.

A shape whose claim asks for one device (no constraint, no admin access, no
shared device among its candidates) is one *counted* claim: its candidate
devices form a set, one copy per device. Any other shape is copies of its
claim, filled in order (copy i+1 only with copy i). The number of copies
modelled is bounded by the devices the copies need (a copy takes distinct
devices from every other, except shares of a device that allows multiple
allocations); a bound above :data:`MAX_COPIES` is cut there and the answer
then says "at least".

Every answer says how it was established: ``proven`` (CP-SAT proved the
maximum), ``at least N, at most M`` when the time limit stopped the search
(not decided), or why the shape cannot be asked on the node at all (the
allocator refuses the claim there: an error of Kubernetes' own)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from dralloc.encoders import choice
from dralloc.encoders.linear import NeedsReplay
from dralloc.encoders.model import Encoding, add_rules
from dralloc.errors import AllocationError
from dralloc.features import Features
from dralloc.inventory.problem import Problem, build_problem
from dralloc.io import ObjectSet
from dralloc.models import Node, ObjectMeta, ResourceClaim
from dralloc.solver.cancel import solve
from dralloc.solver.limits import limit_or_default, stopped

MAX_COPIES = 256

PROVEN, STOPPED, REFUSED, NONE = "proven", "not decided", "refused", "no candidates"


@dataclass(frozen=True)
class Shape:
    """A claim to count copies of: its name (as printed) and where it came from."""

    name: str
    claim: ResourceClaim
    source: str = ""


@dataclass
class Fit:
    """How many more copies of ``shape`` fit on ``node``."""

    node: str
    shape: str
    fits: int                     # copies placed by the best answer found
    bound: int | None             # proven upper bound (== fits when proven)
    status: str                   # PROVEN, STOPPED, REFUSED, NONE
    pools: list[str] = field(default_factory=list)   # driver/pool of the devices the shape can use here
    note: str = ""
    capped: bool = False          # the copies modelled were cut at MAX_COPIES

    @property
    def decided(self) -> bool:
        return self.status in (PROVEN, NONE)

    def text(self) -> str:
        if self.status == REFUSED:
            return f"refused: {self.note}"
        if self.status == STOPPED:
            most = "" if self.bound is None else f", at most {self.bound}"
            return f"not decided: at least {self.fits}{most} ({self.note})"
        return f"at least {self.fits}" if self.capped and self.fits == MAX_COPIES else str(self.fits)


def copy_of(claim: ResourceClaim, i: int) -> ResourceClaim:
    name = f"{claim.metadata.name or 'shape'}-{i}"
    return claim.model_copy(update={"metadata": ObjectMeta(name=name, namespace=claim.metadata.namespace or "default"),
                                    "status": None})


def _countable(problem: Problem) -> bool:
    plan = problem.plans[0]
    if len(plan.slots) != 1 or plan.constraints or plan.slots[0].plain is None:
        return False
    spec = plan.slots[0].plain
    return spec.mode == "ExactCount" and spec.num_devices == 1 and not spec.admin


def _candidates(problem: Problem) -> tuple[list[str], int, bool]:
    """(pools the shape can use, a bound on its copies, shared devices among its candidates)."""
    enc = Encoding(problem, cp_model.CpModel())
    cands = set()
    shared = False   # a device several copies may hold (shares, or admin access)
    need = 0
    for slot in problem.plans[0].slots:
        ids = set()
        for o in slot.options:
            shared = shared or o.admin
            for pd in choice.candidates(enc, o):
                ids.add(pd.id)
                shared = shared or bool(pd.device.allow_multiple_allocations)
        cands |= ids
        need += slot.minimum()
    pools = sorted({f"{d}/{p}" for d, p, _ in cands})
    if not cands:
        return pools, 0, shared
    bound = MAX_COPIES if shared or not need else min(MAX_COPIES, len(cands) // need)
    return pools, bound, shared


class _Node:
    """The objects one node's questions need, gathered once."""

    def __init__(self, objs: ObjectSet, node: Node, features: Features) -> None:
        self.node = node
        self.slices = objs.slices
        self.classes = objs.classes
        self.allocated = [c for c in objs.claims if c.status and c.status.allocation]
        self.features = features

    def problem(self, claims: list[ResourceClaim]) -> Problem:
        return build_problem(self.slices, self.classes, self.node, claims, self.allocated, self.features)


def max_copies(where: _Node, shape: Shape, time_limit: float | None = None) -> Fit:
    """The most copies of ``shape`` the node takes together (see the module doc)."""
    name = where.node.name
    try:
        one = where.problem([copy_of(shape.claim, 0)])
        pools, bound, shared = _candidates(one)
    except (AllocationError, NeedsReplay) as e:
        return Fit(name, shape.name, 0, 0, REFUSED, note=str(e))
    if bound == 0:
        return Fit(name, shape.name, 0, 0, NONE, pools)
    counted = _countable(one) and not shared
    claims = [copy_of(shape.claim, 0)] if counted else [copy_of(shape.claim, i) for i in range(bound)]
    try:
        problem = where.problem(claims)
        enc = Encoding(problem, cp_model.CpModel(), optional_claims=True, counted={0: bound} if counted else {})
        choice.add_choices(enc)
        add_rules(enc)
    except (AllocationError, NeedsReplay) as e:
        return Fit(name, shape.name, 0, 0, REFUSED, pools, note=str(e))
    return _solve(enc, counted, Fit(name, shape.name, 0, None, STOPPED, pools, capped=bound == MAX_COPIES),
                  time_limit)


def _solve(enc: Encoding, counted: bool, fit: Fit, time_limit: float | None) -> Fit:
    m = enc.model
    if counted:
        total: cp_model.LinearExprT = enc.counts[0]
    else:
        for a, b in zip(enc.sat, enc.sat[1:], strict=False):
            m.add(a >= b)   # copies fill in order: no two answers differ by renaming copies
        total = sum(enc.sat)
    m.maximize(total)
    solver = cp_model.CpSolver()
    limit = limit_or_default(time_limit)
    solver.parameters.max_time_in_seconds = limit
    solver.parameters.num_workers = 2
    status = solve(solver, m)
    if status == cp_model.OPTIMAL:
        fit.fits = fit.bound = round(solver.objective_value)
        fit.status = PROVEN
    elif status == cp_model.FEASIBLE:
        fit.fits, fit.bound = round(solver.objective_value), int(solver.best_objective_bound)
        fit.note = stopped(limit, "CP-SAT")
    elif status == cp_model.INFEASIBLE:   # zero copies always fit: only a bug gets here
        raise AssertionError("the headroom model has no solution, not even zero copies")
    else:
        fit.note = stopped(limit, "CP-SAT") + " before any answer"
        fit.bound = None
    return fit


def headroom(objs: ObjectSet, shapes: Sequence[Shape], nodes: Sequence[Node], features: Features,
             time_limit: float | None = None, progress: Callable[[int, int], None] | None = None) -> list[Fit]:
    """Every (node, shape): how many more copies fit. ``time_limit`` is per
    model (one per node and shape)."""
    out = []
    total = len(nodes) * len(shapes)
    done = 0
    for node in nodes:
        where = _Node(objs, node, features)
        for shape in shapes:
            out.append(max_copies(where, shape, time_limit))
            done += 1
            if progress is not None:
                progress(done, total)
    return out
