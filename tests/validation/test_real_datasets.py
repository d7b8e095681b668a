"""Every file of the real-driver dataset (the shared one, copied into
tests/data/real with its SOURCES.md) loads (or is reported by name) and
validates without a crash."""

from __future__ import annotations

from pathlib import Path

from dralloc.io import load
from dralloc.validation import validate

DATASET = Path(__file__).resolve().parents[1] / "data" / "real"


def test_every_real_file_is_read_or_reported() -> None:
    files = sorted(p for p in DATASET.rglob("*") if p.suffix in (".yaml", ".yml", ".json"))
    for path in files:
        objs = load([path], collect=True)
        findings = validate(objs)
        read = sum(1 for _ in objs.all())
        # each file yields objects, named skips or located errors; never nothing silently
        assert read or objs.skipped or objs.errors or not path.read_text().strip(), path
        for f in findings:
            assert f.source.startswith(str(path)) and f.message and f.rule
