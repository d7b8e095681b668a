"""Checking an engine's answer against a scenario's expected answer, field by
field (the rules of the scenario format)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dralloc.io.scenario import Scenario
from dralloc.models import AllocationResult
from dralloc.release import release
from dralloc.solver.api import allocate
from dralloc.solver.outcome import Outcome, Status

OPTIONAL = ("adminAccess", "tolerations", "bindingConditions", "bindingFailureConditions",
            "shareID", "consumedCapacity", "compatibilityGroups")
# how a pass was established
EQUAL = "equal answer"                    # the engine's answer is the expected one
NAMED_DEFECT = "named defect"             # first-fit differs; the replay gives the expected answer through a named defect
PROVEN = "proven"                         # first-fit differs; the solver proved Kubernetes' answer, the expected one
PROMISE_KEPT = "optimal's promise kept"   # optimal: verified, never worse than first-fit, unsatisfiable only where Kubernetes is


@dataclass
class CheckResult:
    name: str
    path: str = ""
    passed: bool = False
    skipped: str = ""
    differences: list[str] = field(default_factory=list)
    defects: list[str] = field(default_factory=list)   # passed only through a documented defect
    established: str = ""  # how a pass was established: EQUAL, NAMED_DEFECT, PROVEN or PROMISE_KEPT
    outcome: Outcome | None = None


def _result_diff(i: int, j: int, want: dict[str, Any], got: dict[str, Any]) -> list[str]:
    out = []
    for k in ("request", "driver", "pool", "device"):
        if want.get(k) != got.get(k):
            out.append(f"claim[{i}] result[{j}].{k}: want {want.get(k)!r}, got {got.get(k)!r}")
    for k in OPTIONAL:
        if k not in want:
            continue
        if k == "shareID":
            if not got.get(k):
                out.append(f"claim[{i}] result[{j}].shareID: want one, got none")
        elif want[k] != got.get(k):
            out.append(f"claim[{i}] result[{j}].{k}: want {want[k]!r}, got {got.get(k)!r}")
    return out


def compare_allocation(i: int, want: AllocationResult, got: AllocationResult) -> list[str]:
    w, g = want.dump(), got.dump()
    wr = (w.get("devices") or {}).get("results") or []
    gr = (g.get("devices") or {}).get("results") or []
    out = []
    if len(wr) != len(gr):
        out.append(f"claim[{i}]: want {len(wr)} result(s) {[r['device'] for r in wr]}, got {len(gr)} {[r['device'] for r in gr]}")
    for j, (a, b) in enumerate(zip(wr, gr, strict=False)):
        out.extend(_result_diff(i, j, a, b))
    if w.get("nodeSelector") != g.get("nodeSelector"):
        out.append(f"claim[{i}].nodeSelector: want {w.get('nodeSelector')}, got {g.get('nodeSelector')}")
    wc = (w.get("devices") or {}).get("config")
    if wc is not None and wc != (g.get("devices") or {}).get("config"):
        out.append(f"claim[{i}].config: want {wc}, got {(g.get('devices') or {}).get('config')}")
    return out


def compare_answer(sc: Scenario, got: Outcome) -> list[str]:
    exp = sc.expect
    assert exp is not None
    if exp.error is not None:
        if got.status is not Status.ERROR:
            return [f"want error containing {exp.error!r}, got {got.status.value}"]
        if exp.error not in (got.error or ""):
            return [f"want error containing {exp.error!r}, got error {got.error!r}"]
        return []
    if got.status is Status.ERROR:
        return [f"unexpected error: {got.error}"]
    if exp.unsatisfiable:
        return [] if got.status is Status.UNSATISFIABLE else ["want unsatisfiable, got an allocation"]
    if got.status is not Status.ALLOCATED or got.allocations is None:
        return ["want an allocation, got unsatisfiable"]
    want = exp.allocations or []
    if len(want) != len(got.allocations):
        return [f"want {len(want)} allocation(s), got {len(got.allocations)}"]
    out: list[str] = []
    for i, (a, b) in enumerate(zip(want, got.allocations, strict=True)):
        out.extend(compare_allocation(i, a, b))
    return out


def run_scenario(sc: Scenario, mode: str = "replay", compare: str = "auto",
                 compare_time_limit: float | None = None, kubernetes_version: str | None = None,
                 replay_limit: float | None = None) -> Outcome:
    """The scenario's question, its objects taken as the allocator's own input
    (no admission: the format describes what the allocator is given, and
    Kubernetes' allocator test table gives it objects the API server would
    refuse; docs/inputs.md). The scenario's gates are taken as they are, in
    ``kubernetes_version`` (default: the scenario's own, else 1.37): it picks
    the variant unless the scenario names one. ``replay_limit``: the replay's
    own time limit (replay mode; default Kubernetes' filter timeout,
    ``math.inf``: none)."""
    return allocate(sc.objects, sc.node, sc.claims, allocated=sc.allocated, features=sc.features,
                    mode=mode, variant=sc.variant, admission=False,
                    compare=compare, compare_time_limit=compare_time_limit,
                    kubernetes_version=kubernetes_version or sc.kubernetes_version, replay_limit=replay_limit)


def other_release(sc: Scenario, kubernetes_version: str | None) -> str:
    """Why the scenario's answer is not the one asked for: it holds the answer
    of the release it names (``kubernetes_version`` in the file), not of
    ``kubernetes_version``; or ""."""
    if sc.kubernetes_version is None or kubernetes_version is None:
        return ""
    if release(sc.kubernetes_version).version == release(kubernetes_version).version:
        return ""
    return f"the scenario holds Kubernetes {release(sc.kubernetes_version)}'s answer (its kubernetes_version)"


def missing_gates(sc: Scenario, kubernetes_version: str | None) -> str:
    """Why the scenario cannot be asked of that release (a gate it turns on
    that the release does not have), or ""."""
    rel = release(kubernetes_version)
    return "; ".join(rel.missing_gate(g) for g in sorted(sc.features) if not rel.has_gate(g))


def check_scenario(sc: Scenario, mode: str = "replay", compare: str = "auto",
                   compare_time_limit: float | None = None, kubernetes_version: str | None = None,
                   replay_limit: float | None = None) -> CheckResult:
    """Run one scenario under release ``kubernetes_version`` and judge the
    answer; a scenario turning on a gate that release does not have is
    skipped (the question does not exist there)."""
    res = CheckResult(sc.name, sc.path)
    if sc.skip_reason:
        res.skipped = sc.skip_reason
        return res
    res.skipped = other_release(sc, kubernetes_version) or missing_gates(sc, kubernetes_version or sc.kubernetes_version)
    if res.skipped:
        return res
    if sc.expect is None:
        res.skipped = "no expect in the scenario"
        return res
    try:
        got = run_scenario(sc, mode, compare, compare_time_limit, kubernetes_version, replay_limit)
    except Exception as e:  # a bug must not stop the batch: report it as a failure
        res.differences = [f"internal error: {type(e).__name__}: {e}"]
        return res
    res.outcome = got
    if mode == "optimal":
        res.differences = optimal_promise(sc, got)
        res.established = PROMISE_KEPT
        res.passed = not res.differences
        return res
    res.differences = compare_answer(sc, got)
    if mode == "first-fit":
        _judge_first_fit(sc, got, res)
    elif not res.differences:
        res.established = EQUAL
    res.passed = not res.differences
    return res


def optimal_promise(sc: Scenario, got: Outcome) -> list[str]:
    """What optimal promises, checked against a scenario holding Kubernetes'
    answer: the same errors; unsatisfiable (or partial) only where Kubernetes
    is; an answer the independent verifier accepts; objectives,
    lexicographically, at least first-fit's. Its devices may differ."""
    exp = sc.expect
    assert exp is not None
    if exp.error is not None or got.status is Status.ERROR:
        return compare_answer(sc, got)
    if "objectives" not in got.solver:  # answered by the replay (order-dependent selector errors)
        return compare_answer(sc, got)
    if got.status is not Status.ALLOCATED and not exp.unsatisfiable:
        return [f"optimal is {got.status.value} where Kubernetes allocates"]
    out = [f"the independent verifier rejects optimal's answer: {f}" for f in got.findings]
    return out + objective_shortfall(got)


def objective_shortfall(got: Outcome) -> list[str]:
    """Where optimal's answer is worse than first-fit's (objectives compared
    lexicographically, in priority order)."""
    for rec in got.solver.get("objectives") or []:  # type: ignore[attr-defined]
        if "firstFit" not in rec or "value" not in rec:
            continue
        val, ff = int(rec["value"]), int(rec["firstFit"])
        if val == ff:
            continue
        if (val > ff) == bool(rec["maximize"]):
            return []
        return [f"objective {rec['objective']}: optimal's answer scores {val}, worse than first-fit's {ff}"]
    return []


def _judge_first_fit(sc: Scenario, got: Outcome, res: CheckResult) -> None:
    """first-fit follows the rules; the scenario holds Kubernetes' answer. A
    difference passes only when dralloc knows Kubernetes answers otherwise
    (the replay, with a documented defect named, or a proof) and that answer
    is the expected one."""
    ka = got.kubernetes
    known_other = ka is not None and ka.known and ka.same is False
    if not res.differences:
        if known_other:
            assert ka is not None
            res.differences = [f"first-fit's answer is the expected one, but dralloc says Kubernetes answers "
                               f"otherwise ({ka.how}): {ka.statement}"]
        else:
            res.established = EQUAL
        return
    if ka is None or not known_other or ka.outcome is None:
        if ka is not None and not ka.known:
            res.differences.append(f"Kubernetes' answer not known: {ka.statement}")
        return
    theirs = compare_answer(sc, ka.outcome)
    if theirs:
        res.differences.append(f"Kubernetes' answer as dralloc knows it ({ka.how}) differs too: "
                               + "; ".join(theirs))
        return
    if any(d.startswith("unexplained") for d in got.defects):
        res.differences.append("Kubernetes' answer differs from first-fit's without a documented defect: "
                               + "; ".join(got.defects))
        return
    res.differences = []
    res.defects = list(got.defects)
    res.established = PROVEN if ka.how == "proof" else NAMED_DEFECT
