"""Every unsatisfiable upstream scenario gets an explanation that names what
blocks it: the requests involved and, where they matter, the devices,
counters or constraints."""

from __future__ import annotations

from pathlib import Path

import pytest

from dralloc.features import Features
from dralloc.inventory.problem import build_problem
from dralloc.solver.explain import core_and_encoding, explain
from tests.scenarios.test_conformance import _load

UPSTREAM = Path(__file__).resolve().parents[1] / "scenarios" / "conformance" / "upstream"
UNSAT = [p for p in sorted(UPSTREAM.glob("*.yaml")) if "unsatisfiable: true" in p.read_text()]


def test_there_are_unsatisfiable_cases() -> None:
    assert len(UNSAT) >= 20


@pytest.mark.parametrize("path", UNSAT, ids=lambda p: p.stem)
def test_unsatisfiable_scenario_is_explained(path: Path) -> None:
    sc = _load(path)
    p = build_problem(sc.objects.slices, sc.objects.classes, sc.node, sc.claims, sc.allocated,
                      Features.from_gates(sc.features), sc.variant)
    found = core_and_encoding(p)
    assert found is not None, "the model must be infeasible"
    core, _ = found
    assert any(label.startswith("request ") for label in core)
    text = "\n".join(explain(p))
    assert "minimal conflicting set" in text
    for label in core:
        assert label.split(" ", 1)[1].split("#")[0] in text
