"""``check --mode optimal`` checks what optimal promises, not Kubernetes'
devices: the answer passes the independent verifier, every objective
(lexicographically) is at least first-fit's, and it is unsatisfiable (or an
error) only where Kubernetes is. Over the whole corpus, and on answers
that break each promise."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from dralloc.check import (
    PROMISE_KEPT,
    check_scenario,
    objective_shortfall,
    optimal_promise,
    run_scenario,
)
from dralloc.cli.main import main
from dralloc.solver.outcome import Outcome, Status
from tests.scenarios.test_conformance import FILES, HERE, _load


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_optimal_keeps_its_promise(path: Path) -> None:
    res = check_scenario(_load(path), "optimal")
    assert res.passed, "\n".join(res.differences)
    assert res.established == PROMISE_KEPT


def _outcome(objectives: list[dict[str, object]]) -> Outcome:
    return Outcome(Status.ALLOCATED, "optimal", "n", [], solver={"objectives": objectives})


def test_a_worse_objective_breaks_the_promise() -> None:
    claims = {"objective": "claims", "maximize": True, "value": 2, "firstFit": 2}
    worse = {"objective": "best-fit", "maximize": False, "value": 12, "firstFit": 10}
    better = {"objective": "best-fit", "maximize": False, "value": 8, "firstFit": 10}
    assert objective_shortfall(_outcome([claims, worse])) == [
        "objective best-fit: optimal's answer scores 12, worse than first-fit's 10"]
    assert objective_shortfall(_outcome([claims, better])) == []
    # lexicographic: more claims served outweighs a worse second objective
    more = {"objective": "claims", "maximize": True, "value": 3, "firstFit": 2}
    assert objective_shortfall(_outcome([more, worse])) == []
    fewer = {"objective": "claims", "maximize": True, "value": 1, "firstFit": 2}
    assert objective_shortfall(_outcome([fewer, better]))[0].startswith("objective claims")


SIMPLE = HERE / "upstream" / "simple.yaml"


def test_unsatisfiable_where_kubernetes_allocates_breaks_the_promise() -> None:
    sc = _load(SIMPLE)
    got = run_scenario(sc, "optimal")
    assert optimal_promise(sc, got) == []
    refused = dataclasses.replace(got, status=Status.UNSATISFIABLE, allocations=None)
    assert optimal_promise(sc, refused) == ["optimal is unsatisfiable where Kubernetes allocates"]
    rejected = dataclasses.replace(got, findings=["device-exists: no such device"])
    assert optimal_promise(sc, rejected) == [
        "the independent verifier rejects optimal's answer: device-exists: no such device"]


def test_the_answer_records_first_fit_for_every_objective() -> None:
    got = run_scenario(_load(SIMPLE), "optimal")
    recs = got.solver["objectives"]
    assert [r["objective"] for r in recs] == ["claims", "best-fit"]  # type: ignore[index]
    assert all("firstFit" in r and "value" in r for r in recs)  # type: ignore[union-attr]


def test_check_cli_in_optimal_mode(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(HERE / "upstream"), "--mode", "optimal", "-j", "1"]) == 0
    assert "0 failed" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    assert "never worse than first-fit" in " ".join(capsys.readouterr().out.split())
