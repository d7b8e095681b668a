"""Sweeps on a Dask cluster the test starts (dask[distributed] comes with the dev extra)."""

from __future__ import annotations

import json
from pathlib import Path

import distributed  # the dev extra installs it: the sweep path runs in CI

from dralloc.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "planner"


def test_demand_sweep_on_a_local_dask_cluster(capsys, tmp_path):
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    try:
        files = [str(p) for p in sorted((EXAMPLES / "layout").glob("*.yaml")) if p.name == "cluster.yaml"]
        argv = ["plan", "fit", *files, "--demand", str(EXAMPLES / "layout" / "demand.yaml"),
                "--demand", str(EXAMPLES / "add-nodes" / "demand.yaml"), "--scheduler", cluster.scheduler_address,
                "-o", "json"]
        assert main(argv) == 0
        out = json.loads(capsys.readouterr().out)["items"]  # several answers: a List, as kubectl prints
    finally:
        cluster.close()
    assert [Path(a["detail"]["inputs"]["demand"][0]).parent.name for a in out] == ["layout", "add-nodes"]
    assert all(a["optimal"]["proven"] for a in out)
    # local process pool gives the same answers
    assert main(argv[:-4] + ["-o", "json"]) == 0
    local = json.loads(capsys.readouterr().out)["items"]
    assert [a["optimal"]["pods"] for a in local] == [a["optimal"]["pods"] for a in out]


def test_unreachable_scheduler_is_a_clear_error(capsys):
    argv = ["plan", "fit", str(EXAMPLES / "fit" / "cluster.yaml"), str(EXAMPLES / "fit" / "demand.yaml"),
            "--scheduler", "tcp://127.0.0.1:9"]
    assert main(argv) == 2
    assert "Dask scheduler at tcp://127.0.0.1:9" in capsys.readouterr().err
