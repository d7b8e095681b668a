"""The scheduler_perf "backtracking" trap and its family, replay vs CP-SAT first-fit.

One slice of n devices, a counter of (n-1)*10Gi, device-1 consumes 20Gi and the
others 10Gi, a claim for n-1 devices. Kubernetes tries every set holding
device-1 before the answer (devices 2..n); CP-SAT learns the conflict once.
Run: python benchmarks/bench_trap.py [--max-steps N]"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dralloc.features import Features  # noqa: E402
from dralloc.inventory.problem import build_problem  # noqa: E402
from dralloc.models import Node, ObjectMeta  # noqa: E402
from dralloc.solver import allocate  # noqa: E402
from dralloc.solver.replay import ReplaySearch, StepLimitReached  # noqa: E402
from tests.solver.test_cpsat import trap  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-steps", type=int, default=2_000_000)
    ap.add_argument("--sizes", default="8,10,12,14,16,20,40,80")
    args = ap.parse_args()
    feats = Features.from_gates(["DRAPartitionableDevices"])
    node = Node(metadata=ObjectMeta(name="node-1"))
    print(f"{'devices':>8} {'replay steps':>14} {'replay s':>10} {'cp-sat s':>10} {'same':>5}")
    for n in [int(x) for x in args.sizes.split(",")]:
        objs, claim = trap(n)
        slices = [o for o in objs if o.kind == "ResourceSlice"]
        classes = [o for o in objs if o.kind == "DeviceClass"]
        t0 = time.perf_counter()
        search = ReplaySearch(build_problem(slices, classes, node, [claim], [], feats), step_limit=args.max_steps)
        try:
            search.run()
            steps = str(search.steps)
        except StepLimitReached:
            steps = f">{args.max_steps}"
        t_replay = time.perf_counter() - t0
        t0 = time.perf_counter()
        got = allocate(objs, node, [claim], allocated=[], features=feats, mode="first-fit")
        t_cp = float(got.solver.get("wall_time_s", 0.0))  # type: ignore[arg-type]
        devs = [r.device for r in got.allocations[0].devices.results] if got.allocations else []
        same = devs == [f"device-{i}" for i in range(2, min(n - 1, 32) + 2)]
        print(f"{n:>8} {steps:>14} {t_replay:>10.3f} {t_cp:>10.4f} {str(same):>5}")


if __name__ == "__main__":
    main()
