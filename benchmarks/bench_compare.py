"""How first-fit learns Kubernetes' own answer, and what it costs.

For every scenario under the given folders (default: the project's corpora),
first-fit runs with ``compare=auto`` and the run is classified by how
Kubernetes' answer was known: ``no trigger`` (no documented defect can fire:
nothing replayed), ``proof`` (solver-side), ``replay`` (the bounded replay
finished), ``stopped`` (it ran out of time: not known). Per folder: the
counts, the share of first-fit's time spent on the comparison, the slowest
cases. ``--generated N`` also runs N questions of
``tests/solver/defect_generator.py`` through the soundness check (replay,
first-fit with compare never and auto) and prints the problems found.

    .venv/bin/python benchmarks/bench_compare.py [FOLDER ...] [--generated N] [--seed S]

Results are written up in docs/engine.md and docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dralloc.check import run_scenario  # noqa: E402
from dralloc.io.scenario import load_scenarios  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = [ROOT / "tests/scenarios/conformance/upstream", ROOT / "tests/scenarios/conformance/random",
           ROOT / "tests/scenarios/conformance/synthetic-t11", ROOT / "tests/scenarios/extra"]
HOWS = ("no trigger", "proof", "replay", "stopped")


def corpus(folder: Path) -> None:
    scenarios, _ = load_scenarios([folder])
    hows: Counter[str] = Counter()
    total = compare = 0.0
    slow: list[tuple[float, float, str, str]] = []
    for i, sc in enumerate(scenarios, 1):
        if sc.skip_reason or sc.expect is None:
            continue
        print(f"\r{folder.name}: {i}/{len(scenarios)}", end="", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        out = run_scenario(sc, "first-fit")
        secs = time.perf_counter() - t0
        ka = out.kubernetes
        how = ka.how if ka is not None else "refused before the search"
        hows[how] += 1
        total += secs
        compare += ka.seconds if ka is not None else 0.0
        slow.append((secs, ka.seconds if ka is not None else 0.0, sc.name, how))
    print("\r", end="", file=sys.stderr)
    n = sum(hows.values())
    shown = ", ".join(f"{h} {hows[h]} ({hows[h] / n:.0%})" for h in (*HOWS, "refused before the search")
                      if hows[h])
    print(f"{folder.name}: {n} scenarios: {shown}")
    print(f"  first-fit {total:.2f} s in all, of which comparing with Kubernetes {compare:.2f} s "
          f"({compare / total if total else 0:.0%})")
    for secs, cmp_secs, name, how in sorted(slow, reverse=True)[:3]:
        print(f"  slowest: {name} {secs:.3f} s ({how}, comparison {cmp_secs:.3f} s)")


def generated(count: int, seed: int) -> int:
    from tests.solver.defect_generator import check_question

    hows: Counter[str] = Counter()
    problems: list[str] = []
    t0 = time.perf_counter()
    for s in range(seed, seed + count):
        if s % 100 == 0:
            print(f"\rgenerated: {s - seed}/{count}", end="", file=sys.stderr, flush=True)
        how, found = check_question(s)
        hows[how] += 1
        problems.extend(found)
    print("\r", end="", file=sys.stderr)
    for p in problems:
        print(f"PROBLEM {p}")
    shown = ", ".join(f"{h} {n} ({n / count:.0%})" for h, n in hows.most_common())
    print(f"generated questions {seed}..{seed + count - 1}: {shown}; {len(problems)} problem(s); "
          f"{time.perf_counter() - t0:.0f} s")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="*", type=Path, help="scenario folders (default: the project's corpora)")
    ap.add_argument("--generated", type=int, default=0, metavar="N", help="also check N generated questions")
    ap.add_argument("--seed", type=int, default=0, help="first seed of the generated questions")
    args = ap.parse_args(argv)
    if args.generated == 0 or args.folders:
        for folder in args.folders or FOLDERS:
            corpus(folder)
    return generated(args.generated, args.seed) if args.generated else 0


if __name__ == "__main__":
    sys.exit(main())
