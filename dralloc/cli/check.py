"""``dralloc check PATHS``: run scenario files (the conformance format) with
one engine and check its answer against what the scenario expects.

What a pass means depends on the mode:
- replay and first-fit promise Kubernetes' answer: the same devices, results
  and errors as the scenario's expect. A first-fit pass is an equal answer,
  or a difference through a named Kubernetes defect (the replay gives the
  expected answer), or a proven one (the solver proved Kubernetes' answer,
  the expected one);
- optimal promises a better answer, not Kubernetes' one: its answer passes
  the independent verifier, its objective is at least first-fit's (it is
  never worse), and it is unsatisfiable (or an error) only where the
  scenario expects Kubernetes to be. Devices are not compared with expect.

Each scenario is asked of one Kubernetes release (--kubernetes-version,
default 1.37): its own gates are taken as they are, the release picks the
allocator variant for them (unless the scenario names one), and a scenario
turning on a gate the release does not have is skipped, with the reason.

Scenario files are checked on a local process pool (--jobs); results come in
file order: -o table prints one line per failure, skip and pass that was not
an equal answer, -o wide every scenario, yaml/json every scenario as data;
then a summary line check: N passed (how), N failed[, N skipped][, N
unreadable]. A file or scenario that cannot be read is an ERROR line.

--time-limit is the replay's own time limit in --mode replay (default
Kubernetes' 10 s filter timeout; none: run every search to its end): a
search it stops is a failure saying that Kubernetes' answer is not known.

Exit code 0: every scenario passed (or was skipped); 1: some failed; 2: no
scenario file found, or some could not be read."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from typing import Any

from dralloc.cli import common
from dralloc.errors import InputError
from dralloc.solver.limits import help_text
from dralloc.solver.modes import MODES

# how a pass was established (the names of dralloc.check, which loads the engines)
EQUAL, NAMED_DEFECT, PROVEN, PROMISE_KEPT = "equal answer", "named defect", "proven", "optimal's promise kept"

PASS, FAIL, SKIP, UNREADABLE = "pass", "fail", "skip", "unreadable"


def register(sub: Any) -> None:
    p = common.add_command(sub, "check", __doc__)
    p.add_argument("paths", nargs="+", metavar="PATH", help="scenario files or folders (recursive)")
    p.add_argument("--mode", choices=MODES, default="first-fit",
                   help="engine to check: replay and first-fit against Kubernetes' answer; optimal against "
                        "its promise: verified, never worse than first-fit on its objectives, unsatisfiable "
                        "only where Kubernetes is (devices are not compared)")
    p.add_argument("--time-limit", type=common.seconds_or_none, metavar="SECONDS",
                   help=help_text("check", "--mode replay: the replay's time limit per scenario (Kubernetes' filter "
                                  "timeout), or none for no limit; where it stops, Kubernetes' answer is not known"))
    common.add_compare_args(p)
    common.add_release_arg(p)
    p.add_argument("-j", "--jobs", type=common.POSITIVE, default=os.cpu_count() or 1,
                   help="scenario files checked in parallel (default: the number of CPUs, %(default)s here)")
    common.add_output(p, common.OUTPUTS, "table",
                      "output format: table lists failures and skips, wide every scenario, "
                      "yaml/json every scenario as data")
    p.add_argument("-v", "--verbose", action="store_true", help="the same as -o wide")
    p.set_defaults(func=run)


def check_file(path: str, mode: str, compare: str = "auto",
               compare_time_limit: float | None = None, kubernetes_version: str | None = None,
               replay_limit: float | None = None) -> list[dict[str, Any]]:
    """Every scenario of one file, as data (runs in a worker process)."""
    from dralloc.check import check_scenario
    from dralloc.io.scenario import load_scenarios

    out: list[dict[str, Any]] = []
    scenarios, errors = load_scenarios([path])
    for e in errors:
        out.append({"name": path, "path": path, "result": UNREADABLE, "error": str(e)})
    for sc in scenarios:
        r = check_scenario(sc, mode, compare, compare_time_limit, kubernetes_version, replay_limit)
        entry: dict[str, Any] = {"name": r.name, "path": r.path}
        if r.skipped:
            entry.update(result=SKIP, reason=r.skipped)
        elif r.passed:
            entry.update(result=PASS, established=r.established)
            if r.defects:
                entry["defects"] = list(r.defects)
            if r.established == PROVEN and r.outcome is not None and r.outcome.kubernetes is not None:
                entry["kubernetes"] = r.outcome.kubernetes.statement
        else:
            entry.update(result=FAIL, differences=list(r.differences))
        out.append(entry)
    return out


def _results(files: list[str], args: argparse.Namespace) -> Iterator[list[dict[str, Any]]]:
    if args.jobs <= 1 or len(files) < 2:
        for f in files:
            yield check_file(f, args.mode, args.compare, args.compare_time_limit, args.kubernetes_version,
                             args.time_limit)
        return
    from dralloc.solver.cancel import process_pool

    with process_pool(args.jobs) as pool:
        n = len(files)
        yield from pool.map(check_file, files, [args.mode] * n, [args.compare] * n,
                            [args.compare_time_limit] * n, [args.kubernetes_version] * n, [args.time_limit] * n,
                            chunksize=4)


def line(e: dict[str, Any]) -> str:
    """One scenario in words (table and wide outputs)."""
    if e["result"] == UNREADABLE:
        return f"ERROR {e['error']}"
    if e["result"] == SKIP:
        return f"SKIP {e['name']}: {e['reason']}"
    if e["result"] == FAIL:
        return f"FAIL {e['name']} ({e['path']}): " + "; ".join(e["differences"])
    if e.get("established") == NAMED_DEFECT:
        return f"PASS {e['name']} (Kubernetes' answer differs through defect(s): {', '.join(e['defects'])})"
    if e.get("established") == PROVEN:
        return f"PASS {e['name']} (Kubernetes' answer differs, proven: {e.get('kubernetes', '')})"
    return f"PASS {e['name']} ({e['established']})"


def _shown(e: dict[str, Any], fmt: str) -> bool:
    return fmt == "wide" or e["result"] != PASS or e.get("established") in (NAMED_DEFECT, PROVEN)


# how a pass was established -> (its key in the summary's data, its words in the summary line)
HOW = {EQUAL: ("equalAnswer", "equal answer"), NAMED_DEFECT: ("namedDefect", "through a named Kubernetes defect"),
       PROVEN: ("proven", "proven"), PROMISE_KEPT: ("promiseKept", "optimal's promise kept")}


def summary(entries: list[dict[str, Any]]) -> dict[str, Any]:
    count = {k: sum(e["result"] == k for e in entries) for k in (PASS, FAIL, SKIP, UNREADABLE)}
    how: dict[str, int] = {}
    for e in entries:
        if e["result"] == PASS:
            key = HOW[e["established"]][0]
            how[key] = how.get(key, 0) + 1
    return {"passed": count[PASS], "failed": count[FAIL], "skipped": count[SKIP], "unreadable": count[UNREADABLE],
            "established": how}


def summary_line(s: dict[str, Any]) -> str:
    how = s["established"]
    parts = [f"{how[key]} {words}" for key, words in HOW.values() if how.get(key)]
    shown = len(parts) > 1 or "namedDefect" in how or "proven" in how
    text = f"check: {s['passed']} passed" + (f" ({', '.join(parts)})" if shown else "") + f", {s['failed']} failed"
    if s["skipped"]:
        text += f", {s['skipped']} skipped"
    if s["unreadable"]:
        text += f", {s['unreadable']} unreadable"
    return text


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from dralloc.io.loader import iter_files

    if args.time_limit is not None and args.mode != "replay":
        raise InputError(f"--time-limit is the replay's time limit (--mode replay); in --mode {args.mode} the "
                         "replay of Kubernetes' answer has --compare-time-limit")
    files = [str(f) for f in iter_files(args.paths) if isinstance(f, Path)]
    if not files:
        print(f"dralloc check: no scenario files under {' '.join(args.paths)}", file=sys.stderr)
        return 2
    fmt = "wide" if args.verbose and args.output == "table" else args.output
    entries: list[dict[str, Any]] = []
    show = sys.stderr.isatty()
    for i, found in enumerate(_results(files, args), 1):
        if show:
            print(f"\r[{i}/{len(files)}] ", end="", file=sys.stderr, flush=True)
        entries.extend(found)
        if fmt in ("table", "wide"):
            shown = [line(e) for e in found if _shown(e, fmt)]
            if shown:
                common.emit("\n".join(shown))
    if show:
        print("\r", end="", file=sys.stderr)
    s = summary(entries)
    if fmt in ("table", "wide"):
        common.emit(summary_line(s))
    else:
        from dralloc.io.emit import render

        common.emit(render({"mode": args.mode, "kubernetesVersion": args.kubernetes_version, "scenarios": entries,
                            "summary": s}, fmt))
    if s["unreadable"]:
        return 2
    return 0 if s["failed"] == 0 else 1
