"""The commands whose output must be byte-identical in every run and process,
and a runner: ``python tests/repro/commands.py RUNS`` runs every command RUNS
times in this process and prints, as JSON, each command's distinct outputs
(stdout and exit code) with how often each came.

Used by tests/repro/test_reproducible.py (a few processes with different
PYTHONHASHSEED values) and benchmarks/repro_runs.py (100 runs)."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
PLANNER = ROOT / "examples" / "planner"

MANY = str(DATA / "many-optima.yaml")
SHARED = str(DATA / "shared-capacity.yaml")
CC = ["--features", "DRAConsumableCapacity"]

def _mixed_cluster() -> list[str]:
    """A 14-node AI cluster (8 GPU+NIC nodes, 6 MIG nodes) with gangs, 1-GPU
    and MIG pods, generated with the mixed benchmark's seeded demand: large
    enough for several rounds of column generation, whose columns once
    depended on which CP-SAT worker finished first. Written once per process
    into a temporary folder (the same bytes every time)."""
    import tempfile

    import yaml

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from benchmarks.bench_planner_mixed import demand
    from tests.planner.aicluster import ai_cluster

    docs = ai_cluster(8, 6) + demand(8, 6, 1.3, 1)
    folder = Path(tempfile.mkdtemp(prefix="dralloc-repro-"))
    paths = [folder / "cluster.yaml", folder / "demand.yaml"]
    demand_kinds = ("Pod", "ResourceClaimTemplate")
    paths[0].write_text(yaml.safe_dump_all([d for d in docs if d["kind"] not in demand_kinds]))
    paths[1].write_text(yaml.safe_dump_all([d for d in docs if d["kind"] in demand_kinds]))
    return [str(p) for p in paths]


COMMANDS: dict[str, list[str]] = {
    **{f"allocate {m} many-optima": ["allocate", MANY, "--node", "node-1", "--mode", m]
       for m in ("replay", "first-fit", "optimal")},
    "allocate optimal many-optima devices,best-fit": ["allocate", MANY, "--node", "node-1", "--mode", "optimal",
                                                      "--objective", "devices,best-fit"],
    **{f"allocate {m} shared-capacity": ["allocate", SHARED, "--node", "node-1", "--mode", m, *CC]
       for m in ("replay", "first-fit", "optimal")},
    "plan fit (pattern model)": ["plan", "fit", *map(str, sorted((PLANNER / "fit").glob("*.yaml"))), "-o", "yaml"],
    "plan layout (pattern model)": ["plan", "layout", *map(str, sorted((PLANNER / "layout").glob("*.yaml"))),
                                    "-o", "yaml"],
    "plan fit (joint model)": ["plan", "fit", *map(str, sorted((PLANNER / "general").glob("*.yaml"))), "-o", "yaml"],
    "plan fit (mixed model, gangs)": ["plan", "fit", *map(str, sorted((PLANNER / "gangs").glob("*.yaml"))),
                                      "-o", "yaml"],
    # a limit no search here comes near even on a loaded machine: an answer a time
    # limit stopped may differ between runs (docs/planner.md), this one must not
    "plan fit (mixed model, column generation)": ["plan", "fit", *_mixed_cluster(), "-o", "yaml",
                                                  "--time-limit", "300"],
    "plan add-nodes": ["plan", "add-nodes", str(PLANNER / "add-nodes" / "cluster.yaml"),
                       str(PLANNER / "add-nodes" / "demand.yaml"), "--template-file",
                       str(PLANNER / "add-nodes" / "node-type.yaml"), "-o", "yaml"],
    "verify": ["verify", str(ROOT / "examples" / "verify" / "cluster.yaml"), "-o", "yaml"],
}
EXIT = {"verify": 1}  # the example cluster has findings; every other command answers (exit 0)


def run_once(argv: list[str]) -> str:
    """One command in this process: its exit code and stdout."""
    from dralloc.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            rc = main(argv)
        except SystemExit as e:
            rc = int(e.code or 0)
    return f"exit {rc}\n{out.getvalue()}"


def run(runs: int, names: list[str] | None = None) -> dict[str, dict[str, int]]:
    """Per command: each distinct output ("exit N" and its sha256) -> how
    many runs gave it."""
    seen: dict[str, dict[str, int]] = {}
    for name, argv in COMMANDS.items():
        if names and name not in names:
            continue
        mine = seen.setdefault(name, {})
        for _ in range(runs):
            out = run_once(argv)
            digest = f"{out.split(chr(10), 1)[0]} {hashlib.sha256(out.encode()).hexdigest()}"  # "exit N <sha>"
            mine[digest] = mine.get(digest, 0) + 1
    return seen


if __name__ == "__main__":
    print(json.dumps(run(int(sys.argv[1]) if len(sys.argv) > 1 else 1, sys.argv[2:] or None)))
