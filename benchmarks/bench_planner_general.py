"""Planner with general demand: multi-host TPU slices (KEP-4815 blocks of four
hosts; a slice is a shared claim used by one pod per host) at 120% of the
TPUs, ``plan fit`` through the scheduler simulation and the joint model.

    .venv/bin/python benchmarks/bench_planner_general.py --blocks 4 16 32 --time-limit 60
    .venv/bin/python benchmarks/bench_planner_general.py --blocks 16 32 --mix 4x4=1,2x2=1

Reported per size: pods, first-fit and optimal pods, solver status, parts,
allocator calls (simulation + candidates), solver wall time, total time.
Written up in docs/benchmarks.md ("Planner: general demand")."""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

from dralloc.features import Features
from dralloc.planner.generate import clusters as gen
from dralloc.planner.generate.tpu import TOPOLOGIES, tpu_cluster, tpu_demand
from dralloc.planner.questions.general import general_fit
from dralloc.planner.view.cluster import DEFAULT_GATES
from dralloc.planner.view.pods import pods_demand


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--blocks", type=int, nargs="+", default=[4, 16])
    ap.add_argument("--load", default="1.2")
    ap.add_argument("--mix", default="4x4=1,2x4=2,2x2=4", help="topology=weight,...")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    feats = Features.from_gates(DEFAULT_GATES)
    mix = {k: int(v) for k, v in (kv.split("=") for kv in args.mix.split(","))}
    mean = Fraction(sum(TOPOLOGIES[t][0] * w for t, w in mix.items()), sum(mix.values()))
    for blocks in args.blocks:
        slices = int(Fraction(args.load) * blocks * 16 / mean)
        objs = gen.objects(tpu_cluster(blocks) + tpu_demand(mix, slices))
        demand = pods_demand(objs)
        t0 = time.perf_counter()
        greedy, opt = general_fit(objs, demand, feats, time_limit=args.time_limit, workers=args.workers)
        print(f"blocks={blocks} nodes={4 * blocks} slices={slices} pods={demand.total()} "
              f"first-fit={sum(greedy.served.values())} optimal={sum(opt.served.values())} bound={opt.bound} "
              f"status={opt.status} model={opt.model} parts={opt.parts} simulation-calls={greedy.calls} "
              f"solve={opt.seconds:.2f}s total={time.perf_counter() - t0:.2f}s", flush=True)


if __name__ == "__main__":
    main()
