"""The cluster object's per-call cost against the cluster's size.

    .venv/bin/python benchmarks/bench_cluster.py [--nodes 10,100,1000] [--calls 40] [--whole]

Nodes of 8 A100-40GB GPUs as the NVIDIA DRA driver publishes them (MIG
partitions over shared counters, the generator's shape), one DeviceClass per
kind. For each size and feature set (partitionable devices and taints only, which
select the stable allocator, and Kubernetes 1.37's defaults, which select
incubating), on nodes spread
over the cluster, one call of each operation is timed (CPU time of the
process: on a shared machine wall time measures the neighbours), the median
reported:

* ``allocate`` (replay and first-fit): one claim for one 1g.5gb MIG device;
* ``commit + release``: record the answer, then deallocate it;
* ``fits(limit=1)``: the first node where it fits;
* ``fits(limit=1)`` on a cluster whose first half of the nodes (in the
  scheduler's order) is full, each answer committed (a scheduler filling the
  cluster): the full nodes are skipped on their free devices alone
  (``dralloc.cluster.free``), the engine runs on the first node with room;
* ``replace slice``: a node's device slice replaced (same name), then an
  ``allocate`` there (the node's view rebuilt);
* ``allocate()`` on the whole cluster, as before the cluster object
  (``--whole``; slow at 1,000 nodes).

The ratio column is the 1,000-node (largest) cost over the 10-node (smallest)
one, measured in the same run. Results are in docs/benchmarks.md."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_common import mig_claim, replicated_cluster  # noqa: E402

from dralloc.cluster import Cluster  # noqa: E402
from dralloc.features import DEFAULT_GATES, Features  # noqa: E402
from dralloc.io import ObjectSet  # noqa: E402
from dralloc.models import ResourceClaim  # noqa: E402
from dralloc.solver import allocate  # noqa: E402
from dralloc.validation.admission import admit  # noqa: E402

FEATURE_SETS = {
    "stable (DRAPartitionableDevices, DRADeviceTaints)": ("DRAPartitionableDevices", "DRADeviceTaints"),
    "incubating (Kubernetes 1.37 defaults: CLI, library, planner)": DEFAULT_GATES,
}


def median_ms(fn: Callable[[int], object], calls: int) -> float:
    """Median CPU time of one call, in ms (the process's, CP-SAT's thread
    included): on a shared machine wall time mostly measures the neighbours."""
    times = []
    for i in range(calls):
        t = time.process_time()
        fn(i)
        times.append(time.process_time() - t)
    return statistics.median(times) * 1000


def once_ms(fn: Callable[[], object]) -> float:
    t = time.process_time()
    fn()
    return (time.process_time() - t) * 1000


def measure(objs: ObjectSet, features: Features, calls: int, whole: bool) -> dict[str, float]:
    names = sorted(n.name for n in objs.nodes)
    pick = [names[(i * 7919) % len(names)] for i in range(calls)]
    claim = mig_claim("1g.5gb")
    out: dict[str, float] = {"admission (front door, once)": once_ms(lambda: admit(objs))}
    holder: list[Cluster] = []
    out["build the index (once)"] = once_ms(lambda: holder.append(Cluster(objs, features=features)))
    cl = holder[0]
    out["first call (once)"] = once_ms(lambda: cl.allocate(pick[0], [claim], mode="replay"))
    for mode in ("replay", "first-fit"):
        out[f"allocate ({mode})"] = median_ms(lambda i, m=mode: cl.allocate(pick[i], [claim], mode=m), calls)

    def commit_release(i: int) -> None:
        res = cl.allocate(pick[i], [claim], mode="replay")
        cl.commit(res, [claim])
        cl.release(claim.key)
    out["allocate + commit + release (replay)"] = median_ms(commit_release, calls)
    out["fits(limit=1) (replay)"] = median_ms(lambda i: cl.fits([claim], limit=1, mode="replay"), calls)
    out["fits(limit=1) (first-fit)"] = median_ms(lambda i: cl.fits([claim], limit=1, mode="first-fit"), calls)
    slices = {s.spec.node_name: s for s in objs.slices if s.spec.devices}

    def replace(i: int) -> None:
        cl.add_slices([slices[pick[i]]])
        cl.allocate(pick[i], [claim], mode="replay")
    out["replace a slice (admitted) + allocate (replay)"] = median_ms(replace, calls)
    fill_half(cl, objs, claim)
    for mode in ("replay", "first-fit"):
        fits_ms, commit_ms = filling(cl, mode, calls)
        out[f"fits(limit=1), half the nodes full, each answer committed ({mode})"] = fits_ms
        out[f"commit of that answer ({mode})"] = commit_ms
    if whole:
        out["allocate() on the whole cluster (replay)"] = median_ms(
            lambda i: allocate(objs, pick[i], [claim], features=features, mode="replay"), max(3, calls // 10))
    return out


def filling(cl: Cluster, mode: str, calls: int) -> tuple[float, float]:
    """A scheduler filling the cluster: ``fits(limit=1)`` for a new claim,
    the answer committed; the median CPU ms of each."""
    fits, commits = [], []
    for i in range(calls):
        claim = mig_claim("1g.5gb", name=f"{mode}-{i}")
        t = time.process_time()
        found = cl.fits([claim], limit=1, mode=mode)
        t1 = time.process_time()
        cl.commit(found[0][1], [claim])
        fits.append(t1 - t)
        commits.append(time.process_time() - t1)
    return statistics.median(fits) * 1000, statistics.median(commits) * 1000


def fill_half(cl: Cluster, objs: ObjectSet, claim: ResourceClaim) -> None:
    """Make the first half of the nodes (scheduler order) full of 1g.5gb
    claims: one node filled by the engine, its claims copied to the others
    under their names (the cluster is a copy of one node)."""
    names = [n.name for n in cl.nodes()][: max(1, len(objs.nodes) // 2)]
    first: list[ResourceClaim] = []
    while True:
        c = claim.model_copy(update={"metadata": claim.metadata.model_copy(update={"name": f"fill-{len(first)}"})})
        res = cl.allocate(names[0], [c], mode="replay")
        if not res.ok:
            break
        first.extend(cl.commit(res, [c]))
    copies = []
    for name in names[1:]:
        for c in first:
            doc = c.dump()
            doc["metadata"]["name"] = f"{c.name}-{name}"
            text = json.dumps(doc).replace(names[0], name)
            copies.append(ResourceClaim.model_validate(json.loads(text)))
    cl.add(copies)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", default="10,100,1000")
    ap.add_argument("--calls", type=int, default=40)
    ap.add_argument("--whole", action="store_true", help="also time allocate() on the whole cluster")
    args = ap.parse_args()
    sizes = [int(n) for n in args.nodes.split(",")]
    for label, gates in FEATURE_SETS.items():
        feats = Features.from_gates(gates)
        rows: dict[str, list[float]] = {}
        for n in sizes:
            print(f"{label}: {n} nodes ...", file=sys.stderr)
            for k, v in measure(replicated_cluster(n), feats, args.calls, args.whole).items():
                rows.setdefault(k, []).append(v)
        print(f"\n{label}, median CPU ms per call\n")
        print("| operation | " + " | ".join(f"{n} nodes" for n in sizes) + f" | {sizes[-1]} / {sizes[0]} |")
        print("|---|" + "---:|" * (len(sizes) + 1))
        for k, vals in rows.items():
            ratio = vals[-1] / vals[0] if vals[0] else float("nan")
            print(f"| {k} | " + " | ".join(f"{v:.2f}" for v in vals) + f" | {ratio:.2f} |")


if __name__ == "__main__":
    main()
