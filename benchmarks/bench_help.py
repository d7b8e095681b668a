"""How fast the command line answers ``--help`` (run on demand:
``.venv/bin/python benchmarks/bench_help.py [--runs 15] [--baseline DIR]``).

Each command is a fresh interpreter, timed from outside (start to exit), in
turn with the yardstick ``python -c "import dralloc"`` so that every ratio is
taken pair by pair within one run (this shared machine's speed drifts). Rows:
``dralloc --help``, ``dralloc --version``, then ``dralloc COMMAND --help``
for every command, with the heavy libraries each one loaded. ``--baseline``
names a checkout of another revision (``git worktree add /tmp/base main``):
its ``dralloc --help`` is timed the same way, for the before/after ratio."""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("ortools", "pandas", "pydantic", "yaml", "celpy", "networkx", "matplotlib")
YARDSTICK = "import dralloc"


def _code(argv: list[str], root: Path) -> str:
    return ("import sys\n"
            f"sys.path.insert(0, {str(root)!r})\n"
            "from dralloc.cli.main import main\n"
            "import contextlib, io\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n"
            f"        main({argv!r})\n"
            "    except SystemExit:\n"
            "        pass\n"
            f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))\n")


def _run(code: str) -> tuple[float, str]:
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    return time.perf_counter() - t0, out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""


def paired(code: str, runs: int) -> tuple[float, float, str]:
    """Median seconds of ``code``, median ratio to the yardstick, libraries loaded."""
    base = f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n{YARDSTICK}\n"
    _run(code), _run(base)  # warm the file cache
    times, ratios, loaded = [], [], ""
    for _ in range(runs):
        t, loaded = _run(code)
        b, _ = _run(base)
        times.append(t)
        ratios.append(t / b)
    return statistics.median(times), statistics.median(ratios), loaded


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=15, help="paired runs per row (default 15)")
    ap.add_argument("--baseline", type=Path, help="a checkout of another revision to compare dralloc --help with")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from dralloc.cli.common import COMMANDS

    rows = [["--help"], ["--version"], *([*c.split(), "--help"] for c in COMMANDS), ["generate", "cluster", "--help"]]
    print(f"{'command':<32} {'median s':>9} {'/ import':>9}  libraries loaded")
    for argv in rows:
        t, ratio, loaded = paired(_code(argv, ROOT), args.runs)
        print(f"{'dralloc ' + ' '.join(argv):<32} {t:>9.3f} {ratio:>9.2f}  {loaded or '-'}")
    if args.baseline:
        t, ratio, loaded = paired(_code(["--help"], args.baseline.resolve()), args.runs)
        print(f"{'baseline dralloc --help':<32} {t:>9.3f} {ratio:>9.2f}  {loaded or '-'}")


if __name__ == "__main__":
    main()
