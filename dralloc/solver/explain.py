"""Why can these claims not be allocated? A minimised core of assumption
literals — one per request, device, counter and constraint — found by CP-SAT
and shrunk by deletion, rendered in words with the inventory's candidate
counts (the approach of CPMpy's MUS tools and OR-Tools' assumptions sample)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from dralloc.encoders.linear import NeedsReplay
from dralloc.encoders.model import Encoding, encode
from dralloc.inventory.exclusions import KINDS
from dralloc.inventory.problem import Problem
from dralloc.quantity import amount_text
from dralloc.solver.explain_counts import candidate_report
from dralloc.solver.limits import Deadline, stopped
from dralloc.solver.search import run


def _feasible(enc: Encoding, active: list[str], deadline: Deadline) -> tuple[bool | None, list[str]]:
    """(True: feasible, False: infeasible with a core, None: stopped at the time limit)."""
    m = enc.model
    m.ClearAssumptions()
    m.AddAssumptions([enc.assumptions[a] for a in active])
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = deadline.left()
    status = run(solver, m).status
    if status == cp_model.INFEASIBLE:
        idx = set(solver.SufficientAssumptionsForInfeasibility())
        core = [a for a in active if enc.assumptions[a].Index() in idx]
        return False, core or active
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return True, []
    return None, []


def minimal_core(problem: Problem, time_limit: float = 10.0) -> list[str] | None:
    """Labels of a minimal set of requirements that cannot hold together, or
    None when the claims can be allocated (or the model cannot be built)."""
    try:
        found = core_and_encoding(problem, time_limit)
    except NeedsReplay:
        return None
    return None if found is None else found[0]


def core_and_encoding(problem: Problem, time_limit: float = 10.0) -> tuple[list[str], Encoding] | None:
    """A minimal core and its encoding (a core found before the time limit
    ran out while shrinking ends with the label ``STOPPED``: conflicting, maybe
    not minimal), or None when there is no conflict, the search stopped
    before finding one, or the encoding cannot answer."""
    status, core, enc, _ = search_core(problem, time_limit)
    return (core, enc) if status == CONFLICT and enc is not None else None


CONFLICT, NO_CONFLICT, ORDER_DEPENDENT, STOPPED = "conflict", "no-conflict", "order-dependent", "stopped"


def search_core(problem: Problem, time_limit: float = 10.0) -> tuple[str, list[str], Encoding | None, str]:
    """(status, core labels, encoding, why), within ``time_limit`` seconds in
    all: ``conflict`` with a minimal core (shrunk by deletion; if time runs
    out while shrinking, the core so far with ``STOPPED`` last);
    ``no-conflict``; ``stopped`` when CP-SAT reached the time limit before
    deciding; ``order-dependent`` when the encoding cannot answer (``why``: a
    selector error makes the answer depend on the order Kubernetes evaluates
    devices in, or values beyond CP-SAT's integers)."""
    try:
        enc = encode(problem, use_assumptions=True)
    except NeedsReplay as e:
        return ORDER_DEPENDENT, [], None, str(e)
    deadline = Deadline(time_limit)
    labels = sorted(enc.assumptions)
    ok, core = _feasible(enc, labels, deadline)
    if ok is None:
        return STOPPED, [], enc, stopped(deadline.limit)
    if ok:
        return NO_CONFLICT, [], enc, ""
    i = 0
    while i < len(core):  # deletion-based shrinking
        trial = core[:i] + core[i + 1:]
        ok2, sub = _feasible(enc, trial, deadline)
        if ok2 is None:
            return CONFLICT, [*core, STOPPED], enc, stopped(deadline.limit)
        if ok2:
            i += 1
        else:
            core = [c for c in trial if c in sub] if sub else trial
    return CONFLICT, core, enc, ""


def _holders(problem: Problem, label: str) -> str:
    """Who already holds devices of the counter set / device named by ``label``."""
    parts = label.split(" ", 1)[1].split("/")
    driver, pool = parts[0], parts[1]
    held = sorted(f"{d}/{p}/{n}" for (d, p, n) in problem.state.devices if d == driver and p == pool)
    return f"; allocated devices in that pool: {', '.join(held)}" if held else ""


def _amounts(problem: Problem, label: str) -> str:
    """`` (40Gi in the pool, 35Gi held)`` for a counter label, in Kubernetes units."""
    owner, cs, name = label.split(" ", 1)[1].rsplit("/", 2)
    driver, _, pool_name = owner.partition("/")
    pool = next((p for p in problem.pools if p.driver == driver and p.name == pool_name), None)
    total = pool.counter_sets.get(cs, {}).get(name) if pool is not None else None
    if pool is None or total is None:
        return ""
    left = problem.state.available_counters(pool).get(cs, {}).get(name, total)
    return f" ({amount_text(total)} in the pool, {amount_text(total - left)} held by allocated devices)"


def _request_detail(enc: Encoding, label: str) -> str:
    """How many devices each alternative of the request can use, and why the others not."""
    claim_key, _, slot = label.split(" ", 1)[1].rpartition("/")
    parts = []
    for o in enc.options.values():
        plan = enc.problem.plans[o.key[0]]
        if plan.key != claim_key or plan.slots[o.key[1]].name != slot:
            continue
        why = ", ".join(f"{o.excluded[k]} {k}" for k in KINDS if o.excluded.get(k))
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
            out.append(f"{label} has too little left for the devices these requests can use"
                       f"{_amounts(problem, label)}{_holders(problem, label)}")
        elif kind == "device":
            out.append(f"{label} can be held by only one of the requests that want it")
        elif kind == "constraint":
            plan_key, idx = label.split(" ", 1)[1].rsplit("#", 1)
            plan = next(p for p in problem.plans if p.key == plan_key)
            c = plan.constraints[int(idx)]
            what = f"matchAttribute {c.match_attribute}" if c.match_attribute else f"distinctAttribute {c.distinct_attribute}"
            out.append(f"claim {plan_key} constraint #{idx} ({what}) over requests {c.requests or 'all'}")
        elif kind == "compatibility":
            out.append(f"counter set {label.split(' ', 1)[1]}: the devices drawing from it must share a "
                       "compatibility group (DRADeviceCompatibilityGroups)")
        elif label == STOPPED:
            out.append("(the search stopped at its time limit: this set conflicts but may not be minimal)")
        else:
            out.append(label)
    return out


@dataclass
class Explanation:
    """Why claims cannot be allocated on a node: the minimal conflicting set
    (label and sentence per requirement), then the per-request candidate
    counts. ``status`` is ``conflict``, ``no-conflict`` (the claims fit),
    ``stopped`` (time limit) or ``order-dependent`` (the encoding cannot
    answer: only the replay can); ``why`` says why for the last two."""

    node: str
    claims: list[str]
    status: str
    core: list[tuple[str, str]] = field(default_factory=list)
    candidates: list[str] = field(default_factory=list)
    why: str = ""

    def lines(self) -> list[str]:
        where = f"node {self.node or '<none>'}"
        if self.status == CONFLICT:
            minimal = not any(label == STOPPED for label, _ in self.core)
            out = [f"these requirements cannot all hold on {where} "
                   f"({'a minimal' if minimal else 'a'} conflicting set):"]
            out.extend(f"  - {text}" for _, text in self.core)
        elif self.status == NO_CONFLICT:
            out = [f"no conflict: the claims can be allocated on {where}"]
        elif self.status == STOPPED:
            out = [f"undecided: {self.why} on {where} before finding a conflict "
                   "or an allocation (raise --time-limit)"]
        else:
            out = [f"no model on {where}: {self.why} (run allocate --mode replay)"]
        return out + self.candidates

    def to_dict(self) -> dict[str, object]:
        d: dict[str, object] = {"node": self.node, "claims": list(self.claims), "status": self.status,
                                "core": [{"label": label, "text": text} for label, text in self.core],
                                "candidates": list(self.candidates)}
        if self.why:
            d["why"] = self.why
        return d


def explanation(problem: Problem, time_limit: float = 10.0) -> Explanation:
    status, labels, enc, why = search_core(problem, time_limit)
    core = list(zip(labels, render(problem, labels, enc), strict=True)) if status == CONFLICT else []
    return Explanation(problem.node.name, [p.key for p in problem.plans], status, core,
                       candidate_report(problem), why)


def explain(problem: Problem, time_limit: float = 10.0) -> list[str]:
    """The explanation in words: the conflicting requirements, then the
    per-request candidate counts."""
    return explanation(problem, time_limit).lines()
