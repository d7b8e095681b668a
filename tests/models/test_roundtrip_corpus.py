"""load → dump → load is the identity for every object of the conformance
corpus and the extra upstream cases (slices, classes, claims with allocations)."""

from __future__ import annotations

from pathlib import Path

import yaml

from dralloc.io import parse_object

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"


def test_every_corpus_object_round_trips() -> None:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    seen = 0
    for path in sorted(SCENARIOS.rglob("*.yaml")):
        doc = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)  # noqa: S506 - a safe loader
        for raw in [*(doc.get("objects") or []), *(doc.get("allocated") or []), *(doc.get("claims") or [])]:
            obj = parse_object(raw, str(path))
            assert obj is not None
            again = parse_object(obj.dump(), str(path))
            assert again == obj, f"{path.name}: {obj.ref}"
            assert again is not None and again.dump() == obj.dump()
            seen += 1
    assert seen > 4000
