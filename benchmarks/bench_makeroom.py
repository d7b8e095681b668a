"""plan make-room at scale (issue 24): a 1,000-node generated cluster at 90 %
load, a pending gang of four 8-GPU pods -> the fewest evictions (or moves),
proven minimal over the whole cluster, the state after the plan checked.

Cluster (``tests/planner/makeroom/loaded.py``): generated whole-GPU A100 nodes
of 8 GPUs (``dralloc generate cluster --type gpu``); one 8-GPU pod of priority
100 per tenth of the nodes, the rest of the GPUs by 1-, 2- and 4-GPU pods in
random order (priority 0 or 10, a quarter of the 4-GPU ones in running gangs
of two, ``minCount`` 2), placed by the scheduler simulation (first-fit), then
1- and 2-GPU pods removed at random down to ``--load``. The work: a gang of
four 8-GPU pods, priority 50. The build is not timed; the question is.

    .venv/bin/python benchmarks/bench_makeroom.py                         # 1,000 nodes, evict and move
    .venv/bin/python benchmarks/bench_makeroom.py --nodes 100 --mode evict
    .venv/bin/python benchmarks/bench_makeroom.py --yaml /tmp/mr          # also write the cluster as YAML
    .venv/bin/python benchmarks/bench_makeroom.py --drain                 # plan drain, 10 H100 + 90 A100

Written up in docs/benchmarks.md ("Make room")."""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from dralloc.io.emit import render_objects  # noqa: E402
from dralloc.io.progress import Reporter  # noqa: E402
from dralloc.models import DeviceTaintRule  # noqa: E402
from dralloc.planner.generate.nodes import NodeType  # noqa: E402
from dralloc.planner.makeroom.answer import answer_make_room  # noqa: E402
from dralloc.planner.makeroom.drain import drain  # noqa: E402
from dralloc.planner.makeroom.pictures import write_pictures  # noqa: E402
from dralloc.planner.makeroom.room import Options  # noqa: E402
from dralloc.planner.makeroom.work import select_work  # noqa: E402
from tests.planner.makeroom.loaded import FEATS, loaded_cluster, pending_gang, with_docs  # noqa: E402


def make_room(args: argparse.Namespace) -> None:
    t0 = time.perf_counter()
    objs = loaded_cluster(args.nodes, Fraction(args.load).limit_denominator(100), args.seed)
    objs = with_docs(objs, pending_gang("train", 4, 8, 50))
    used = sum(len(c.status.allocation.devices.results or []) for c in objs.claims
               if c.status and c.status.allocation and c.status.allocation.devices)
    print(f"nodes={len(objs.nodes)} load average={os.getloadavg()[0]:.1f} running pods={sum(1 for p in objs.pods if p.spec.node_name)} "
          f"GPUs in use={used}/{8 * len(objs.nodes)} build={time.perf_counter() - t0:.1f}s (not timed)")
    if args.yaml:
        Path(args.yaml).mkdir(parents=True, exist_ok=True)
        path = Path(args.yaml) / "cluster.yaml"
        path.write_text(render_objects([o.dump() for o in objs.all()], "yaml"))
        print(f"  wrote {path}")
    for mode in args.mode.split(","):
        t, cpu = time.perf_counter(), time.process_time()
        work = select_work(objs, gang="default/train")
        ans = answer_make_room(objs, FEATS, work, Options(mode, args.cost, args.time_limit, args.workers,
                                                          Reporter(True) if args.progress else None))
        d = ans.data
        took, used_cpu = time.perf_counter() - t, time.process_time() - cpu
        print(f"  {mode}: {took:.1f}s wall, {used_cpu:.1f}s CPU, status={d['status']} proven={d['proven']} disruptions={d.get('disruptions')} "
              f"cost={d.get('cost')} bound={d['bound']} check={d.get('check')} modelled nodes="
              f"{d['detail']['modelledNodes']} candidates={d['detail']['candidateNodes']} rounds={d['detail']['rounds']}")
        if args.png:
            for p in write_pictures(ans, objs, f"{args.png}-{mode}"):
                print(f"  wrote {p}")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10:.0f} MiB")


def drain_h100(args: argparse.Namespace) -> None:
    types = [(NodeType("gpu", "h100-80gb-sxm5", 8, name="gpu-h100"), args.nodes // 10),
             (NodeType("gpu", "a100-40gb", 8, name="gpu-x-a100"), args.nodes - args.nodes // 10)]
    objs = loaded_cluster(args.nodes, Fraction(args.load).limit_denominator(100), args.seed, types)
    pools = sorted({s.spec.pool.name for s in objs.slices if "h100" in (s.spec.node_name or "")})
    rules = [DeviceTaintRule.model_validate({
        "apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": {"name": f"h100-{p}"},
        "spec": {"deviceSelector": {"driver": "gpu.nvidia.com", "pool": p},
                 "taint": {"key": "maintenance", "effect": "NoExecute"}}}) for p in pools]
    t, cpu = time.perf_counter(), time.process_time()
    res = drain(objs, FEATS, rules=rules, opts=Options(args.mode.split(",")[0], args.cost, args.time_limit))
    d = res.data
    fit: Any = d["fitElsewhere"]
    print(f"drain: {len(rules)} rules over the H100 pools: {len(d['displaced'])} pods displaced; fit elsewhere: "
          f"Kubernetes' way {fit['kubernetes']['pods']}, optimum {fit['optimal']['pods']} (proven "
          f"{fit['optimal']['proven']}) of {fit['pods']}; {time.perf_counter() - t:.1f}s wall, "
          f"{time.process_time() - cpu:.1f}s CPU")
    if d.get("makeRoom"):
        m = d["makeRoom"]
        print(f"  make room: {m['status']} proven={m['proven']} disruptions={m.get('disruptions')} bound={m['bound']} "
              f"check={m.get('check')}")
    if args.png:
        for p in write_pictures(res, objs, f"{args.png}-drain"):
            print(f"  wrote {p}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--load", type=float, default=0.9)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--mode", default="evict,move", help="evict, move or both (comma-separated)")
    ap.add_argument("--cost", default="count", choices=("count", "priority"))
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--progress", action="store_true")
    ap.add_argument("--yaml", help="write the cluster (with the pending gang) as DIR/cluster.yaml")
    ap.add_argument("--png", help="pictures: PREFIX-<mode>-before-after.png")
    ap.add_argument("--drain", action="store_true", help="plan drain instead (10 %% H100 nodes tainted)")
    args = ap.parse_args()
    (drain_h100 if args.drain else make_room)(args)


if __name__ == "__main__":
    main()
