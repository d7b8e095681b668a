"""The cost of reproducible answers: the tie-break among optima
(dralloc/solver/search.py) against the optimisation it follows, in one run.

* optimal mode on one node of GPUs with MIG counters (the MIG benchmark's
  claims at LOAD of the compute slices): the tie-break's wall time (it is
  reported apart in ``Outcome.solver["tie_break"]``) against the whole call;
* the planner (``plan fit`` and ``plan layout``, pattern model, on generated
  clusters): each question answered with the tie-break and without it (the
  tie-break switched off in this process), the ratio of the two.

    .venv/bin/python benchmarks/bench_tiebreak.py [--seeds 1,2,3] [--gpus 2,4,8] [--nodes 4,16]

Written up in docs/benchmarks.md ("Reproducible answers")."""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_mig_optimal import FEATURES, scenario  # noqa: E402
from dralloc.planner import api  # noqa: E402
from dralloc.planner.generate import clusters as gen  # noqa: E402
from dralloc.planner.generate.demand import mig_demand  # noqa: E402
from dralloc.planner.pattern import model as pattern_model  # noqa: E402
from dralloc.solver import allocate  # noqa: E402


def optimal_rows(seeds: list[int], gpus: list[int], load: Fraction) -> None:
    print(f"{'seed':>4} {'gpus':>4} {'claims':>6} {'objective':<16} {'total s':>8} {'tie-break s':>11} "
          f"{'share':>6} {'branches':>8}")
    shares = []
    for seed in seeds:
        for g in gpus:
            objs, nodes, claims = scenario(seed, 1, g, load)
            for obj in ("claims", "claims,best-fit"):
                t0 = time.perf_counter()
                out = allocate(objs, nodes[0], claims, allocated=[], features=FEATURES, mode="optimal",
                               objective=obj, admission=False)
                total = time.perf_counter() - t0
                tb = out.solver.get("tie_break") or {}
                tie = float(tb.get("wall_time_s", 0.0))  # type: ignore[union-attr]
                shares.append(tie / total)
                print(f"{seed:>4} {g:>4} {len(claims):>6} {obj:<16} {total:>8.3f} {tie:>11.3f} "
                      f"{tie / total:>6.1%} {tb.get('branches', 0):>8}")  # type: ignore[union-attr]
    print(f"tie-break share of the optimal call: median {statistics.median(shares):.1%}, max {max(shares):.1%}")


def _without_tie_break() -> object:
    saved = pattern_model.tie_break

    class Kept:
        wall_time = 0.0

    pattern_model.tie_break = lambda *a, **k: (Kept(), False)  # type: ignore[assignment]
    return saved


def planner_rows(nodes: list[int], gpus: int) -> None:
    print(f"{'nodes':>5} {'question':<8} {'with s':>8} {'without s':>9} {'ratio':>6}")
    for n in nodes:
        docs = gen.cluster(n, "a100-40gb", gpus)
        docs += mig_demand("a100-40gb", {"1g.5gb": 45, "2g.10gb": 25, "3g.20gb": 20, "4g.20gb": 5, "7g.40gb": 5},
                           load=Fraction(13, 10), nodes=n, gpus=gpus, priorities=2)
        objs = gen.objects(docs)
        for q in ("fit", "layout"):
            times = []
            for on in (True, False):
                saved = None if on else _without_tie_break()
                best = float("inf")
                for _ in range(3):  # best of three: this machine is shared
                    t0 = time.perf_counter()
                    api.answer(q, objs, api.Options(), None)
                    best = min(best, time.perf_counter() - t0)
                times.append(best)
                if saved is not None:
                    pattern_model.tie_break = saved  # type: ignore[assignment]
            print(f"{n:>5} {q:<8} {times[0]:>8.3f} {times[1]:>9.3f} {times[0] / times[1]:>6.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--gpus", default="2,4,8")
    ap.add_argument("--load", default="13/10")
    ap.add_argument("--nodes", default="16,64")
    args = ap.parse_args()
    optimal_rows([int(s) for s in args.seeds.split(",")], [int(g) for g in args.gpus.split(",")],
                 Fraction(args.load))
    planner_rows([int(n) for n in args.nodes.split(",")], 8)


if __name__ == "__main__":
    main()
