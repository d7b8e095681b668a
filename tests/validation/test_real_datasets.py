"""Every file of the shared real-driver dataset loads (or is reported by
name) and validates without a crash. Runs only where the dataset exists."""

from __future__ import annotations

from pathlib import Path

import pytest

from dralloc.io import load
from dralloc.validation import validate

DATASET = Path("/work/shared/datasets/real")


@pytest.mark.skipif(not DATASET.is_dir(), reason="shared dataset not available")
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
