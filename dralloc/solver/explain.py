"""Why can these claims not be allocated? A minimised core of assumption
literals — one per request, device, counter and constraint — found by CP-SAT
and shrunk by deletion, rendered in words with the inventory's candidate
counts (the approach of CPMpy's MUS tools and OR-Tools' assumptions sample)."""

from __future__ import annotations

from ortools.sat.python import cp_model

from dralloc.encoders.linear import NeedsReplay
from dralloc.encoders.model import Encoding, encode
from dralloc.inventory.problem import Problem
from dralloc.solver.explain_counts import candidate_report
from dralloc.solver.limits import Deadline, stopped


class _Stopped(Exception):
    """A solver call reached the time limit before deciding."""


def _feasible(enc: Encoding, active: list[str], deadline: Deadline) -> tuple[bool, list[str]]:
    m = enc.model
    m.ClearAssumptions()
    m.AddAssumptions([enc.assumptions[a] for a in active])
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = deadline.left()
    status = solver.Solve(m)
    if status == cp_model.INFEASIBLE:
        idx = set(solver.SufficientAssumptionsForInfeasibility())
        core = [a for a in active if enc.assumptions[a].Index() in idx]
        return False, core or active
    if status == cp_model.UNKNOWN:
        raise _Stopped
    return True, []


def minimal_core(problem: Problem, time_limit: float = 10.0) -> list[str] | None:
    """Labels of a minimal set of requirements that cannot hold together, or
    None when the claims can be allocated (or the model cannot be built)."""
    try:
        found = core_and_encoding(problem, time_limit)
    except NeedsReplay:
        return None
    return None if found is None else found[0]


def core_and_encoding(problem: Problem, time_limit: float = 10.0) -> tuple[list[str], Encoding] | None:
    """The core, shrunk by deletion within ``time_limit`` seconds in all. If
    time runs out while shrinking, the core found so far (conflicting, maybe
    not minimal) is returned with the label ``STOPPED`` last; if it runs out
    before any conflict is proven, :class:`NeedsReplay` says so. Raises
    :class:`NeedsReplay` when the encoding cannot be built."""
    enc = encode(problem, use_assumptions=True)
    deadline = Deadline(time_limit)
    labels = sorted(enc.assumptions)
    try:
        ok, core = _feasible(enc, labels, deadline)
    except _Stopped:
        raise NeedsReplay(stopped(deadline.limit) + " before finding a conflict") from None
    if ok:
        return None
    i = 0
    try:
        while i < len(core):  # deletion-based shrinking
            trial = core[:i] + core[i + 1:]
            ok2, sub = _feasible(enc, trial, deadline)
            if ok2:
                i += 1
            else:
                core = [c for c in trial if c in sub] if sub else trial
    except _Stopped:
        core = [*core, STOPPED]
    return core, enc


STOPPED = "stopped"


def _holders(problem: Problem, label: str) -> str:
    """Who already holds devices of the counter set / device named by ``label``."""
    parts = label.split(" ", 1)[1].split("/")
    driver, pool = parts[0], parts[1]
    held = sorted(f"{d}/{p}/{n}" for (d, p, n) in problem.state.devices if d == driver and p == pool)
    return f"; allocated devices in that pool: {', '.join(held)}" if held else ""


def _request_detail(enc: Encoding, label: str) -> str:
    """How many devices each alternative of the request can use, and why the others not."""
    claim_key, _, slot = label.split(" ", 1)[1].rpartition("/")
    parts = []
    for o in enc.options.values():
        plan = enc.problem.plans[o.key[0]]
        if plan.key != claim_key or plan.slots[o.key[1]].name != slot:
            continue
        why = ", ".join(f"{n} {w}" for w, n in sorted(o.excluded.items()))
        if o.spec.is_all and not o.spec.num_devices:
            parts.append(f"{o.spec.name} asks for all matching devices, and none match")
            continue
        need = f"all {o.spec.num_devices}" if o.spec.is_all else str(o.spec.num_devices)
        parts.append(f"{o.spec.name} needs {need}, can use {len(o.devices)}" + (f" (excluded: {why})" if why else ""))
    return "; ".join(parts)


def render(problem: Problem, core: list[str], enc: Encoding | None = None) -> list[str]:
    out = []
    for label in core:
        kind = label.split(" ", 1)[0]
        if kind == "request":
            detail = _request_detail(enc, label) if enc is not None else ""
            out.append(f"{label} must be served" + (f": {detail}" if detail else ""))
        elif kind == "counter":
            out.append(f"{label} has too little left for the devices these requests can use{_holders(problem, label)}")
        elif kind == "device":
            out.append(f"{label} can be held by only one of the requests that want it")
        elif kind == "constraint":
            plan_key, idx = label.split(" ", 1)[1].rsplit("#", 1)
            plan = next(p for p in problem.plans if p.key == plan_key)
            c = plan.constraints[int(idx)]
            what = f"matchAttribute {c.match_attribute}" if c.match_attribute else f"distinctAttribute {c.distinct_attribute}"
            out.append(f"claim {plan_key} constraint #{idx} ({what}) over requests {c.requests or 'all'}")
        elif label == STOPPED:
            out.append("(the search stopped at its time limit: this set conflicts but may not be minimal)")
        else:
            out.append(label)
    return out


def explain(problem: Problem, time_limit: float = 10.0) -> list[str]:
    """The explanation in words: the conflicting requirements, then the
    per-request candidate counts."""
    lines = []
    try:
        found = core_and_encoding(problem, time_limit)
    except NeedsReplay as e:
        found = None
        lines.append(f"no minimal conflicting set: {e}")
    if found is not None:
        core, enc = found
        lines.append("these requirements cannot all hold on node "
                     f"{problem.node.name or '<none>'} (a minimal conflicting set):")
        lines.extend(f"  - {s}" for s in render(problem, core, enc))
    lines.extend(candidate_report(problem))
    return lines
