"""Upstream allocator test cases missing from the conformance corpus,
translated from the Go test table (answers and allocateOne counts as the Go
test pins them). Each runs in replay (answer and steps, incubating and
stable where pinned) and in CP-SAT first-fit (answer)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dralloc.check import check_scenario, run_scenario
from dralloc.features import Variant
from dralloc.io.scenario import Scenario, load_scenarios
from dralloc.solver.limits import NO_LIMIT
from tests.scenarios.replay_record import answer
from tests.scenarios.test_replay_record import own_record
from tests.solver.test_triggers import assert_fired_defects_have_triggers

FILES = sorted((Path(__file__).parent / "extra").glob("*.yaml"))
_STEPS = re.compile(r"allocateOne invocations \((\d+)(?:; (\d+) for the stable allocator)?\)")


def _load(path: Path) -> Scenario:
    """The scenario as dralloc reads it (Kubernetes' YAML meaning: a plain Y is true)."""
    scenarios, errors = load_scenarios([path])
    assert not errors, [str(e) for e in errors]
    return scenarios[0]


def test_extra_cases_present() -> None:
    assert len(FILES) >= 100  # the upstream table's cases missing from the corpus
    assert {p.stem for p in FILES} >= {"prioritized-list-max-allocation-allocation-mode-all",
                                       "check-combinations-with-prioritized-list",
                                       "check-combinations-with-backtracking"}


@pytest.mark.parametrize("mode", ["replay", "first-fit"])
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_extra_case_matches_kubernetes(path: Path, mode: str) -> None:
    sc = _load(path)
    res = check_scenario(sc, mode, replay_limit=NO_LIMIT if mode == "replay" else None)
    assert res.passed, "\n".join(res.differences)
    if mode == "replay":
        assert res.outcome is not None
        assert_fired_defects_have_triggers(sc, res.outcome)
        # step for step the search recorded before it was reorganised for speed
        assert {"steps": res.outcome.steps, "answer": answer(res.outcome)} == own_record(path)


def _step_cases() -> list[tuple[Path, str, int]]:
    out = []
    for f in FILES:
        m = _STEPS.search(" ".join(f.read_text(encoding="utf-8").split()))
        if m:
            out.append((f, "incubating", int(m.group(1))))
            if m.group(2):
                out.append((f, "stable", int(m.group(2))))
    return out


@pytest.mark.parametrize(("path", "variant", "steps"), _step_cases(),
                         ids=lambda v: v.stem if isinstance(v, Path) else str(v))
def test_extra_case_search_steps(path: Path, variant: str, steps: int) -> None:
    sc = _load(path)
    sc.variant = Variant(variant).value
    assert run_scenario(sc, "replay").steps == steps
