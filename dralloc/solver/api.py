"""``allocate``: the one entry point for every mode."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from dralloc.checker.rules import verify_allocation
from dralloc.errors import AllocationError, InputError
from dralloc.features import Features, Variant
from dralloc.inventory.problem import Problem, build_problem
from dralloc.io.loader import ObjectSet
from dralloc.models import Node, ObjectMeta, ResourceClaim, TypedObject
from dralloc.solver.outcome import COMPARE, Outcome, Status
from dralloc.solver.replay_run import run_replay

MODES = ("replay", "first-fit", "optimal")


def _objects(objects: ObjectSet | Iterable[TypedObject]) -> ObjectSet:
    if isinstance(objects, ObjectSet):
        return objects
    out = ObjectSet()
    for o in objects:
        out.add(o)
    return out


def _node(objs: ObjectSet, node: Node | str | None) -> Node:
    if isinstance(node, Node):
        return node
    if node is None:
        return Node(metadata=ObjectMeta(name=""))
    found = objs.node(node)
    return found if found is not None else Node(metadata=ObjectMeta(name=node))


def _claims(objs: ObjectSet, claims: Iterable[ResourceClaim | str]) -> list[ResourceClaim]:
    out = []
    for c in claims:
        if isinstance(c, ResourceClaim):
            out.append(c)
            continue
        found = objs.claim(c)
        if found is None:
            raise InputError(f"claim {c} not found among the loaded ResourceClaims")
        out.append(found)
    return out


def _features(features: Features | Iterable[str] | None) -> Features:
    if features is None:
        return Features()
    if isinstance(features, Features):
        return features
    return Features.from_gates(features)


def allocate(objects: ObjectSet | Iterable[TypedObject], node: Node | str | None,
             claims: Iterable[ResourceClaim | str], allocated: Iterable[ResourceClaim] | None = None,
             features: Features | Iterable[str] | None = None, mode: str = "replay",
             variant: Variant | str | None = None, objective: str | None = None,
             time_limit: float | None = None, share_ids: Callable[[], str] | None = None,
             verify: bool = True, compare: str = "auto", compare_time_limit: float | None = None) -> Outcome:
    """Allocate ``claims`` together on ``node``, as the Kubernetes scheduler
    asks its allocator to for the claims of one pod.

    ``allocated`` defaults to every claim in ``objects`` that has an
    allocation and is not being allocated. ``mode`` is ``replay`` (the
    Kubernetes search, step by step), ``first-fit`` (the same answer through
    CP-SAT) or ``optimal`` (CP-SAT with ``objective``). Every answer is checked
    by the independent verifier unless ``verify`` is False (``Outcome.verified``).

    ``time_limit`` bounds CP-SAT, or for replay acts as the scheduler's filter
    timeout (without one the replay stops after 10 s and says so). first-fit
    also finds out what it can of Kubernetes' own answer (``Outcome.kubernetes``):
    ``compare="auto"`` replays Kubernetes' search only where a documented
    defect can fire and no proof settles it, under ``compare_time_limit``
    seconds (default 2); ``"always"`` replays in every case; ``"never"`` skips it."""
    if mode not in MODES:
        raise InputError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    if compare not in COMPARE:
        raise InputError(f"unknown compare {compare!r}; choose one of {', '.join(COMPARE)}")
    objs = _objects(objects)
    feats = _features(features)
    var = Variant(variant) if variant is not None else feats.variant()
    target = _node(objs, node)
    todo = _claims(objs, claims)
    if allocated is None:
        ids = {id(c) for c in todo}
        allocated = [c for c in objs.claims if id(c) not in ids and c.status and c.status.allocation]
    keys = [c.key for c in todo]
    base = Outcome(Status.ERROR, mode, target.name, keys)
    try:
        problem = build_problem(objs.slices, objs.classes, target, todo, list(allocated), feats, var)
    except AllocationError as e:
        base.error = str(e)
        return base
    if mode == "replay":
        out = run_replay(problem, base, share_ids, time_limit)
    else:
        from dralloc.solver.cpsat import solve  # OR-Tools only when asked for

        out = solve(problem, base, mode, objective=objective, time_limit=time_limit, share_ids=share_ids,
                    compare=compare, compare_time_limit=compare_time_limit)
    if verify:
        check_answer(objs, problem, out)
    return out


def check_answer(objs: ObjectSet, problem: Problem, out: Outcome) -> None:
    """Check every allocated claim with the independent verifier (no OR-Tools).
    A CP-SAT answer that breaks a rule is a dralloc bug and says so; a replay
    answer may break one through a Kubernetes defect it reproduces."""
    if out.allocations is None or out.status not in (Status.ALLOCATED, Status.PARTIAL):
        return
    pairs = [(c, a) for c, a in zip(problem.claims, out.allocations, strict=True) if a.devices is not None]
    findings = verify_allocation(objs.slices, objs.classes, problem.node, [c for c, _ in pairs],
                                 [a for _, a in pairs], problem.allocated, problem.features,
                                 problem.variant)
    errors = [f for f in findings if f.level == "error"]
    out.verified = not errors
    out.findings = [str(f) for f in errors]
    if not errors:
        return
    if out.mode != "replay":
        out.notes.append("the independent verifier rejects this answer: a dralloc bug, please report it")
        return
    # replay reproduces Kubernetes, defects included: name the defect that broke the rule
    from dralloc.defects import EVENT_DEFECT, describe

    named = sorted({EVENT_DEFECT[n] for n in out.notes if n in EVENT_DEFECT})
    out.defects = [describe(d) for d in named] or ["unexplained: the Kubernetes search broke a rule"]
