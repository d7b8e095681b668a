"""Reproducibility on demand: every command of tests/repro/commands.py (allocate
replay/first-fit/optimal on a many-optima and a consumable-capacity scenario,
plan with the pattern and joint models, verify) run RUNS times, spread over
PROCESSES processes with different PYTHONHASHSEED values; prints, per
command, how many different outputs came (one is the goal) and exits 1 if
any command gave more than one.

Run: python benchmarks/repro_runs.py [--runs 100] [--processes 10] [--jobs 2] [COMMAND...]"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

RUNNER = Path(__file__).resolve().parents[1] / "tests" / "repro" / "commands.py"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--processes", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=2, help="processes at a time")
    ap.add_argument("commands", nargs="*", help="command names (default: all)")
    args = ap.parse_args()
    per = max(1, args.runs // args.processes)

    def one(i: int) -> dict[str, dict[str, int]]:
        env = {**os.environ, "PYTHONHASHSEED": str(1000 + i)}
        out = subprocess.run([sys.executable, str(RUNNER), str(per), *args.commands], env=env,
                             capture_output=True, text=True, check=True).stdout
        print(f"process {i + 1}/{args.processes} done", file=sys.stderr)
        result: dict[str, dict[str, int]] = json.loads(out)
        return result

    t0 = time.perf_counter()
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(one, range(args.processes)))
    merged: dict[str, dict[str, int]] = {}
    for r in results:
        for name, outs in r.items():
            for digest, n in outs.items():
                merged.setdefault(name, {})[digest] = merged.setdefault(name, {}).get(digest, 0) + n
    print(f"{per * args.processes} runs per command in {args.processes} processes "
          f"({time.perf_counter() - t0:.0f} s)")
    print(f"{'command':<50} {'runs':>5} {'outputs':>8}")
    bad = 0
    for name, outs in merged.items():
        print(f"{name:<50} {sum(outs.values()):>5} {len(outs):>8}")
        bad += len(outs) > 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
