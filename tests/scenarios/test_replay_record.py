"""Kubernetes' search, step for step: the replay's step counts and answers
on every corpus scenario in every allocator variant its features allow,
against the record made with the replay before its search was reorganised
for speed (``replay_record.json``, :mod:`tests.scenarios.replay_record`).
This file compares every variant (stable searches permutations, the others
combinations) with its path digest; the conformance tests also compare
the steps and answer of each scenario's own variant."""

from __future__ import annotations

import json

import pytest

from tests.scenarios.replay_record import RECORD, VARIANTS, corpus_files, key, replay

ROWS = json.loads(RECORD.read_text(encoding="utf-8"))


def test_every_corpus_file_is_recorded() -> None:
    assert sorted(ROWS) == sorted(key(f) for f in corpus_files())
    assert len(ROWS) >= 620
    assert sum(1 for row in ROWS.values() for v in VARIANTS if row.get(v)) >= 1500


@pytest.mark.parametrize("path", corpus_files(), ids=key)
def test_every_variant_searches_as_recorded(path: object) -> None:
    from pathlib import Path

    assert isinstance(path, Path)
    row = ROWS[key(path)]
    for v in VARIANTS:
        if v in row:
            assert replay(path, v) == row[v], v


def own_record(path: object) -> dict[str, object] | None:
    """The recorded steps and answer of a scenario file in its own variant
    (its path digest is compared by :func:`test_every_variant_searches_as_recorded`)."""
    from pathlib import Path

    assert isinstance(path, Path)
    row = ROWS[key(path)]
    got: dict[str, object] | None = row[row["variant"]]
    return None if got is None else {"steps": got["steps"], "answer": got["answer"]}
