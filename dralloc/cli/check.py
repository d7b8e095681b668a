"""``dralloc check``: run scenario files against their expected answers.

Scenario files are checked on a local process pool (``--jobs``, default: the
number of CPUs); results are printed in file order, one line per failure (and
per skip, with its reason, and per pass that was not an equal answer), then
``check: N passed (how), N failed[, N skipped]``. A first-fit pass is an
equal answer, or a difference through a named Kubernetes defect (the replay
gives the expected answer), or a proven one (the solver proved Kubernetes'
answer, the expected one)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from dralloc.check import EQUAL, NAMED_DEFECT, PROVEN, check_scenario
from dralloc.cli.inputs import add_compare_args
from dralloc.io.loader import iter_files
from dralloc.io.scenario import load_scenarios


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("check", help="run scenario files and compare with their expected answers")
    p.add_argument("paths", nargs="+", metavar="PATH", help="scenario files or folders (recursive)")
    p.add_argument("--mode", choices=("first-fit", "replay", "optimal"), default="first-fit",
                   help="engine to check (default: %(default)s)")
    add_compare_args(p)
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                   help="scenario files checked in parallel (default: %(default)s)")
    p.add_argument("-v", "--verbose", action="store_true", help="print passing scenarios too")
    p.set_defaults(func=run)


@dataclass
class FileResult:
    lines: list[str] = field(default_factory=list)
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    how: dict[str, int] = field(default_factory=dict)  # passes by how they were established
    unreadable: int = 0  # files or scenarios that could not be read (bad input: exit 2)


@dataclass(frozen=True)
class Options:
    mode: str
    verbose: bool
    compare: str = "auto"
    compare_time_limit: float | None = None


def _pass_line(name: str, established: str, defects: list[str], ka: str) -> str:
    if established == NAMED_DEFECT:
        return f"PASS {name} (Kubernetes' answer differs through defect(s): {', '.join(defects)})"
    if established == PROVEN:
        return f"PASS {name} (Kubernetes' answer differs, proven: {ka})"
    return f"PASS {name}"


def check_file(path: str, opts: Options) -> FileResult:
    """Check every scenario of one file (runs in a worker process)."""
    out = FileResult()
    scenarios, errors = load_scenarios([path])
    for e in errors:
        out.lines.append(f"ERROR {e}")
        out.unreadable += 1
    for sc in scenarios:
        r = check_scenario(sc, opts.mode, opts.compare, opts.compare_time_limit)
        if r.skipped:
            out.skipped += 1
            out.lines.append(f"SKIP {r.name}: {r.skipped}")
        elif r.passed:
            out.passed += 1
            out.how[r.established] = out.how.get(r.established, 0) + 1
            ka = r.outcome.kubernetes.statement if r.outcome and r.outcome.kubernetes else ""
            if r.established != EQUAL or opts.verbose:
                out.lines.append(_pass_line(r.name, r.established, r.defects, ka))
        else:
            out.failed += 1
            out.lines.append(f"FAIL {r.name} ({r.path}): " + "; ".join(r.differences))
    return out


def _results(files: list[str], opts: Options, jobs: int) -> Iterator[FileResult]:
    if jobs <= 1 or len(files) < 2:
        for f in files:
            yield check_file(f, opts)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(check_file, files, [opts] * len(files), chunksize=4)


def summary(total: FileResult) -> str:
    how = [f"{total.how[k]} {label}" for k, label in ((EQUAL, "equal answer"), (NAMED_DEFECT, "through a named "
           "Kubernetes defect"), (PROVEN, "proven")) if total.how.get(k)]
    line = f"check: {total.passed} passed" + (f" ({', '.join(how)})" if len(how) > 1 or NAMED_DEFECT in total.how
                                             or PROVEN in total.how else "")
    line += f", {total.failed} failed"
    if total.skipped:
        line += f", {total.skipped} skipped"
    if total.unreadable:
        line += f", {total.unreadable} unreadable"
    return line


def run(args: argparse.Namespace) -> int:
    files = [str(f) for f in iter_files(args.paths) if isinstance(f, Path)]
    if not files:
        print(f"dralloc check: no scenario files under {' '.join(args.paths)}", file=sys.stderr)
        return 2
    total = FileResult()
    show = sys.stderr.isatty()
    opts = Options(args.mode, args.verbose, args.compare, args.compare_time_limit)
    for i, r in enumerate(_results(files, opts, args.jobs), 1):
        if show:
            print(f"\r[{i}/{len(files)}] ", end="", file=sys.stderr, flush=True)
        for line in r.lines:
            print(line)
        total.passed += r.passed
        total.failed += r.failed
        total.skipped += r.skipped
        total.unreadable += r.unreadable
        for k, n in r.how.items():
            total.how[k] = total.how.get(k, 0) + n
    if show:
        print("\r", end="", file=sys.stderr)
    print(summary(total))
    sys.stdout.flush()
    if total.unreadable:
        return 2
    return 0 if total.failed == 0 else 1
