"""``allocate``: the one entry point for every mode.

Defaults are the command line's: Kubernetes 1.37 (its feature gates,
:data:`dralloc.features.DEFAULT_GATES`, and the allocator variant it picks)
and first-fit. Input goes through
admission (:mod:`dralloc.validation.admission`) first, so objects built in
Python are defaulted and validated exactly like objects read from files."""

from __future__ import annotations

import threading
from collections.abc import Iterable

from dralloc.checker.rules import verify_allocation
from dralloc.errors import AllocationError, InputError
from dralloc.features import Features, Variant
from dralloc.inventory.pools import Pool
from dralloc.inventory.problem import Problem, build_problem
from dralloc.io.loader import ObjectSet
from dralloc.models import Node, ObjectMeta, ResourceClaim, TypedObject
from dralloc.solver.cancel import cancel_on
from dralloc.solver.modes import DEFAULT_MODE, MODES, objective_names
from dralloc.solver.outcome import COMPARE, Outcome, Status
from dralloc.solver.replay_run import run_replay
from dralloc.solver.shareids import ShareIDPolicy, ShareIDs
from dralloc.solver.shareids import share_ids as make_share_ids
from dralloc.validation.admission import admit, admit_object


def _objects(objects: ObjectSet | Iterable[TypedObject], admission: bool) -> ObjectSet:
    if admission:
        return admit(objects)
    return objects if isinstance(objects, ObjectSet) else ObjectSet.of(objects)


def find_node(objs: ObjectSet, name: str, bare: bool = False) -> Node:
    """The Node called ``name``. When the objects hold Nodes, a name that is
    none of them is an error (not an empty node that fits nothing); without
    any Node (or with ``bare``) the node is taken by name alone, no labels."""
    found = objs.node(name)
    if found is not None:
        return found
    if objs.nodes and not bare:
        known = ", ".join(sorted(n.name for n in objs.nodes)[:10])
        raise InputError(f"node {name} not found among the {len(objs.nodes)} Node(s) in the input ({known})")
    return Node(metadata=ObjectMeta(name=name))


def _node(objs: ObjectSet, node: Node | str | None, admission: bool) -> Node:
    if isinstance(node, Node):
        return node
    if node is None:
        return Node(metadata=ObjectMeta(name=""))
    return find_node(objs, node, bare=not admission)


def _admitted(objs: ObjectSet, claims: Iterable[ResourceClaim]) -> list[ResourceClaim]:
    """Claims given as objects, admitted unless they are in ``objs`` (which is)."""
    held = {id(c) for c in objs.claims}
    return [c if id(c) in held else admit_object(c) for c in claims]


def _claims(objs: ObjectSet, claims: Iterable[ResourceClaim | str], admission: bool) -> list[ResourceClaim]:
    out = []
    for c in claims:
        if isinstance(c, ResourceClaim):
            out.append(_admitted(objs, [c])[0] if admission else c)
            continue
        found = objs.claim(c)
        if found is None:
            raise InputError(f"claim {c} not found among the {len(objs.claims)} ResourceClaim(s) in the input")
        out.append(found)
    return out


def allocated_claims(objs: ObjectSet, todo: list[ResourceClaim]) -> list[ResourceClaim]:
    """Every claim with an allocation that is not one of ``todo`` (by
    namespace and name: duplicates are refused on admission)."""
    keys = {(c.namespace, c.name) for c in todo}
    return [c for c in objs.claims if (c.namespace, c.name) not in keys and c.status and c.status.allocation]


