"""The fuzz suite with a large budget (issue 11.6; docs/fuzz.md).

    .venv/bin/python -m benchmarks.fuzz --seed S --inputs N [--jobs J] [--time-limit T]
        [--save DIR] [--json FILE] [--only I [I ...]]

Inputs are made from the seed alone (input i of seed S is always the same);
``--only`` runs chosen inputs again. Progress on stderr, the summary by
outcome class on stdout; failing inputs are written to ``--save`` (default
fuzz-found/) with what each run said. Exit code 1 when any input fails."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tests.fuzz.driver import Limits
from tests.fuzz.runner import campaign


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="benchmarks/fuzz.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--inputs", type=int, default=1000)
    p.add_argument("--start", type=int, default=0, help="first input index")
    p.add_argument("--only", type=int, nargs="+", help="run just these input indexes")
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--time-limit", type=float, default=2.0, help="time limit given to the engines (s)")
    p.add_argument("--watchdog", type=float, default=120.0, help="a run past this many seconds is a hang")
    p.add_argument("--save", type=Path, default=Path("fuzz-found"))
    p.add_argument("--json", type=Path, help="write the summary as JSON")
    a = p.parse_args(argv)
    if a.inputs < 0 or a.jobs < 1 or a.time_limit <= 0 or a.watchdog <= 0:
        p.error("--inputs must be >= 0, --jobs >= 1, --time-limit and --watchdog > 0")
    indexes = a.only if a.only else range(a.start, a.start + a.inputs)
    summary = campaign(a.seed, indexes, Limits(a.time_limit, a.watchdog), a.jobs, progress=True, save=a.save)
    print(summary.table())
    for f in summary.failures[:50]:
        print(f"  input {f['index']} ({f['family']}, from {f['source']}: {'; '.join(f['what'])[:100]})")
        for r in f["runs"]:
            print(f"    {r['class']}: {r['route']}: {r['detail'][:300]}")
    if a.json:
        a.json.write_text(json.dumps(summary.to_json(), indent=1))
    return 1 if summary.failed else 0


if __name__ == "__main__":
    sys.exit(main())
