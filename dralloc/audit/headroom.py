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

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ortools.sat.python import cp_model

from dralloc.cel import CELCompileError, DeviceView, compile_derived, compile_selector
from dralloc.encoders import choice
from dralloc.encoders.linear import NeedsReplay
from dralloc.encoders.model import Encoding, add_rules
from dralloc.errors import AllocationError
from dralloc.features import Features
from dralloc.inventory.pools import gather_pools
from dralloc.inventory.problem import Problem, build_problem
from dralloc.io import ObjectSet
from dralloc.models import Device, Node, ObjectMeta, ResourceClaim, ResourceClaimStatus
from dralloc.solver.limits import limit_or_default
from dralloc.solver.search import run

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
    # Kubernetes' way: copies its allocator places one claim after another
    # (replay); None when not asked. ``kubernetes_note``: where it stopped short
    # of an answer (its time limit) or why it stopped (a defect it reproduces).
    kubernetes: int | None = None
    kubernetes_note: str = ""
    kubernetes_stopped: bool = False  # the replay stopped at its time limit: at least ``kubernetes``, not decided

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
        self.inputs = ObjectSet.of([*objs.slices, *objs.classes, node])

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


def kubernetes_copies(where: _Node, shape: Shape, fit: Fit, time_limit: float | None = None) -> Fit:
    """How many copies Kubernetes' allocator places one claim after another
    (its own search, replayed; each answer held for the next), up to one more
    than the rules allow (a defect that lets a device through could go past
    them) and :data:`MAX_COPIES`."""
    from dralloc.defects import EVENT_DEFECT, describe
    from dralloc.solver.api import allocate
    from dralloc.solver.outcome import Status

    held = list(where.allocated)
    most = MAX_COPIES if fit.bound is None else min(MAX_COPIES, fit.bound + 1)
    fit.kubernetes = 0
    while fit.kubernetes < most:
        claim = copy_of(shape.claim, fit.kubernetes)
        out = allocate(where.inputs, where.node, [claim], allocated=held, features=where.features, mode="replay",
                       time_limit=time_limit, verify=False, admission=False)
        if out.status is Status.ALLOCATED and out.allocations:
            alloc = out.allocations[0]
            held.append(claim.model_copy(update={"status": ResourceClaimStatus(allocation=alloc)}))
            fit.kubernetes += 1
            continue
        if out.status is Status.ERROR and any(n.startswith("replay stopped at its time limit") for n in out.notes):
            fit.kubernetes_stopped = True
            fit.kubernetes_note = (f"not decided: at least {fit.kubernetes}, the replay of copy {fit.kubernetes + 1} "
                                   f"stopped at its time limit")
        elif out.status is Status.ERROR:
            fit.kubernetes_note = out.error or "the allocator stopped"
        elif fit.kubernetes < fit.fits:
            named = sorted({EVENT_DEFECT[n] for n in out.notes if n in EVENT_DEFECT})
            fit.kubernetes_note = (f"its search refuses copy {fit.kubernetes + 1}, which the rules allow: "
                                   + ("; ".join(describe(d) for d in named) or "a defect it reproduces"))
        break
    return fit


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
    solver.parameters.max_time_in_seconds = limit_or_default(time_limit, "availability")
    solver.parameters.num_workers = 2
    ran = run(solver, m)
    why = ran.stopped_words() or f"CP-SAT {ran.why or 'stopped'}"
    if ran.status == cp_model.OPTIMAL:
        fit.fits = fit.bound = round(solver.objective_value)
        fit.status = PROVEN
    elif ran.status == cp_model.FEASIBLE:
        fit.fits, fit.bound = round(solver.objective_value), int(solver.best_objective_bound)
        fit.note = why
    elif ran.status == cp_model.INFEASIBLE:   # zero copies always fit: only a bug gets here
        raise AssertionError("the headroom model has no solution, not even zero copies")
    else:
        fit.note = why + " before any answer"
        fit.bound = None
    return fit


def _reads(objs: ObjectSet, shapes: Sequence[Shape]) -> set[str] | None:
    """The attributes (``domain/id``) any selector, derived attribute or
    constraint of the classes and shapes reads; None: possibly any."""
    exprs: list[tuple[str, bool]] = [(sel.cel.expression, False) for c in objs.classes
                                     for sel in c.spec.selectors or [] if sel.cel]
    out: set[str] = set()
    for shape in shapes:
        dc = shape.claim.spec.devices
        for r in dc.requests or []:
            for body in ([r.exactly] if r.exactly else []) + list(r.first_available or []):
                exprs += [(sel.cel.expression, False) for sel in body.selectors or [] if sel.cel]
                exprs += [(d.expression, True) for d in body.derived_attributes or []]
        out.update(c.match_attribute or c.distinct_attribute or "" for c in dc.constraints or [])
    for expr, derived in exprs:
        try:
            paths = (compile_derived if derived else compile_selector)(expr).paths
        except CELCompileError:
            return None
        if ("*",) in paths:
            return None
        out.update(f"{p[1]}/{p[2]}" for p in paths if p[0] == "attributes")
    return out


