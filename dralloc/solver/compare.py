"""first-fit against Kubernetes' own answer (docs/engine.md, "Where
Kubernetes is not first-fit").

first-fit follows the rules; Kubernetes' search has defects. What is known
of Kubernetes' answer, cheapest first:

1. no defect trigger holds (:mod:`dralloc.inventory.triggers`): Kubernetes'
   answer *is* first-fit's; nothing is replayed;
2. the rules admit no allocation and every defect that can fire only refuses
   more: Kubernetes answers no allocation too (proof, nothing replayed);
3. otherwise the replay runs under a time limit. At its checkpoints, when it
   has seen counters leak (T-11) and every defect that can fire only refuses
   more, the solver asks whether the rules still admit an allocation with
   those counters held back; if not, Kubernetes' answer is proven to be no
   allocation and the replay stops. When time runs out, what is known is
   stated, with the defects seen firing so far.

``compare="always"`` replays even where no trigger holds (and does not stop
at a proof), ``compare="never"`` skips all of it."""

from __future__ import annotations

import time
from dataclasses import replace
from fractions import Fraction

from ortools.sat.python import cp_model

from dralloc.defects import EVENT_DEFECT, describe
from dralloc.encoders.model import encode
from dralloc.errors import AllocationError
from dralloc.inventory.pools import CounterMap
from dralloc.inventory.problem import Problem
from dralloc.inventory.triggers import Trigger, find_triggers
from dralloc.quantity import DECIMAL_SI, Quantity, binary_si
from dralloc.solver.limits import COMPARE
from dralloc.solver.outcome import KubernetesAnswer, Outcome, Status
from dralloc.solver.replay import ReplaySearch, SearchStopped
from dralloc.solver.replay_run import fill_from_search
from dralloc.solver.search import run

DEFAULT_COMPARE_SECONDS = COMPARE
# defects the replay has no event for: named from their static trigger
STATIC_DEFECTS = frozenset({"counters-keyed-by-pool-name", "overdrawn-counter-blocks-pool"})
LEAK = "counter-leak-on-late-refusal"


def leak_text(leaked: dict[tuple[str, str], CounterMap]) -> str:
    """``driver/pool: set {counter value, ...}; ...``."""
    return "; ".join(f"{d}/{p}: " + ", ".join(
        f"{cs} {{{', '.join(f'{n} {_num(v)}' for n, v in sorted(counters.items()) if v)}}}"
        for cs, counters in sorted(sets.items()) if any(counters.values()))
        for (d, p), sets in sorted(leaked.items()))


def _num(v: Fraction) -> str:
    """In Kubernetes' notation: binary SI when a whole number of Ki."""
    return str(binary_si(v) if v.denominator == 1 and not v % 1024 else Quantity(v, DECIMAL_SI))


def rules_infeasible(problem: Problem, held: dict[tuple[str, str], CounterMap], time_limit: float) -> bool | None:
    """Whether the rules admit no allocation once ``held`` counters are held
    back (None: CP-SAT did not decide within ``time_limit``)."""
    reduced = replace(problem, state=replace(problem.state, held_counters=held))
    enc = encode(reduced)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = max(time_limit, 0.01)
    status = run(solver, enc.model).status
    if status == cp_model.INFEASIBLE:
        return True
    return False if status in (cp_model.OPTIMAL, cp_model.FEASIBLE) else None


def fits_after_leaks(problem: Problem, out: Outcome, held: dict[tuple[str, str], CounterMap]) -> bool:
    """Whether first-fit's allocation still fits the counters once ``held``
    is held back (each shared device counts once, as the rules count it)."""
    state = replace(problem.state, held_counters=held)
    multi_ok = problem.features.consumable_capacity and problem.variant.value != "stable"
    devices = {pd.id: pd for pool in problem.pools if pool.id in held for pd in pool.devices}
    use: dict[tuple[str, str], CounterMap] = {}
    shared: set[tuple[str, str, str]] = set()
    for alloc in out.allocations or []:
        for r in (alloc.devices.results or []) if alloc.devices else []:
            pd = devices.get((r.driver, r.pool, r.device))
            if pd is None:
                continue
            if multi_ok and pd.device.allow_multiple_allocations:
                if pd.id in shared or pd.id in problem.state.aggregated:
                    continue
                shared.add(pd.id)
            dst = use.setdefault(pd.pool.id, {})
            for cs, counters in pd.consumption().items():
                for name, v in counters.items():
                    dst.setdefault(cs, {})[name] = dst.get(cs, {}).get(name, Fraction(0)) + v
    pools = {pool.id: pool for pool in problem.pools}
    for pid, sets in use.items():
        avail = state.available_counters(pools[pid])
        if any(v > avail.get(cs, {}).get(name, v) for cs, counters in sets.items() for name, v in counters.items()):
            return False
    return True


