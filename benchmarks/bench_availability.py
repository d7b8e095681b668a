"""``dralloc availability`` on DynamicMIG clusters: the pool status and the
exact headroom of every MIG profile, with Kubernetes' claim-by-claim count.

Nodes are generated (A100-80GB, 8 GPUs) and partitions held at random, from
``--kinds`` distinct patterns (the nodes of one pattern share their models:
the cost grows with the patterns, not the nodes).

Run: python benchmarks/bench_availability.py [--nodes 50,200] [--kinds 1,5] [--seed 0]
Prints one row per (nodes, kinds): wall and CPU seconds, models solved, and
whether every count was proven."""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dralloc.audit import headroom as hr  # noqa: E402
from dralloc.audit.availability import Availability, report  # noqa: E402
from dralloc.cli.main import main  # noqa: E402
from dralloc.features import Features  # noqa: E402
from dralloc.io import load  # noqa: E402
from dralloc.validation.admission import admit  # noqa: E402


def _held(folder: Path, nodes: int, kinds: int, seed: int) -> Path:
    """Claims holding a few partitions per node, one of ``kinds`` patterns each."""
    objs = load([folder / "cluster"])
    rng = random.Random(seed)
    by_node: dict[str, list[str]] = {}
    for s in objs.slices:
        for d in s.spec.devices or []:
            by_node.setdefault(s.spec.pool.name, []).append(d.name)
    patterns = [rng.sample(sorted(by_node[min(by_node)]), 3) for _ in range(kinds)]
    docs = []
    for i, pool in enumerate(sorted(by_node)):
        for j, dev in enumerate(patterns[i % kinds]):
            docs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                         "metadata": {"name": f"held-{i}-{j}", "namespace": "default"},
                         "spec": {"devices": {"requests": [{"name": "mig", "exactly": {"deviceClassName": "mig.nvidia.com"}}]}},
                         "status": {"allocation": {"devices": {"results": [
                             {"request": "mig", "driver": "gpu.nvidia.com", "pool": pool, "device": dev}]}}}})
    out = folder / "held.yaml"
    out.write_text(yaml.safe_dump_all(docs))
    return out


def run(nodes: int, kinds: int, seed: int) -> str:
    folder = Path(tempfile.mkdtemp(prefix="dralloc-avail-"))
    main(["generate", "cluster", "--nodes", str(nodes), "--gpus", "8", "--gpu", "a100-80gb", "--out-dir",
          str(folder / "cluster"), "--seed", str(seed)])
    held = _held(folder, nodes, kinds, seed)
    objs = admit(load([folder / "cluster", held]))
    calls = [0]
    original = hr.max_copies

    def counted(*a: object, **k: object) -> hr.Fit:
        calls[0] += 1
        return original(*a, **k)  # type: ignore[arg-type]

    hr.max_copies = counted  # type: ignore[assignment]
    try:
        t0, c0 = time.perf_counter(), time.process_time()
        rep = report(objs, Availability(), Features.default())
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    finally:
        hr.max_copies = original
    proven = all(f.decided for f in rep.fits)
    return f"| {nodes} | {kinds} | {wall:.1f} | {cpu:.1f} | {calls[0]} | {len(rep.fits)} | {proven} |"


def main_() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", default="50,200")
    ap.add_argument("--kinds", default="1,5")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print("| nodes | held patterns | wall s | CPU s | models | counts | all proven |")
    print("|---:|---:|---:|---:|---:|---:|---|")
    for n in map(int, args.nodes.split(",")):
        for k in map(int, args.kinds.split(",")):
            print(run(n, k, args.seed), flush=True)


if __name__ == "__main__":
    main_()