def _device_key(driver: str, d: Device, reads: set[str] | None) -> Any:
    """A device as the questions see it: every field but the attributes no
    expression reads (kept: whether an attribute would fail to convert, which
    fails every selector on the device)."""
    data = d.dump()
    if reads is not None:
        attrs = data.get("attributes") or {}
        data["attributes"] = {k: v for k, v in attrs.items() if (k if "/" in k else f"{driver}/{k}") in reads}
        data["attributeError"] = DeviceView.from_device(driver, d).attribute_error()
    return data


def _fingerprint(objs: ObjectSet, node: Node, features: Features, held: dict[tuple[str, str], list[Any]],
                 reads: set[str] | None) -> tuple[str, list[str]]:
    """What the node's questions depend on, names of its node and pools
    aside: its pools' slices (their devices without the attributes nothing
    reads), what is allocated in them, the node's labels (those naming the
    node left out). Nodes with one fingerprint get one answer; also the
    node's pools (driver/pool), in search order."""
    try:
        pools = gather_pools(objs.slices, node, features, features.variant())
    except AllocationError as e:
        return f"error:{e}", []
    parts: list[Any] = [sorted((k, v) for k, v in (node.metadata.labels or {}).items() if v != node.name)]
    for pool in pools:
        slices = []
        for sl in pool.slices + pool.counter_slices + pool.nontargeting:
            spec = sl.spec.model_copy(update={"pool": sl.spec.pool.model_copy(update={"name": ""}), "node_name": None,
                                              "devices": None}).dump()
            spec["devices"] = [_device_key(pool.driver, d, reads) for d in sl.spec.devices or []]
            slices.append(spec)
        parts.append([pool.driver, pool.incomplete, pool.invalid, slices, held.get(pool.id, [])])
    return json.dumps(parts, sort_keys=True, default=str), [f"{p.driver}/{p.name}" for p in pools]


def _held(objs: ObjectSet) -> dict[tuple[str, str], list[Any]]:
    out: dict[tuple[str, str], list[Any]] = {}
    for c in objs.claims:
        alloc = c.status.allocation if c.status else None
        for r in (alloc.devices.results or []) if alloc and alloc.devices else []:
            out.setdefault((r.driver, r.pool), []).append(r.model_copy(update={"pool": "", "request": "", "share_id": None}).dump())
    return {k: sorted(v, key=lambda d: json.dumps(d, sort_keys=True)) for k, v in out.items()}


def _renamed(f: Fit, node: str, pools: dict[str, str]) -> Fit:
    return replace(f, node=node, pools=sorted(pools.get(p, p) for p in f.pools))


def headroom(objs: ObjectSet, shapes: Sequence[Shape], nodes: Sequence[Node], features: Features,
             time_limit: float | None = None, progress: Callable[[int, int], None] | None = None,
             kubernetes: bool = True) -> list[Fit]:
    """Every (node, shape): how many more copies fit, and (``kubernetes``)
    how many Kubernetes places one claim after another. ``time_limit`` is per
    model and per replayed claim (one per distinct node and shape: nodes that
    differ only in their names share their answers)."""
    out: list[Fit] = []
    total = len(nodes) * len(shapes)
    done = 0
    held = _held(objs)
    reads = _reads(objs, shapes)
    seen: dict[str, tuple[list[Fit], list[str]]] = {}
    for node in nodes:
        key, pools = _fingerprint(objs, node, features, held, reads)
        if key in seen:
            fits, rep_pools = seen[key]
            out.extend(_renamed(f, node.name, dict(zip(rep_pools, pools, strict=True))) for f in fits)
            done += len(shapes)
        else:
            where = _Node(objs, node, features)
            fits = []
            for shape in shapes:
                fit = max_copies(where, shape, time_limit)
                if kubernetes and fit.status in (PROVEN, STOPPED):
                    kubernetes_copies(where, shape, fit, time_limit)
                fits.append(fit)
                done += 1
                if progress is not None:
                    progress(done, total)
            seen[key] = (fits, pools)
            out.extend(fits)
        if progress is not None:
            progress(done, total)
    return out