def compare_with_kubernetes(problem: Problem, out: Outcome, how: str = "auto",
                            time_limit: float | None = None, infeasible: bool = False,
                            undecided: bool = False, triggers: list[Trigger] | None = None) -> None:
    """Fill ``out.kubernetes`` (and, where Kubernetes answers otherwise,
    ``out.notes`` and ``out.defects``). ``infeasible``: CP-SAT proved the
    rules admit no allocation; ``undecided``: CP-SAT stopped without an answer;
    ``triggers``: :func:`find_triggers`' answer when the caller has it."""
    if how == "never" or undecided:
        why = "compare='never'" if how == "never" else "first-fit has no answer to compare"
        out.kubernetes = KubernetesAnswer("not compared", False, statement=f"not compared with Kubernetes' "
                                          f"search ({why}): first-fit follows the rules")
        return
    t0 = time.perf_counter()
    if triggers is None:
        triggers = find_triggers(problem)
    refuse_only = all(t.only_refuses for t in triggers)
    names = [str(t) for t in triggers]
    if how == "auto" and not triggers:
        out.kubernetes = no_trigger(time.perf_counter() - t0)
        return
    if how == "auto" and infeasible and refuse_only:
        out.kubernetes = KubernetesAnswer(
            "proof", True, True, triggers=names, seconds=time.perf_counter() - t0,
            statement="the rules admit no allocation, and every defect that can fire here only makes "
                      f"Kubernetes refuse more ({_defects(triggers)}): Kubernetes answers no allocation too"
                      + (" (reported, as first-fit reports it, as an invalid pool error)"
                         if problem.has_invalid_pool() else ""))
        return
    _Comparison(problem, out, triggers, how, DEFAULT_COMPARE_SECONDS if time_limit is None else time_limit,
                infeasible, t0).run()


def no_trigger(seconds: float) -> KubernetesAnswer:
    return KubernetesAnswer("no trigger", True, True, statement="no documented Kubernetes defect can fire here, so "
                            "Kubernetes' search checks exactly the rules and its answer is first-fit's",
                            seconds=seconds)


def _defects(triggers: list[Trigger]) -> str:
    return ", ".join(sorted({t.defect for t in triggers}))


