"""``dralloc check``: run scenario files against their expected answers.

Scenario files are checked on a local process pool (``--jobs``, default: the
number of CPUs); results are printed in file order, one line per failure (and
per skip, with its reason), then ``check: N passed, N failed[, N skipped]``."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from dralloc.check import check_scenario
from dralloc.io.loader import iter_files
from dralloc.io.scenario import load_scenarios


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("check", help="run scenario files and compare with their expected answers")
    p.add_argument("paths", nargs="+", metavar="PATH", help="scenario files or folders (recursive)")
    p.add_argument("--mode", choices=("first-fit", "replay", "optimal"), default="first-fit",
                   help="engine to check (default: %(default)s)")
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
    via_defect: int = 0
    unreadable: int = 0  # files or scenarios that could not be read (bad input: exit 2)


def check_file(path: str, mode: str, verbose: bool) -> FileResult:
    """Check every scenario of one file (runs in a worker process)."""
    out = FileResult()
    scenarios, errors = load_scenarios([path])
    for e in errors:
        out.lines.append(f"ERROR {e}")
        out.unreadable += 1
    for sc in scenarios:
        r = check_scenario(sc, mode)
        if r.skipped:
            out.skipped += 1
            out.lines.append(f"SKIP {r.name}: {r.skipped}")
        elif r.passed:
            out.passed += 1
            if r.defects:
                out.via_defect += 1
                out.lines.append(f"PASS {r.name} (Kubernetes' answer differs through defect(s): {', '.join(r.defects)})")
            elif verbose:
                out.lines.append(f"PASS {r.name}")
        else:
            out.failed += 1
            out.lines.append(f"FAIL {r.name} ({r.path}): " + "; ".join(r.differences))
    return out


def _results(files: list[str], args: argparse.Namespace) -> Iterator[FileResult]:
    if args.jobs <= 1 or len(files) < 2:
        for f in files:
            yield check_file(f, args.mode, args.verbose)
        return
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        yield from pool.map(check_file, files, [args.mode] * len(files), [args.verbose] * len(files),
                            chunksize=4)


def run(args: argparse.Namespace) -> int:
    files = [str(f) for f in iter_files(args.paths) if isinstance(f, Path)]
    if not files:
        print(f"dralloc check: no scenario files under {' '.join(args.paths)}", file=sys.stderr)
        return 2
    total = FileResult()
    show = sys.stderr.isatty()
    for i, r in enumerate(_results(files, args), 1):
        if show:
            print(f"\r[{i}/{len(files)}] ", end="", file=sys.stderr, flush=True)
        for line in r.lines:
            print(line)
        total.passed += r.passed
        total.failed += r.failed
        total.skipped += r.skipped
        total.via_defect += r.via_defect
        total.unreadable += r.unreadable
    if show:
        print("\r", end="", file=sys.stderr)
    line = f"check: {total.passed} passed, {total.failed} failed"
    if total.skipped:
        line += f", {total.skipped} skipped"
    if total.unreadable:
        line += f", {total.unreadable} unreadable"
    if total.via_defect:
        line += f" ({total.via_defect} passed through a documented Kubernetes defect)"
    print(line)
    sys.stdout.flush()
    if total.unreadable:
        return 2
    return 0 if total.failed == 0 else 1
