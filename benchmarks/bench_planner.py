"""Planner at scale: ``plan fit`` on 1,000 nodes x 8 A100-40GB GPUs (MIG
counters) against >= 30,000 MIG claims at 130% of the compute slices.

    .venv/bin/python benchmarks/bench_planner.py               # objects built in memory
    .venv/bin/python benchmarks/bench_planner.py --yaml DIR    # also write YAML and time dralloc.io.load
    .venv/bin/python benchmarks/bench_planner.py --replay 20   # full replay vs fast first-fit, 20 nodes

Reported: time to build objects, to analyse the cluster (pools, selectors,
identical nodes grouped), first-fit simulation, CP-SAT solve time (solver wall
time) and the answers. Written up in docs/benchmarks.md ("Planner")."""

from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction
from pathlib import Path

import yaml

from dralloc.features import Features
from dralloc.io import ObjectSet, load
from dralloc.planner.generate import clusters as gen
from dralloc.planner.questions import pattern as q
from dralloc.planner.simulate.firstfit import simulate
from dralloc.planner.simulate.replaysim import simulate_replay
from dralloc.planner.view.cluster import DEFAULT_GATES, build_cluster
from dralloc.planner.view.demand import demand_from

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import replicated_cluster  # noqa: E402

GPU = "a100-40gb"
DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
MIX = {"1g.5gb": 45, "2g.10gb": 25, "3g.20gb": 20, "4g.20gb": 5, "7g.40gb": 5}


def in_memory(nodes: int, gpus: int) -> ObjectSet:
    """Parse one node, copy it with each node's name and pool (parsing 1,000
    nodes of 208 devices, ~15 counters each, costs minutes of exact quantity
    parsing that says nothing about planning; --yaml measures it)."""
    return replicated_cluster(nodes, gpus)


def write_yaml(out: Path, nodes: int, gpus: int, per_file: int = 100) -> list[Path]:
    """Cluster in files of ``per_file`` nodes (the loader refuses files over
    64 MiB; 100 nodes are ~17 MB), plus the demand."""
    files = []
    docs = gen.cluster(nodes, GPU, gpus)
    classes, rest = docs[:3], docs[3:]
    per = 3 * per_file   # Node + counter slice + device slice per node
    for i in range(0, len(rest), per):
        path = out / f"cluster-{i // per:03d}.yaml"
        path.write_text(yaml.dump_all((classes if i == 0 else []) + rest[i:i + per], Dumper=DUMPER, sort_keys=False))
        files.append(path)
    (out / "demand.yaml").write_text(yaml.dump_all(demand_docs(nodes, gpus), Dumper=DUMPER, sort_keys=False))
    return [*files, out / "demand.yaml"]


def demand_docs(nodes: int, gpus: int) -> list[dict[str, object]]:
    return gen.mig_demand(GPU, MIX, load=Fraction(13, 10), nodes=nodes, gpus=gpus, priorities=2)


def timed(label: str, fn, *args, **kw):  # type: ignore[no-untyped-def]
    t = time.perf_counter()
    out = fn(*args, **kw)
    print(f"  {label:34s} {time.perf_counter() - t:8.3f} s")
    return out


def bench_fit(nodes: int, gpus: int, yaml_dir: Path | None, workers: int) -> None:
    print(f"fit: {nodes} nodes x {gpus} {GPU}, demand at 130% of compute slices")
    if yaml_dir:
        yaml_dir.mkdir(parents=True, exist_ok=True)
        files = timed("write YAML (generator, C dumper)", write_yaml, yaml_dir, nodes, gpus)
        objs = timed("dralloc.io.load (YAML)", load, files)
        if objs.errors:
            raise SystemExit("\n".join(map(str, objs.errors[:5])))
    else:
        objs = timed("build objects (in memory)", in_memory, nodes, gpus)
        for d in gen.objects(demand_docs(nodes, gpus)).all():
            objs.add(d)
    demand = demand_from(objs)
    print(f"  claims in the demand: {demand.total()}")
    cluster = timed("analyse cluster (build_cluster)", build_cluster, objs, demand)
    print(f"  units {len(cluster.units)}, unit types {len(cluster.types)}, kinds {len(cluster.kinds)}")
    sim = timed("first-fit simulation", simulate, cluster, "first", False)
    ans = timed("fit (first-fit + layouts + CP-SAT)", q.fit, cluster, "first", None, workers)
    o = ans.optimal
    print(f"  first-fit pods {sum(sim.served.values())}  optimal pods {o['pods']}  gap {ans.gap}")
    print(f"  CP-SAT status {o['status']}  objective {o['objective']}  bound {o['bound']}  "
          f"solve time {o['solveSeconds']} s")


def bench_replay(nodes: int, gpus: int) -> None:
    print(f"first-fit engines: {nodes} nodes x {gpus} GPUs")
    objs = gen.objects(gen.cluster(nodes, GPU, gpus) + demand_docs(nodes, gpus))
    demand = demand_from(objs)
    print(f"  claims in the demand: {demand.total()}")
    cluster = build_cluster(objs, demand)
    fast = timed("fast first-fit", simulate, cluster)
    slow = timed("replay, pod by pod (allocate)", simulate_replay, objs, demand, Features.from_gates(DEFAULT_GATES))
    same = [(p.workload, p.node, p.device) for p in fast.placed] == [(p.workload, p.node, p.device) for p in slow.placed]
    print(f"  placed {len(fast.placed)} / {len(slow.placed)}; identical placements: {same}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--yaml", type=Path, help="write and load YAML in this directory")
    ap.add_argument("--replay", type=int, metavar="NODES", help="compare with the replay engine on NODES nodes")
    args = ap.parse_args()
    if args.replay:
        bench_replay(args.replay, args.gpus)
    else:
        bench_fit(args.nodes, args.gpus, args.yaml, args.workers)


if __name__ == "__main__":
    main()
