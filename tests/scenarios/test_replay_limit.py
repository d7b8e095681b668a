"""The replay's own time limit: ``dralloc check --time-limit`` (``none`` for
no limit) and ``allocate(replay_limit=...)``. Where the replay stops at it,
Kubernetes' answer is not known -- unlike an explicit ``time_limit``, which
models the scheduler's filter timeout and gives Kubernetes' own error."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest

from dralloc.check import run_scenario
from dralloc.cli.main import main
from dralloc.io.scenario import load_scenarios
from dralloc.solver import Status

# 108,312 search steps: a fraction of a second, far more than 0.01 s
DEEP = Path(__file__).parent / "conformance" / "random" / "rnd-constraints-2103-12.yaml"


def test_check_time_limit_stops_the_replay_and_none_runs_it_to_its_end(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / DEEP.name
    shutil.copy(DEEP, path)
    assert main(["check", "--mode", "replay", "-j", "1", "--time-limit", "0.01", str(path)]) == 1
    out = capsys.readouterr().out
    assert "replay stopped at its time limit (0.01 s)" in out
    assert "Kubernetes' answer is not known" in out and "default filter timeout" not in out
    assert out.splitlines()[-1] == "check: 0 passed, 1 failed"
    for limit in ("none", "NONE", "600"):
        assert main(["check", "--mode", "replay", "-j", "1", "--time-limit", limit, str(path)]) == 0
        assert capsys.readouterr().out.splitlines()[-1] == "check: 1 passed, 0 failed"


def test_check_time_limit_is_the_replays(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--mode", "first-fit", "--time-limit", "5", str(DEEP)]) == 2
    assert "--compare-time-limit" in capsys.readouterr().err
    for bad in ("0", "-1", "soon", "inf"):
        with pytest.raises(SystemExit) as e:
            main(["check", "--mode", "replay", "--time-limit", bad, str(DEEP)])
        assert e.value.code == 2
        assert "neither a positive number of seconds nor none" in capsys.readouterr().err


def test_replay_limit_says_not_known_and_a_time_limit_is_the_schedulers_deadline() -> None:
    (sc,), _ = load_scenarios([DEEP])
    out = run_scenario(sc, "replay", replay_limit=0.01)
    assert out.status is Status.ERROR and 64 <= out.steps < 108_312
    assert out.error is not None and out.error.startswith("replay stopped at its time limit (0.01 s) after")
    assert "Kubernetes' answer is not known" in out.error
    whole = run_scenario(sc, "replay", replay_limit=math.inf)
    assert whole.status is Status.ALLOCATED and whole.steps == 108_312
    # an explicit time limit is the scheduler's filter timeout: Kubernetes' own error, whatever the replay's limit
    from dralloc.solver.api import allocate

    cut = allocate(sc.objects, sc.node, sc.claims, allocated=sc.allocated, features=sc.features, mode="replay",
                   admission=False, time_limit=0.01, replay_limit=math.inf)
    assert cut.status is Status.ERROR and cut.error == "filter operation aborted: context deadline exceeded"
