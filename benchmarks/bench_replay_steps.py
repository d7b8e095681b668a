"""Microseconds per search step of the replay, now against a baseline revision.

Cases: the scheduler_perf backtracking trap family (``tests/solver/test_cpsat.trap``,
each run up to a step limit) and every scenario of the random conformance corpus.
Each case is replayed (the search alone: the problem is built before the clock
starts) and reports its step count, its answer and its CPU time (the process's
own: on a loaded machine the wall clock also counts the time other processes
ran). With ``--baseline
REV`` the same cases also run on the replay of git revision REV (extracted to a
temporary folder), in alternating subprocesses, so the ratio is taken within
one run; answers and step counts must be identical, case by case.

    .venv/bin/python benchmarks/bench_replay_steps.py --baseline REV [--repeat 3]
        [--trap-sizes 8,9,10,12,16] [--trap-steps 100000] [--corpus DIR]

Results are written up in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "scenarios" / "conformance" / "random"


def _digest(search: Any, found: object) -> str:
    if isinstance(found, str):
        return found
    if not found:
        return "no allocation"
    return "; ".join(",".join(f"{ch.req.name}={ch.pd.label}" for ch in res) for res in search.results)


def _run(problem: Any, step_limit: int | None) -> dict[str, Any]:
    from dralloc.errors import AllocationError
    from dralloc.solver.replay import ReplaySearch, StepLimitReached

    search = ReplaySearch(problem, step_limit=step_limit)
    t0 = time.process_time()
    found: object
    try:
        found = search.run()
    except StepLimitReached:
        found = "stopped at the step limit"
    except AllocationError as e:
        found = f"error: {e}"
    secs = time.process_time() - t0
    return {"steps": search.steps, "seconds": secs, "answer": _digest(search, found)}


def _trap_problem(n: int) -> Any:
    from dralloc.features import Features
    from dralloc.inventory.problem import build_problem
    from dralloc.models import Node, ObjectMeta
    from tests.solver.test_cpsat import trap

    objs, claim = trap(n)
    slices = [o for o in objs if o.kind == "ResourceSlice"]
    classes = [o for o in objs if o.kind == "DeviceClass"]
    return build_problem(slices, classes, Node(metadata=ObjectMeta(name="node-1")), [claim], [],
                         Features.from_gates(["DRAPartitionableDevices"]))


def _scenario_problem(path: Path) -> Any:
    from dralloc.features import Features, Variant
    from dralloc.inventory.problem import build_problem
    from dralloc.io.scenario import load_scenarios
    from dralloc.models import Node, ObjectMeta

    (sc,), _ = load_scenarios([path])
    feats = Features.from_gates(sc.features)
    node = sc.node or Node(metadata=ObjectMeta(name=""))
    return build_problem(sc.objects.slices, sc.objects.classes, node, sc.claims, sc.allocated, feats,
                         Variant(sc.variant) if sc.variant else None)


def worker(args: argparse.Namespace) -> int:
    """Run every case once and print one JSON object per case."""
    from dralloc.errors import AllocationError

    sys.setrecursionlimit(100_000)
    _run(_trap_problem(4), None)  # warm-up: CEL grammar and selector compilation, not the search
    for n in [int(x) for x in args.trap_sizes.split(",") if x]:
        row = _run(_trap_problem(n), args.trap_steps)
        print(json.dumps({"case": f"trap-{n}", **row}), flush=True)
    for path in sorted(Path(args.corpus).glob("*.yaml")):
        try:
            problem = _scenario_problem(path)
        except AllocationError:
            continue  # refused before the search: no step to time
        print(json.dumps({"case": path.stem, **_run(problem, None)}), flush=True)
    return 0


def _extract(rev: str, dest: str) -> None:
    arch = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "dralloc", "tests"],
                          check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", dest], input=arch, check=True)


def _collect(pythonpath: str, args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "--trap-sizes", args.trap_sizes,
           "--trap-steps", str(args.trap_steps), "--corpus", str(args.corpus)]
    env = {**os.environ, "PYTHONPATH": pythonpath}
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env, cwd=pythonpath).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return {r["case"]: r for r in rows}


def _family(name: str) -> str:
    return "trap" if name.startswith("trap-") else "random"


def _per_case(now: list[dict[str, dict[str, Any]]], base: list[dict[str, dict[str, Any]]]) -> None:
    print(f"{'case':>28} {'steps':>9} {'now us/step':>12} {'base us/step':>13} {'speed-up':>9}")
    for c, row in now[0].items():
        if row["steps"] < 1000:
            continue
        t_now = statistics.median(n[c]["seconds"] for n in now)
        t_base = statistics.median(b[c]["seconds"] for b in base)
        print(f"{c:>28} {row['steps']:>9} {t_now / row['steps'] * 1e6:>12.2f} "
              f"{t_base / row['steps'] * 1e6:>13.2f} {t_base / t_now:>8.2f}x")


def report(now: list[dict[str, dict[str, Any]]], base: list[dict[str, dict[str, Any]]] | None,
           verbose: bool = False) -> int:
    cases = list(now[0])
    bad = 0
    if verbose and base:
        _per_case(now, base)
    for c in cases:
        a = now[0][c]
        if any(run[c]["answer"] != a["answer"] or run[c]["steps"] != a["steps"] for run in now[1:] + (base or [])):
            print(f"DIFFERENT {c}: {a['steps']} steps, {a['answer']!r} vs baseline "
                  f"{[(r[c]['steps'], r[c]['answer']) for r in base or []]}")
            bad += 1
    print(f"{'family':>8} {'cases':>6} {'steps':>10} {'now us/step':>12}"
          + (f" {'base us/step':>13} {'speed-up':>9}" if base else ""))
    for fam in ("trap", "random"):
        names = [c for c in cases if _family(c) == fam]
        steps = sum(now[0][c]["steps"] for c in names)
        if not steps:
            continue
        t_now = statistics.median(sum(run[c]["seconds"] for c in names) for run in now)
        line = f"{fam:>8} {len(names):>6} {steps:>10} {t_now / steps * 1e6:>12.2f}"
        if base:
            ratios = [sum(b[c]["seconds"] for c in names) / sum(n[c]["seconds"] for c in names)
                      for n, b in zip(now, base, strict=True)]
            t_base = statistics.median(sum(run[c]["seconds"] for c in names) for run in base)
            line += f" {t_base / steps * 1e6:>13.2f} {statistics.median(ratios):>8.2f}x"
        print(line)
        big = [c for c in names if now[0][c]["steps"] >= 1000]
        if base and len(big) > 1:
            per = [statistics.median(b[c]["seconds"] for b in base) / statistics.median(n[c]["seconds"] for n in now)
                   for c in big]
            print(f"{'':>8} per case ({len(big)} with >= 1,000 steps): speed-up geometric mean "
                  f"{statistics.geometric_mean(per):.2f}x, min {min(per):.2f}x, max {max(per):.2f}x")
    if base:
        print("speed-up: the baseline's time over this revision's, median of the paired runs; "
              f"answers and step counts {'identical' if not bad else 'DIFFER in ' + str(bad) + ' case(s)'}")
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", metavar="REV", help="git revision to compare with (e.g. main~3)")
    ap.add_argument("--repeat", type=int, default=3, help="paired runs (default: %(default)s)")
    ap.add_argument("--trap-sizes", default="8,9,10,12,16")
    ap.add_argument("--trap-steps", type=int, default=100_000, help="step limit of each trap case")
    ap.add_argument("--corpus", default=str(CORPUS), help="scenario folder (default: the random corpus)")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per case of 1,000 steps or more")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args)
    now: list[dict[str, dict[str, Any]]] = []
    base: list[dict[str, dict[str, Any]]] = []
    with tempfile.TemporaryDirectory(prefix="dralloc-baseline-") as tmp:
        if args.baseline:
            _extract(args.baseline, tmp)
        for i in range(args.repeat):
            print(f"run {i + 1}/{args.repeat}", file=sys.stderr, flush=True)
            now.append(_collect(str(ROOT), args))
            if args.baseline:
                base.append(_collect(tmp, args))
    return report(now, base or None, args.verbose)


if __name__ == "__main__":
    sys.exit(main())
