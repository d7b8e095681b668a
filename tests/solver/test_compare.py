"""first-fit against Kubernetes' own answer (dralloc/solver/compare.py): no
replay where no defect can fire, solver-side proofs, a replay bounded by time
that says what is known when it stops, compare=auto|always|never, and check
reporting how each pass was established."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from dralloc.check import EQUAL, NAMED_DEFECT, PROVEN, check_scenario
from dralloc.cli.main import main
from dralloc.errors import InputError
from dralloc.io import parse_object
from dralloc.io.scenario import Scenario, parse_scenario
from dralloc.solver import Status, allocate, replay_run

SYNTHETIC = Path(__file__).resolve().parents[1] / "scenarios" / "conformance" / "synthetic-t11"
DRIVER = "gpu.example.com"
GATES = ["DRAPartitionableDevices", "DRADeviceTaints"]


def _sc(name: str) -> Scenario:
    path = SYNTHETIC / f"{name}.yaml"
    return parse_scenario(yaml.safe_load(path.read_text(encoding="utf-8")), str(path))


def _pool(name: str, devices: list[dict[str, Any]], counters: dict[str, str]) -> list[dict[str, Any]]:
    ref = {"name": name, "generation": 1, "resourceSliceCount": 2}
    return [{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{name}-devices"},
             "spec": {"driver": DRIVER, "nodeName": "node-1", "pool": ref, "devices": devices}},
            {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{name}-counters"},
             "spec": {"driver": DRIVER, "nodeName": "node-1", "pool": ref, "sharedCounters": [
                 {"name": "cs", "counters": {k: {"value": v} for k, v in counters.items()}}]}}]


def _dev(name: str, use: str, taint: bool = False) -> dict[str, Any]:
    d: dict[str, Any] = {"name": name, "consumesCounters": [{"counterSet": "cs", "counters": {"mem": {"value": use}}}]}
    if taint:
        d["taints"] = [{"key": "broken", "value": "yes", "effect": "NoSchedule"}]
    return d


def _objects(pools: list[list[dict[str, Any]]]) -> list[Any]:
    cls = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"}, "spec": {}}
    return [parse_object(o) for o in [cls, *(s for p in pools for s in p)]]


def _claim(name: str, count: int) -> Any:
    return parse_object({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                         "metadata": {"name": name, "namespace": "default"},
                         "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu",
                                                                                     "count": count}}]}}})


def _trap(n: int) -> list[dict[str, Any]]:
    """Kubernetes tries every set holding the double-cost device-1 first."""
    k = n - 1
    return _pool("trap", [_dev(f"device-{i}", "20Gi" if i == 1 else "10Gi") for i in range(1, n + 1)],
                 {"mem": f"{k * 10}Gi"})


def test_no_trigger_means_no_replay() -> None:
    out = allocate(_objects([_trap(8)]), "node-1", [_claim("c", 7)], allocated=[], features=GATES, mode="first-fit")
    assert out.status is Status.ALLOCATED and out.kubernetes is not None
    assert (out.kubernetes.how, out.kubernetes.known, out.kubernetes.same) == ("no trigger", True, True)
    assert out.kubernetes.steps == 0 and out.steps == 0
    forced = allocate(_objects([_trap(8)]), "node-1", [_claim("c", 7)], allocated=[], features=GATES,
                      mode="first-fit", compare="always")
    assert forced.kubernetes is not None and forced.kubernetes.how == "replay" and forced.kubernetes.same
    assert forced.steps == 4255  # Kubernetes' search, replayed step for step


def test_rules_infeasible_with_only_refusing_defects_is_proven_without_replay() -> None:
    mig = _pool("a-mig", [_dev("mig-0", "1", taint=True), _dev("mig-1", "1")], {"mem": "1"})
    out = allocate(_objects([mig]), "node-1", [_claim("c", 3)], allocated=[], features=GATES, mode="first-fit")
    assert out.status is Status.UNSATISFIABLE and out.kubernetes is not None
    assert (out.kubernetes.how, out.kubernetes.known, out.kubernetes.same) == ("proof", True, True)
    assert out.kubernetes.steps == 0
    assert "counter-leak-on-late-refusal" in out.kubernetes.statement


def test_leaked_counters_prove_no_allocation_early() -> None:
    sc = _sc("t11-taint-leak-over-budget")
    res = check_scenario(sc, "first-fit")
    assert res.passed and res.established == PROVEN
    assert res.outcome is not None and res.outcome.kubernetes is not None
    ka = res.outcome.kubernetes
    assert ka.how == "proof" and ka.same is False and ka.outcome is not None
    assert ka.outcome.status is Status.UNSATISFIABLE
    assert ka.steps < 5_000  # Kubernetes itself needs 200,170 steps to find out
    assert any(d.startswith("counter-leak-on-late-refusal") and "[proven" in d for d in res.outcome.defects)
    assert "gpu.example.com/a-mig: cs {slice-0 1}" in ka.statement
    # the same question without the comparison: first-fit's own (rule-following) answer only
    assert check_scenario(sc, "first-fit", compare="never").passed is False


def test_small_leak_cases_pass_through_a_named_defect() -> None:
    for name in ("t11-taint-leak-small", "t11-constraint-leak-small"):
        res = check_scenario(_sc(name), "first-fit")
        assert res.passed and res.established in (NAMED_DEFECT, PROVEN), name
        assert any(d.startswith("counter-leak-on-late-refusal") for d in res.defects), name


def test_stopped_replay_states_what_is_known_and_keeps_what_it_saw() -> None:
    # a tainted partition of its own pool leaks on every level of an exponential search,
    # but the counters it leaks are not needed: no proof, the replay runs out of time
    mig = _pool("a-mig", [_dev("mig-0", "1", taint=True)], {"mem": "5"})
    out = allocate(_objects([mig, _trap(30)]), "node-1", [_claim("c", 29)], allocated=[], features=GATES,
                   mode="first-fit", compare_time_limit=0.3)
    assert out.status is Status.ALLOCATED and out.kubernetes is not None
    ka = out.kubernetes
    assert (ka.how, ka.known, ka.same) == ("stopped", False, None)
    assert ka.steps > 1000
    assert "not known" in ka.statement and "seen firing: counter-leak-on-late-refusal" in ka.statement
    assert "a-mig: cs {mem 5}" in ka.statement  # leaked five times, then refused by its counter
    assert "still admit an allocation" in ka.statement and "first-fit's allocation still fits them" in ka.statement
    assert out.defects and all("[seen firing" in d for d in out.defects)
    assert any(s.startswith("counter-leak-on-late-refusal") and "first at step" in s for s in ka.seen)


def test_compare_never_and_bad_values() -> None:
    out = allocate(_objects([_trap(8)]), "node-1", [_claim("c", 7)], allocated=[], features=GATES,
                   mode="first-fit", compare="never")
    assert out.kubernetes is not None and out.kubernetes.how == "not compared" and not out.kubernetes.known
    with pytest.raises(InputError, match="unknown compare"):
        allocate(_objects([_trap(8)]), "node-1", [_claim("c", 7)], features=GATES, mode="first-fit",
                 compare="sometimes")


def test_replay_mode_has_a_default_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replay_run, "DEFAULT_REPLAY_SECONDS", 0.2)
    out = allocate(_objects([_trap(30)]), "node-1", [_claim("c", 29)], allocated=[], features=GATES, mode="replay")
    assert out.status is Status.ERROR and out.steps > 1000
    assert out.error is not None and "replay stopped at its time limit (0.2 s" in out.error
    assert "Kubernetes' answer is not known" in out.error


def test_check_cli_reports_how_passes_were_established(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "-j", "1", str(SYNTHETIC)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "check: 4 passed (2 through a named Kubernetes defect, 2 proven), 0 failed"
    assert any(line.startswith("PASS t11-taint-leak-over-budget (Kubernetes' answer differs, proven: ")
               for line in lines)
    assert main(["check", "-j", "1", "--compare", "never", str(SYNTHETIC)]) == 1
    assert "check: 0 passed, 4 failed" in capsys.readouterr().out


def test_cli_rejects_a_bad_compare_time_limit(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["check", "--compare-time-limit", "-1", str(SYNTHETIC)])
    assert e.value.code == 2
    assert "argument --compare-time-limit: -1 is not a positive number of seconds" in capsys.readouterr().err


def test_equal_answers_are_established_as_such() -> None:
    upstream = Path(__file__).resolve().parents[1] / "scenarios" / "conformance" / "upstream"
    path = sorted(upstream.glob("*.yaml"))[0]
    res = check_scenario(parse_scenario(yaml.safe_load(path.read_text(encoding="utf-8")), str(path)), "first-fit")
    assert res.passed and res.established == EQUAL


def test_stopped_replay_can_still_prove_first_fit_is_not_kubernetes_answer() -> None:
    # first-fit takes mig-1; Kubernetes first tries the tainted mig-0, which leaks the
    # pool's only counter, so it can never take mig-1 -- but it has other devices to try
    mig = _pool("a-mig", [_dev("mig-0", "1", taint=True), _dev("mig-1", "1")], {"mem": "1"})
    out = allocate(_objects([mig, _trap(30)]), "node-1", [_claim("c", 29)], allocated=[], features=GATES,
                   mode="first-fit", compare_time_limit=0.3)
    assert out.allocations is not None and out.allocations[0].devices is not None
    assert (out.allocations[0].devices.results or [])[0].device == "mig-1"
    ka = out.kubernetes
    assert ka is not None and (ka.how, ka.known, ka.same) == ("stopped", False, False)
    assert "still admit an allocation" in ka.statement
    assert "first-fit's allocation no longer fits them, so Kubernetes' answer is not first-fit's" in ka.statement


def test_allocate_cli_says_when_kubernetes_answers_otherwise(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["allocate", str(SYNTHETIC / "t11-taint-leak-over-budget.yaml"), "-o", "table"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("dralloc allocate: note: Kubernetes' answer (proof): no allocation")
    assert main(["allocate", str(SYNTHETIC / "t11-taint-leak-over-budget.yaml"), "--compare", "never"]) == 0
    assert capsys.readouterr().err == ""