class _Comparison:
    """One bounded replay of Kubernetes' search, with proof attempts."""

    def __init__(self, problem: Problem, out: Outcome, triggers: list[Trigger], how: str, limit: float,
                 infeasible: bool, t0: float) -> None:
        self.p, self.out, self.triggers, self.how, self.limit = problem, out, triggers, how, limit
        self.refuse_only = all(t.only_refuses for t in triggers)
        self.infeasible = infeasible
        self.t0 = t0
        self.proof_seconds = 0.0
        self.tried: str | None = None          # the leaks the last proof attempt held back
        self.verdict: bool | None = None       # its answer: rules infeasible (None: undecided)
        self.proven: tuple[int, dict[tuple[str, str], CounterMap]] | None = None
        self.ka = KubernetesAnswer("replay", False, triggers=[str(t) for t in triggers])

    # ------------------------------------------------------------ proofs
    def _can_prove(self) -> bool:
        return self.refuse_only and self.out.status is Status.ALLOCATED

    def checkpoint(self, search: ReplaySearch) -> bool:
        """At a replay checkpoint: try the leak proof when new leaks were seen
        (spending at most as long on proofs as on the replay)."""
        if not search.leaked or not self._can_prove():
            return False
        if self.proof_seconds > time.monotonic() - search.started:
            return False
        return self._attempt(search) and self.how == "auto"

    def _attempt(self, search: ReplaySearch) -> bool:
        sig = leak_text(search.leaked)
        if sig == self.tried:
            return self.proven is not None
        self.tried = sig
        held = {k: {cs: dict(c) for cs, c in v.items()} for k, v in search.leaked.items()}
        t = time.perf_counter()
        left = self.limit - (t - self.t0)
        verdict = self.verdict = rules_infeasible(self.p, held, max(left, self.limit / 4))
        self.proof_seconds += time.perf_counter() - t
        if verdict:
            self.proven = (search.steps, held)
        return bool(verdict)

    # ------------------------------------------------------------ the replay
    def run(self) -> None:
        search = ReplaySearch(self.p, time_limit=self.limit, checkpoint=self.checkpoint)
        try:
            found = search.run()
        except SearchStopped as e:
            if e.reason == "time" and self._can_prove() and search.leaked:
                self._attempt(search)
            self._stopped(search)
            return
        except AllocationError as e:
            self._fatal(search, str(e), "the Kubernetes search fails first")
            return
        self._finished(search, found)

    def _finish(self, search: ReplaySearch) -> None:
        self.ka.steps = search.steps
        self.ka.seconds = time.perf_counter() - self.t0
        first = search.first_seen
        self.ka.seen = [f"{describe(EVENT_DEFECT.get(e, e))} ("
                        + (f"first at step {first[e]})" if e in first else "when, not recorded)")
                        for e in sorted(search.defect_flags(), key=lambda e: (first.get(e, search.steps), e))]
        self.out.kubernetes = self.ka

    def _fatal(self, search: ReplaySearch, error: str, where: str) -> None:
        """A fatal error met on the way (a selector failing on a device the
        search reaches, an All request breaking a constraint): that error is
        Kubernetes' answer, and it depends on the order of the search."""
        out = self.out
        if out.status is not Status.ERROR or out.error != error:
            alone = out.status.value if out.status is not Status.ERROR else f"error {out.error!r}"
            out.notes.append(f"CP-SAT alone: {alone}; {where}")
            out.status, out.error, out.allocations = Status.ERROR, error, None
        self.ka.known, self.ka.same = True, True
        self.ka.statement = f"{where}: {error}; first-fit reports that error"
        self._finish(search)

    def _finished(self, search: ReplaySearch, found: bool) -> None:
        ref = Outcome(Status.ERROR, "replay", self.out.node, list(self.out.claims))
        try:
            fill_from_search(self.p, search, found, ref)
        except AllocationError as e:
            self._fatal(search, str(e), "Kubernetes fails building its result")
            return
        self.out.steps = search.steps
        self.ka.known = True
        if self.proven is not None and ref.status is Status.ALLOCATED:
            self.out.notes.append("dralloc bug: the replay allocates where the T-11 proof said it cannot, "
                                  "please report it")
        if _same_answer(ref, self.out):
            self.ka.same = True
            self.ka.statement = f"the replay of Kubernetes' search ({search.steps} steps) gives first-fit's answer"
            self._finish(search)
            return
        named = sorted({EVENT_DEFECT[e] for e in search.defect_flags() if e in EVENT_DEFECT}
                       | {t.defect for t in self.triggers if t.defect in STATIC_DEFECTS})
        shown = _shown(ref)
        self.out.notes.append(f"Kubernetes' answer differs: {shown}")
        self.out.defects = [describe(d) for d in named] or [
            "unexplained difference from the Kubernetes search"
            + ("" if self.triggers else " (no defect trigger held: a gap in dralloc's triggers, please report it)")]
        self.ka.same, self.ka.outcome = False, ref
        self.ka.statement = f"the replay of Kubernetes' search ({search.steps} steps) answers {shown}"
        self._finish(search)

    def _stopped(self, search: ReplaySearch) -> None:
        if self.proven is not None:
            self._proved(search)
            return
        ka = self.ka
        if not self.triggers:  # compare="always" replayed a case the triggers settle
            ka.how, ka.known, ka.same = "no trigger", True, True
            ka.statement = ("no documented Kubernetes defect can fire here, so Kubernetes' answer is first-fit's "
                            f"(the replay stopped at its time limit after {search.steps} steps)")
            self._finish(search)
            return
        if self.infeasible and self.refuse_only:  # compare="always" replayed a proven case
            ka.how, ka.known, ka.same = "proof", True, True
            ka.statement = ("the rules admit no allocation, and every defect that can fire here only makes "
                            f"Kubernetes refuse more ({_defects(self.triggers)}): Kubernetes answers no "
                            f"allocation too (the replay stopped at its time limit after {search.steps} steps)")
            self._finish(search)
            return
        ka.how = "stopped"
        seen = sorted({EVENT_DEFECT.get(e, e) for e in search.defect_flags()})
        ka.statement = "; ".join(self._known(search, seen))
        self.out.notes.append(f"Kubernetes' answer not known: {ka.statement}")
        self.out.defects = [f"{describe(d)} [seen firing; the replay stopped before Kubernetes' answer was known]"
                            for d in seen]
        self._finish(search)

    def _known(self, search: ReplaySearch, seen: list[str]) -> list[str]:
        """What is known when the replay stopped without an answer."""
        parts = [f"the replay of Kubernetes' search stopped at its time limit ({self.limit:g} s) after "
                 f"{search.steps} steps without an allocation, so Kubernetes' answer is not known",
                 f"defects that can fire here: {_defects(self.triggers)}"]
        if seen:
            parts.append(f"seen firing: {', '.join(seen)}")
        if search.leaked:
            parts.append(f"counters leaked so far: {leak_text(search.leaked)}")
        if not self.refuse_only:
            return parts
        allocated = self.out.status is Status.ALLOCATED
        parts.append("every one only makes Kubernetes refuse more, so its answer is first-fit's, a later "
                     "allocation in its search order, or no allocation" if allocated
                     else "every one only makes Kubernetes refuse more")
        if self.verdict is False and self.tried == leak_text(search.leaked):
            parts.append("with the leaked counters held back the rules still admit an allocation")
        if search.leaked and allocated:
            if fits_after_leaks(self.p, self.out, search.leaked):
                parts.append("first-fit's allocation still fits them")
            else:
                self.ka.same = False
                parts.append("first-fit's allocation no longer fits them, so Kubernetes' answer is not first-fit's")
        return parts

    def _proved(self, search: ReplaySearch) -> None:
        assert self.proven is not None
        step, held = self.proven
        ka, out = self.ka, self.out
        ka.how, ka.known, ka.same = "proof", True, False
        ka.outcome = Outcome(Status.UNSATISFIABLE, "replay", out.node, list(out.claims),
                             notes=["proven, not replayed to the end"])
        first = search.first_seen
        leaks = sorted((s, e) for e, s in first.items() if e.startswith("counter-leak-after-"))
        ka.statement = (f"no allocation: by step {step} Kubernetes' search had leaked {leak_text(held)} "
                        f"(first at step {leaks[0][0] if leaks else step}), and with those counters held back "
                        "the rules admit no allocation; every defect that can fire here only refuses more, so "
                        "Kubernetes answers no allocation (docs/engine.md)")
        out.notes.append(f"Kubernetes' answer differs: no allocation (proven: {ka.statement})")
        out.defects = [f"{describe(LEAK)} [proven: leaked {leak_text(held)}]"]
        self._finish(search)