def allocate(objects: ObjectSet | Iterable[TypedObject], node: Node | str | None,
             claims: Iterable[ResourceClaim | str], allocated: Iterable[ResourceClaim] | None = None,
             features: Features | Iterable[str] | None = None, mode: str = DEFAULT_MODE,
             variant: Variant | str | None = None, objective: str | None = None,
             time_limit: float | None = None, share_ids: ShareIDPolicy = None,
             verify: bool = True, admission: bool = True, compare: str = "auto",
             compare_time_limit: float | None = None, cancel: threading.Event | None = None,
             kubernetes_version: str | None = None, pools: list[Pool] | None = None,
             replay_limit: float | None = None) -> Outcome:
    """Allocate ``claims`` together on ``node``, as the Kubernetes scheduler
    asks its allocator to for the claims of one pod.

    ``objects`` and ``claims`` are admitted first (API-server defaults and
    validation; :class:`~dralloc.errors.InputErrors` names every problem),
    unless ``admission`` is False: then they are taken as the allocator's own
    input, as scenario files are. ``node`` is a Node, or the name of one of
    the Nodes in ``objects`` (any name when there are none).
    ``kubernetes_version`` (``1.34`` .. ``1.37``, default 1.37) is the
    release answered for: ``features`` default to the gates it has on, and
    the allocator variant is the one it picks for them (``variant``
    overrides it). ``allocated`` defaults to every claim
    in ``objects`` that has an allocation and is not being allocated. ``mode``
    is ``first-fit`` (Kubernetes' answer through CP-SAT -- or through its
    search where no documented defect can fire, see docs/engine.md -- the default),
    ``replay`` (the Kubernetes search, step by step) or ``optimal`` (CP-SAT
    with ``objective``). Shares of shared devices get IDs by ``share_ids``:
    ``derived`` (default: the same inputs give the same IDs), ``random``
    (fresh UUIDs, as Kubernetes), or a callable returning each ID in turn.
    Every answer is checked by the independent verifier unless ``verify`` is
    False (``Outcome.verified``).

    ``time_limit`` bounds CP-SAT, or for replay acts as the scheduler's filter
    timeout; without one the replay stops after ``replay_limit`` seconds
    (default 10 s, ``math.inf``: never) and says that Kubernetes' answer is
    not known. first-fit
    also finds out what it can of Kubernetes' own answer (``Outcome.kubernetes``):
    ``compare="auto"`` replays Kubernetes' search only where a documented
    defect can fire and no proof settles it, under ``compare_time_limit``
    seconds (default 2); ``"always"`` replays in every case; ``"never"`` skips it.

    ``cancel``: a :class:`threading.Event` another thread may set to stop the
    call's searches, as the scheduler cancels its allocator's context; the
    answer is then Kubernetes' error ``filter operation aborted: context
    canceled`` (optimal keeps the best answer found by then, with a note).

    ``pools``: the pools gathered from ``objects``' slices for ``node`` with
    these features and variant, when the caller keeps them (read only; the
    cluster object keeps them per node between calls)."""
    if mode not in MODES:
        raise InputError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    if objective is not None:
        objective_names(objective)  # a bogus objective is an error in every mode
    if compare not in COMPARE:
        raise InputError(f"unknown compare {compare!r}; choose one of {', '.join(COMPARE)}")
    make = make_share_ids(share_ids)
    objs = _objects(objects, admission)
    feats = Features.of(features, kubernetes_version)
    var = Variant(variant) if variant is not None else feats.variant()
    target = _node(objs, node, admission)
    todo = _claims(objs, claims, admission)
    if allocated is None:
        allocated = allocated_claims(objs, todo)
    elif admission:
        allocated = _admitted(objs, allocated)
    keys = [c.key for c in todo]
    base = Outcome(Status.ERROR, mode, target.name, keys)
    try:
        problem = build_problem(objs.slices, objs.classes, target, todo, list(allocated), feats, var, pools)
    except AllocationError as e:
        base.error = str(e)
        return base
    with cancel_on(cancel):
        if mode == "replay":
            out = run_replay(problem, base, make, time_limit, replay_limit)
        else:
            out = _cpsat(problem, base, mode, objective, time_limit, make, compare, compare_time_limit)
    if verify:
        check_answer(objs, problem, out)
    return out


def _cpsat(problem: Problem, out: Outcome, mode: str, objective: str | None, time_limit: float | None,
           share_ids: ShareIDs, compare: str, compare_time_limit: float | None) -> Outcome:
    """The CP-SAT modes (OR-Tools is loaded only when one is asked for)."""
    if mode == "optimal":
        from dralloc.solver.optimal import solve_optimal

        return solve_optimal(problem, out, objective, time_limit, share_ids)
    from dralloc.solver.cpsat import first_fit

    return first_fit(problem, out, time_limit, share_ids, compare, compare_time_limit)


def check_answer(objs: ObjectSet, problem: Problem, out: Outcome) -> None:
    """Check every allocated claim with the independent verifier (no OR-Tools).
    A CP-SAT answer that breaks a rule is a dralloc bug and says so; a replay
    answer may break one through a Kubernetes defect it reproduces."""
    if out.allocations is None or out.status not in (Status.ALLOCATED, Status.PARTIAL):
        return
    pairs = [(c, a) for c, a in zip(problem.claims, out.allocations, strict=True) if a.devices is not None]
    findings = verify_allocation(objs.slices, objs.classes, problem.node, [c for c, _ in pairs],
                                 [a for _, a in pairs], problem.allocated, problem.features,
                                 problem.variant, problem.pools)
    errors = [f for f in findings if f.level == "error"]
    out.verified = not errors
    out.findings = [str(f) for f in errors]
    if not errors:
        return
    if not out.by_replay:
        out.notes.append("the independent verifier rejects this answer: a dralloc bug, please report it")
        return
    # replay reproduces Kubernetes, defects included: name the defect that broke the rule
    from dralloc.defects import EVENT_DEFECT, describe

    named = sorted({EVENT_DEFECT[n] for n in out.notes if n in EVENT_DEFECT})
    out.defects = [describe(d) for d in named] or ["unexplained: the Kubernetes search broke a rule"]
