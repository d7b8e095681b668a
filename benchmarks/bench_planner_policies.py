"""Node policies of the pod-by-pod simulation for general demand: multi-host
TPU slices (KEP-4815 blocks of four hosts) at 120% of the TPUs, simulated with
``--policy first``, ``most`` and ``least``.

    .venv/bin/python benchmarks/bench_planner_policies.py --blocks 4 16 32

Reported per size and policy: pods placed, allocator calls, wall time.
Written up in docs/benchmarks.md ("Planner: node policies for general demand")."""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

from dralloc.features import Features
from dralloc.planner.generate import clusters as gen
from dralloc.planner.generate.tpu import TOPOLOGIES, tpu_cluster, tpu_demand
from dralloc.planner.simulate.firstfit import POLICIES
from dralloc.planner.simulate.podsim import simulate_pods
from dralloc.planner.view.cluster import DEFAULT_GATES
from dralloc.planner.view.pods import pods_demand


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--blocks", type=int, nargs="+", default=[4, 16])
    ap.add_argument("--load", default="1.2")
    ap.add_argument("--mix", default="4x4=1,2x4=2,2x2=4", help="topology=weight,...")
    args = ap.parse_args()
    feats = Features.from_gates(DEFAULT_GATES)
    mix = {k: int(v) for k, v in (kv.split("=") for kv in args.mix.split(","))}
    mean = Fraction(sum(TOPOLOGIES[t][0] * w for t, w in mix.items()), sum(mix.values()))
    print("| hosts | policy | pods | placed | allocator calls | seconds |")
    print("| ---: | --- | ---: | ---: | ---: | ---: |")
    for blocks in args.blocks:
        objs = gen.objects(tpu_cluster(blocks) + tpu_demand(mix, int(Fraction(args.load) * blocks * 16 / mean)))
        demand = pods_demand(objs)
        for policy in POLICIES:
            t = time.perf_counter()
            sim = simulate_pods(objs, demand, feats, policy=policy)
            print(f"| {len(objs.nodes)} | {policy} | {demand.total()} | {len(sim.placed)} | {sim.calls} | "
                  f"{time.perf_counter() - t:.2f} |")


if __name__ == "__main__":
    main()
