"""Planner: ``plan add-nodes`` on an AI cluster (issue 25 item 2).

The mixed benchmark's cluster (``benchmarks/bench_planner_mixed.py``:
whole-GPU nodes with an RDMA NIC per GPU, A100-40GB nodes under DynamicMIG)
and its demand: gangs of 8-GPU training pods and 1-GPU inference pods at
``--load`` of the whole-GPU capacity, MIG pods at ``--mig-load`` of the MIG
capacity (below 1, so that whole-GPU nodes are what is missing). The
question: how many copies of ``gpu-0000`` make the whole demand fit -- the
configuration model (lower bound from its Lagrangian/LP bounds, integer
master at the counts near it) and first-fit (the scheduler simulation).

    .venv/bin/python benchmarks/bench_planner_add.py                       # 500 + 500 nodes
    .venv/bin/python benchmarks/bench_planner_add.py --gpu-nodes 25 --mig-nodes 25 --progress

Written up in docs/benchmarks.md ("Planner: add-nodes at 1,000 nodes")."""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.bench_planner_mixed import demand  # noqa: E402
from dralloc.io.progress import Reporter  # noqa: E402
from dralloc.planner.api import Options, answer  # noqa: E402
from dralloc.planner.generate import clusters as gen  # noqa: E402
from tests.planner.aicluster import ai_cluster  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpu-nodes", type=int, default=500)
    ap.add_argument("--mig-nodes", type=int, default=500)
    ap.add_argument("--load", type=float, default=1.1, help="demand for the whole-GPU nodes, x their capacity")
    ap.add_argument("--mig-load", type=float, default=0.8, help="demand for the MIG nodes, x their capacity")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--time-limit", type=float, default=None, help="per count tried (default: plan's)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--progress", action="store_true")
    args = ap.parse_args()
    gpu = demand(args.gpu_nodes, 0, args.load, args.seed)
    mig = demand(0, args.mig_nodes, args.mig_load, args.seed)
    docs = ai_cluster(args.gpu_nodes, args.mig_nodes) + [d for d in gpu if d["kind"] != "Pod"
                                                         or not d["metadata"]["name"].startswith("mig-")]
    docs += [d for d in mig if d["kind"] == "Pod" and d["metadata"]["name"].startswith("mig-")]
    t0 = time.perf_counter()
    objs = gen.objects(docs)
    built = time.perf_counter() - t0
    progress = Reporter(True) if args.progress else None
    t1, c1 = time.perf_counter(), time.process_time()
    ans = answer("add-nodes", objs, Options(workers=args.workers, time_limit=args.time_limit, progress=progress,
                                            template="gpu-0000"))
    wall, cpu = time.perf_counter() - t1, time.process_time() - c1
    if progress is not None:
        progress.finish()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    opt, ff = ans.optimal, ans.first_fit
    print(f"nodes={len(objs.nodes)} pods={ans.detail['demand']} build={built:.1f}s add-nodes={wall:.1f}s wall, "
          f"{cpu:.1f}s CPU rss={rss:.0f}MiB")
    print(f"  optimal:   nodes={opt['nodes']} proven={opt['proven']} lowerBound={opt.get('lowerBound')} "
          f"counts={ans.detail.get('countsTried')} model={opt.get('model')} solve={opt.get('solveSeconds')}s")
    if opt.get("note"):
        print(f"             note: {opt['note']}")
    print(f"  first-fit: nodes={ff['nodes']} gap={ans.gap}")


if __name__ == "__main__":
    main()
