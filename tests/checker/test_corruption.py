"""The corruption suite with a small budget: the replay's answers on the
curated scenarios (data/) and a seeded sample of the conformance corpus are
clean, and every corruption of every class that breaks a rule is flagged
with that rule, while those that break none leave the state clean.

The large budget runs on demand: ``python benchmarks/corruption_suite.py
--seed N [PATHS]`` (docs/verify.md has the table of a run over the shared
corpora). ``DRALLOC_CORRUPTION_SAMPLE`` sets the sample size here (``all``
for the whole corpus), ``DRALLOC_CORRUPTION_SEED`` the seed."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from corrupt_base import Base
from corrupt_suite import CLASSES, bases, run

from dralloc.io.loader import iter_files
from dralloc.io.scenario import load_scenarios

HERE = Path(__file__).parent
CORPUS = HERE.parent / "scenarios"
SEED = int(os.environ.get("DRALLOC_CORRUPTION_SEED", "16"))
SAMPLE = os.environ.get("DRALLOC_CORRUPTION_SAMPLE", "30")


def _files() -> list[Path]:
    corpus = [p for p in iter_files([CORPUS]) if p is not None]
    if SAMPLE != "all":
        corpus = random.Random(SEED).sample(corpus, min(int(SAMPLE), len(corpus)))
    return [p for p in iter_files([HERE / "data"]) if p is not None] + corpus


@pytest.fixture(scope="module")
def states() -> tuple[list[Base], dict[str, int]]:
    scenarios, unreadable = load_scenarios(_files())
    assert unreadable == []
    excluded: dict[str, int] = {}
    return bases(scenarios, excluded), excluded


def test_replay_answers_are_clean_and_every_corruption_is_decided_right(
        states: tuple[list[Base], dict[str, int]]) -> None:
    found, excluded = states
    assert "not clean" not in excluded, excluded  # a replay answer without a named defect breaks no rule
    assert len(found) >= 20
    res = run(found, SEED)
    assert res.failures == [], "\n".join(res.failures)
    untried = [name for name, s in res.classes.items() if not s.tried]
    assert untried == [], f"classes the sample never exercised: {untried}"
    assert sum(s.flagged for s in res.classes.values()) > sum(s.not_violation for s in res.classes.values())


def test_every_class_has_a_decision_for_both_outcomes_where_the_spec_has_one(
        states: tuple[list[Base], dict[str, int]]) -> None:
    """The classes that can be harmless are decided both ways on the sample:
    a pod moved to a node its claims admit stays clean, one they bar is
    flagged; a taint the request tolerates (or with DRADeviceTaints off)
    stays clean."""
    res = run(states[0], SEED, classes=tuple(c for c in CLASSES if c.__name__ in ("pod_moved", "taint_added")))
    for name in ("pod_moved", "taint_added"):
        s = res.classes[name]
        assert s.flagged and s.not_violation, (name, s)
