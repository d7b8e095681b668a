"""``dralloc check``: run scenario files against their expected answers."""

from __future__ import annotations

import argparse
import sys

from dralloc.check import check_scenario
from dralloc.io.scenario import load_scenarios


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("check", help="run scenario files and compare with their expected answers")
    p.add_argument("paths", nargs="+", metavar="PATH", help="scenario files or folders (recursive)")
    p.add_argument("--mode", choices=("first-fit", "replay", "optimal"), default="first-fit",
                   help="engine to check (default: %(default)s)")
    p.add_argument("-v", "--verbose", action="store_true", help="print passing scenarios too")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    scenarios, errors = load_scenarios(args.paths)
    passed = failed = skipped = via_defect = 0
    for e in errors:
        print(f"ERROR {e}")
        failed += 1
    for sc in scenarios:
        r = check_scenario(sc, args.mode)
        if r.skipped:
            skipped += 1
            print(f"SKIP {r.name}: {r.skipped}")
        elif r.passed:
            passed += 1
            if r.defects:
                via_defect += 1
                print(f"PASS {r.name} (Kubernetes' answer differs through defect(s): {', '.join(r.defects)})")
            elif args.verbose:
                print(f"PASS {r.name}")
        else:
            failed += 1
            print(f"FAIL {r.name} ({r.path}): " + "; ".join(r.differences))
    line = f"check: {passed} passed, {failed} failed"
    if skipped:
        line += f", {skipped} skipped"
    if via_defect:
        line += f" ({via_defect} passed through a documented Kubernetes defect)"
    print(line)
    sys.stdout.flush()
    return 0 if failed == 0 else 1
