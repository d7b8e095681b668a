"""The same inputs give byte-identical output in every mode, run and process:
allocate (replay, first-fit, optimal) on a scenario with many optima and on a
consumable-capacity one, plan (pattern and joint models), verify -- each run
twice in each of three processes with different PYTHONHASHSEED values.
benchmarks/repro_runs.py does 100 runs on demand."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

from commands import COMMANDS, EXIT, SHARED

from dralloc.io.loader import load
from dralloc.solver import allocate
from dralloc.solver.shareids import derived

HERE = Path(__file__).parent
HASH_SEEDS = ("0", "1", "4242")


def test_every_command_prints_the_same_bytes_in_every_process() -> None:
    procs = [subprocess.Popen([sys.executable, str(HERE / "commands.py"), "2"], stdout=subprocess.PIPE,
                              env={**os.environ, "PYTHONHASHSEED": h}) for h in HASH_SEEDS]
    results = []
    for p in procs:
        out, _ = p.communicate(timeout=600)
        assert p.returncode == 0
        results.append(json.loads(out))
    for name in COMMANDS:
        outputs = set().union(*(r[name] for r in results))
        assert len(outputs) == 1, f"{name}: {len(outputs)} different outputs over {len(HASH_SEEDS)} processes"
        assert outputs.pop().startswith(f"exit {EXIT.get(name, 0)} "), name  # a real answer, not an error


def _shares(share_ids: str | None = None) -> list[str]:
    objs = load([SHARED])
    out = allocate(objs, "node-1", objs.claims, features=["DRAConsumableCapacity"], mode="first-fit",
                   share_ids=share_ids)
    assert out.ok and out.allocations is not None
    return [r.share_id for a in out.allocations for r in a.devices.results or [] if r.share_id]  # type: ignore[union-attr]


def test_share_ids_are_derived_unique_uuids_by_default_and_random_on_request() -> None:
    ids = _shares()
    assert len(ids) == 7 and len(set(ids)) == 7
    assert all(str(uuid.UUID(i)) == i for i in ids)
    assert _shares() == ids == _shares("derived")
    fresh = _shares("random")
    assert len(set(fresh)) == 7 and not set(fresh) & set(ids) and fresh != _shares("random")


def test_derived_share_ids_differ_per_claim_result_request_and_device() -> None:
    objs = load([SHARED])
    a, b = objs.claims[0], objs.claims[1]
    base = derived(a, 0, "gpu", "d/p/gpu-0")
    assert base == derived(a, 0, "gpu", "d/p/gpu-0")
    others = {derived(b, 0, "gpu", "d/p/gpu-0"), derived(a, 1, "gpu", "d/p/gpu-0"),
              derived(a, 0, "other", "d/p/gpu-0"), derived(a, 0, "gpu", "d/p/gpu-1")}
    assert base not in others and len(others) == 4
