"""Issue 21.1: no search takes the process down. The planner inputs that
aborted the process (tests/planner/abort_cases.py, in a subprocess so that
an abort fails this test instead of ending the run) answer, with the whole
demand placed and proven."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_inputs_that_aborted_the_planner_answer() -> None:
    run = subprocess.run([sys.executable, "-m", "tests.planner.abort_cases"], cwd=ROOT, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]   # was -6 (SIGABRT) with the CHECK message
    got = {c["case"]: c for c in map(json.loads, run.stdout.splitlines())}
    assert set(got) == {"fit", "fit --add", "fragmentation", "mixed model"}
    for name in ("fit", "fit --add", "mixed model"):
        c = got[name]
        assert c["firstFit"] == c["pods"] == c["demand"] == 19 and c["proven"], c
    assert got["mixed model"]["model"] == "mixed"
    frag = got["fragmentation"]
    assert frag["proven"] and frag["podsAfterRepack"] >= frag["pods"] >= frag["firstFit"], frag
