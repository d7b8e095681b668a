"""Kubernetes 1.37's alpha allocator features, as scenarios written from their
KEPs' examples (tests/scenarios/kep137; no Kubernetes allocator implements
derived attributes or compatibility groups in the sources dralloc follows, so
each expected answer is the KEP's text applied by hand, as the scenario's
description says): derived attributes (KEP-6080), device compatibility groups
(KEP-5963) and list-type attributes' second alpha (KEP-5491: the restored
matchAttribute intersection). Every scenario passes in replay, CP-SAT
first-fit and optimal, and every answer passes the independent checker."""

from __future__ import annotations

from pathlib import Path

import pytest

from dralloc.check import NAMED_DEFECT, check_scenario
from dralloc.io.scenario import Scenario, load_scenarios
from dralloc.solver.outcome import Status
from tests.solver.test_triggers import assert_fired_defects_have_triggers

FILES = sorted((Path(__file__).parent / "kep137").glob("*.yaml"))


def _load(path: Path) -> Scenario:
    scenarios, errors = load_scenarios([path])
    assert not errors, [str(e) for e in errors]
    return scenarios[0]


def test_every_kep_is_covered() -> None:
    names = {p.stem for p in FILES}
    assert sum(n.startswith("derived-") for n in names) >= 8
    assert sum(n.startswith("compat-") for n in names) >= 10
    assert {"list-match-restores-intersection-1.37", "list-match-stale-intersection-1.36"} <= names


@pytest.mark.parametrize("mode", ["replay", "first-fit", "optimal"])
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_kep_example(path: Path, mode: str) -> None:
    sc = _load(path)
    res = check_scenario(sc, mode)
    assert res.passed, "\n".join(res.differences)
    out = res.outcome
    assert out is not None
    if out.status is Status.ALLOCATED:
        assert out.verified and not out.findings, out.findings
    if mode == "replay":
        assert_fired_defects_have_triggers(sc, out)


def test_the_136_intersection_defect_is_named() -> None:
    """1.36's allocator refuses what the rules allow; first-fit finds the
    rule's answer and says which defect makes Kubernetes differ."""
    res = check_scenario(_load(Path(__file__).parent / "kep137" / "list-match-stale-intersection-1.36.yaml"),
                         "first-fit")
    assert res.passed and res.established == NAMED_DEFECT
    assert res.outcome is not None and res.outcome.kubernetes is not None
    assert "match-attribute-stale-intersection" in " ".join(res.outcome.defects)


def test_results_record_compatibility_groups_only_with_the_gate() -> None:
    sc = _load(Path(__file__).parent / "kep137" / "compat-example-3-second-mig.yaml")
    res = check_scenario(sc, "replay")
    assert res.outcome is not None and res.outcome.allocations is not None
    got = res.outcome.allocations[0].devices
    assert got is not None and got.results is not None
    assert got.results[0].compatibility_groups == {"gpu-0-counters": ["mig"]}


def test_devices_skipped_without_the_gate_are_reported_as_such() -> None:
    sc = _load(Path(__file__).parent / "kep137" / "compat-gate-off-skips-grouped-counter-set.yaml")
    res = check_scenario(sc, "first-fit")
    assert res.passed and res.outcome is not None
    why = " ".join(res.outcome.reasons)
    assert "2 feature gate off (compatibility groups, DRADeviceCompatibilityGroups off)" in why
