"""Ctrl-C always ends a command cleanly: "interrupted" on stderr and exit
code 130, whether SIGINT arrives inside a CP-SAT search or after one has run
(OR-Tools' own SIGINT handler used to swallow the first and, once a search
had run, leave the default handler behind, so that a later Ctrl-C killed the
process with no word).

The command runs in a subprocess whose ``CpSolver.solve`` is wrapped to say
on stderr when a search starts and ends (and, for the second case, to stay
busy afterwards), so that the signal is sent at the right moment. The wall
clock bounds below only guard against a hang; they are not timing claims."""

from __future__ import annotations

import os
import random
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml

HANG = 180.0   # seconds: a guard against a hang, not a timing assertion

WRAPPER = """
import sys, time
from ortools.sat.python import cp_model

solve = cp_model.CpSolver.solve
BUSY_AFTER = {busy}

def announced(self, model, callback=None):
    print("search started", file=sys.stderr, flush=True)
    try:
        return solve(self, model, callback)
    finally:
        print("search ended", file=sys.stderr, flush=True)
        if BUSY_AFTER:
            time.sleep(120)   # a long step after the search (Python code, no search running)

cp_model.CpSolver.solve = announced
from dralloc.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def trap(path: Path) -> Path:
    """One node, 40 devices drawing on two shared counters so that a claim
    for 20 of them fits only if 20 of 40 random 40-bit numbers hit a
    one-wide window: first-fit's fixed CP-SAT search runs far beyond a
    minute without an answer."""
    rng = random.Random(7)
    m = 1 << 40
    a = [rng.randrange(m // 2, m) for _ in range(40)]
    target = sum(sorted(a)[10:30]) + 12345
    counters = {"a": {"value": str(target)}, "b": {"value": str(20 * 2 * m - target)}}
    pool = {"name": "p", "generation": 1, "resourceSliceCount": 2}
    docs: list[dict[str, Any]] = [
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "c"},
         "spec": {"selectors": [{"cel": {"expression": 'device.driver == "driver-a"'}}]}},
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "t"},
         "spec": {"driver": "driver-a", "nodeName": "node-1", "pool": pool,
                  "sharedCounters": [{"name": "set", "counters": counters}]}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
         "spec": {"driver": "driver-a", "nodeName": "node-1", "pool": pool,
                  "devices": [{"name": f"d{i}", "consumesCounters": [{"counterSet": "set", "counters": {
                      "a": {"value": str(v)}, "b": {"value": str(2 * m - v)}}}]} for i, v in enumerate(a)]}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
         "metadata": {"name": "claim", "namespace": "default"},
         "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "c", "count": 20}}]}}},
    ]
    path.write_text(yaml.safe_dump_all(docs))
    return path


def _until(proc: subprocess.Popen[str], marker: str, seen: list[str]) -> None:
    """Read stderr lines until one holds ``marker`` (a hang or an early exit fails)."""
    assert proc.stderr is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stderr, selectors.EVENT_READ)
    end = time.monotonic() + HANG
    while time.monotonic() < end:
        if sel.select(timeout=0.5):
            line = proc.stderr.readline()
            assert line, f"the command ended before {marker!r}: {''.join(seen)}"
            seen.append(line)
            if marker in line:
                return
    raise AssertionError(f"no {marker!r} within {HANG} s: {''.join(seen)}")


def _interrupt(tmp_path: Path, busy_after: bool, marker: str, args: list[str]) -> tuple[int, str, float]:
    """Run the command, send SIGINT to its process group (as a terminal's
    Ctrl-C does) once ``marker`` is on stderr; exit code, stderr, seconds."""
    proc = subprocess.Popen([sys.executable, "-c", WRAPPER.format(busy=busy_after), *args], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    seen: list[str] = []
    try:
        _until(proc, marker, seen)
        time.sleep(0.3)   # well inside the search (or the step after it)
        sent = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=HANG)
        return proc.returncode, "".join(seen) + err, time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


ALLOCATE = ["allocate", "trap.yaml", "--mode", "first-fit", "--compare", "never",
            "--features", "DRAPartitionableDevices", "--time-limit", "600"]


def test_ctrl_c_inside_a_cp_sat_search(tmp_path: Path) -> None:
    trap(tmp_path / "trap.yaml")
    code, err, _ = _interrupt(tmp_path, False, "search started", ALLOCATE)
    assert code == 130, err
    assert err.rstrip().endswith("interrupted"), err
    assert "search ended" in err            # the search was stopped, not killed with the process


def test_ctrl_c_after_a_cp_sat_search(tmp_path: Path) -> None:
    trap(tmp_path / "trap.yaml")
    code, err, _ = _interrupt(tmp_path, True, "search ended", [*ALLOCATE[:-1], "0.2"])
    assert code == 130, err                 # was -2: killed by the signal, no word
    assert err.rstrip().endswith("interrupted"), err


def test_ctrl_c_stops_the_worker_processes_too(tmp_path: Path) -> None:
    """check --jobs 2 over scenarios whose first-fit search runs to its limit
    (10 s each): Ctrl-C ends the workers' searches and the command."""
    docs = list(yaml.safe_load_all(trap(tmp_path / "trap.yaml").read_text()))
    scenario = {"features": ["DRAPartitionableDevices"], "node": {"name": "node-1"}, "expect": {"unsatisfiable": True},
                "objects": [d for d in docs if d["kind"] in ("DeviceClass", "ResourceSlice")],
                "claims": [d for d in docs if d["kind"] == "ResourceClaim"]}
    names = []
    for i in range(4):
        (tmp_path / f"s{i}.yaml").write_text(yaml.safe_dump({"name": f"trap-{i}", **scenario}))
        names.append(f"s{i}.yaml")
    code, err, _ = _interrupt(tmp_path, False, "search started", ["check", "--mode", "first-fit", "--jobs", "2", *names])
    assert code == 130, err
    assert err.rstrip().endswith("interrupted") and "Traceback" not in err, err
