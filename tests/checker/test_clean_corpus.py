"""Answers of the Kubernetes search on conformance scenarios (small copies in
data/) follow every rule: allocate with replay, then verify."""

from __future__ import annotations

from pathlib import Path

import pytest

from dralloc.check import run_scenario
from dralloc.checker import ERROR, verify_allocation
from dralloc.features import Features, Variant
from dralloc.io.scenario import load_scenarios

DATA = Path(__file__).parent / "data"
SCENARIOS, _ = load_scenarios([DATA])


def test_corpus_is_there() -> None:
    assert len(SCENARIOS) >= 10


@pytest.mark.parametrize("sc", SCENARIOS, ids=lambda s: s.name)
def test_replay_answer_verifies_clean(sc) -> None:  # type: ignore[no-untyped-def]
    out = run_scenario(sc)
    if not out.ok:  # nothing to verify: Kubernetes does not allocate either
        assert sc.expect is not None and not sc.expect.allocations, sc.name
        return
    feats = Features.from_gates(sc.features)
    var = Variant(sc.variant) if sc.variant else None
    found = verify_allocation(sc.objects.slices, sc.objects.classes, sc.node, sc.claims, out.allocations,
                              sc.allocated, feats, var)
    assert [str(f) for f in found if f.level == ERROR] == []


def test_expected_answers_verify_clean() -> None:
    """The answers written in the scenarios (Kubernetes' own) are clean too."""
    checked = 0
    for sc in SCENARIOS:
        if sc.expect is None or not sc.expect.allocations:
            continue
        feats = Features.from_gates(sc.features)
        var = Variant(sc.variant) if sc.variant else None
        found = verify_allocation(sc.objects.slices, sc.objects.classes, sc.node, sc.claims,
                                  sc.expect.allocations, sc.allocated, feats, var)
        assert [str(f) for f in found if f.level == ERROR] == [], sc.name
        checked += 1
    assert checked >= 8
