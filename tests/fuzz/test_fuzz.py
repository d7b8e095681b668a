"""The fuzz suite's CI budget: a fixed seed, a few dozen inputs of every
family (mutated scenarios, hostile CEL, garbage documents) through the
library, the CLI in-process and a subprocess. No input may end in an internal
error, a crash, a hang, a silent overrun of its time limit or a wrong answer.
The large budget: ``python -m benchmarks.fuzz --seed S --inputs N``
(docs/fuzz.md)."""

from __future__ import annotations

import os

import pytest

from tests.fuzz.driver import Limits
from tests.fuzz.runner import campaign

SEED = 20_260_611
INPUTS = int(os.environ.get("DRALLOC_FUZZ_INPUTS", "90"))
CHUNKS = 3


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_fuzz_small_budget(chunk: int) -> None:
    per = INPUTS // CHUNKS
    summary = campaign(SEED, range(chunk * per, (chunk + 1) * per), Limits(engine=2.0, watchdog=120.0,
                                                                          subprocess_share=0.05))
    assert summary.inputs == per
    assert sum(summary.by_run.values()) > per   # every input ran somewhere
    assert summary.failed == 0, "\n".join(
        f"input {f['index']} ({f['family']}, {f['source']}: {f['what']}): "
        + "; ".join(f"{r['class']} {r['route']}: {r['detail'][:200]}" for r in f["runs"])
        for f in summary.failures)