def _caps(ch: object) -> str:
    caps = getattr(ch, "consumed_capacity", None)
    return ",".join(f"{k}:{q.value}" for k, q in sorted((caps or {}).items()))


def _summary(o: Outcome) -> tuple[str, object]:
    """The answer as compared: status, and per claim each result's request,
    device and consumed capacity."""
    if o.status is not Status.ALLOCATED:
        return (o.status.value if o.status is not Status.PARTIAL else "partial", None)
    return ("allocated", [tuple(f"{r.request}={r.driver}/{r.pool}/{r.device}[{_caps(r)}]"
                                for r in (a.devices.results or [])) if a.devices else ()
                          for a in o.allocations or []])


def _same_answer(ref: Outcome, out: Outcome) -> bool:
    if ref.status is Status.ALLOCATED or out.status is Status.ALLOCATED:
        return _summary(ref) == _summary(out)
    return True  # neither allocates: no allocation or an error either way


def _shown(o: Outcome) -> str:
    if o.status is not Status.ALLOCATED:
        return "no allocation" if o.status is Status.UNSATISFIABLE else f"error: {o.error}"
    return "; ".join(", ".join(f"{r.request}={r.driver}/{r.pool}/{r.device}" for r in (a.devices.results or []))
                     if a.devices else "" for a in o.allocations or [])
