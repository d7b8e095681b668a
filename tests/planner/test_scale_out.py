"""Scaling out (docs/scale-out.md): independent planner questions -- one
``fit`` per cluster, ``add-nodes`` per candidate node type -- run as one
sweep on a Dask cluster give the answers the local run gives, field for
field (timings aside). A real ``distributed.LocalCluster`` (in-process, one
worker: small and fast); dask[distributed] comes with the dev extra."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import distributed  # the dev extra installs it: the scale-out path runs in CI

from dralloc.planner.api import Options, answer_files
from dralloc.planner.parallel import run_all

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "planner"


def _files(case: str, *names: str) -> list[str]:
    return [str(EXAMPLES / case / n) for n in names]


def tasks() -> list[tuple[Any, ...]]:
    """Three clusters, each its own fit, and add-nodes for the add-nodes
    example's template file: what a user with several clusters sweeps."""
    opts = Options(workers=1, time_limit=30)
    out: list[tuple[Any, ...]] = [("fit", _files(c, "cluster.yaml"), _files(c, "demand.yaml"), opts)
                                  for c in ("gangs", "general", "fit")]
    out.append(("add-nodes", _files("add-nodes", "cluster.yaml"), _files("add-nodes", "demand.yaml"), opts,
                _files("add-nodes", "node-type.yaml")))
    return out


def untimed(value: Any) -> Any:
    """``value`` without wall-clock fields (``...Seconds``): what must be equal."""
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if not str(k).endswith("Seconds")}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def test_a_sweep_on_a_local_dask_cluster_gives_the_local_answers() -> None:
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None)
    try:
        remote = run_all(answer_files, tasks(), scheduler=cluster.scheduler_address)
    finally:
        cluster.close()
    local = run_all(answer_files, tasks(), workers=1)
    assert [a["question"] for a in remote] == ["fit", "fit", "fit", "add-nodes"]
    assert untimed(remote) == untimed(local)
    assert all(a["optimal"]["proven"] for a in remote)
    assert remote[3]["optimal"]["nodes"] is not None
