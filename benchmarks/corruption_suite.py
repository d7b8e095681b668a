"""The corruption suite on demand: valid states from the replay's answers on
a corpus of scenarios, every corruption class applied to each, checked by the
independent checker (tests/checker/corrupt_*.py hold the classes).

Run: python benchmarks/corruption_suite.py [--seed N] [--per-class K] [--limit M] [PATHS...]
(default corpus: the project's tests/scenarios; the shared corpora live in
/work/shared/conformance). Prints the per-class table (markdown) and every
miss or false alarm; exit code 1 if there is any."""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "checker"))

from corrupt_suite import bases, run  # noqa: E402

from dralloc.io.scenario import load_scenarios  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="*", default=[str(ROOT / "tests" / "scenarios")])
    ap.add_argument("--seed", type=int, default=None, help="default: a fresh one (printed)")
    ap.add_argument("--per-class", type=int, default=1, help="corruptions of each class per state")
    ap.add_argument("--limit", type=int, default=0, help="use at most this many states (a random sample)")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    scenarios, errors = load_scenarios(args.paths)
    for e in errors:
        print(f"unreadable scenario: {e}", file=sys.stderr)
    excluded: dict[str, int] = {}
    found = bases(scenarios, excluded)
    if args.limit and len(found) > args.limit:
        found = random.Random(seed).sample(found, args.limit)
    print(f"seed {seed}: {len(scenarios)} scenarios, {len(found)} valid states "
          f"(excluded: {', '.join(f'{k} {v}' for k, v in sorted(excluded.items())) or 'none'})")
    res = run(found, seed, args.per_class, progress=True)
    print(f"{res.admissible} of the {res.bases} states pass the front door as they are (the others hold "
          "objects only the allocator's test table feeds it)")
    print(res.table())
    print(f"{sum(s.tried for s in res.classes.values())} corrupted states in {res.seconds:.0f} s")
    for f in res.failures:
        print(f"FAIL {f}")
    return 1 if res.failures else 0


if __name__ == "__main__":
    sys.exit(main())
