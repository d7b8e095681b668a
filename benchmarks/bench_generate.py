"""How fast ``dralloc generate cluster`` writes driver-shaped clusters.

    .venv/bin/python benchmarks/bench_generate.py [--nodes 100,1000] [--dir /tmp/bench-generate]

For each node type (DynamicMIG A100 nodes with 4 EFA NICs; whole-GPU A100
nodes with 4 EFA NICs; a mix of both with H100 DynamicMIG nodes and TPU
blocks) and format, the cluster is written into files of 100 nodes (what
``--out-dir`` does) and timed: seconds, nodes/s, MB written, devices. The
target is 1,000 nodes in at most 30 s. Results are in docs/benchmarks.md."""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

from dralloc.planner.generate import clusters as gen
from dralloc.planner.generate.emit import write_dir
from dralloc.planner.generate.nodes import NodeType

SHAPES = {
    "mig (A100, 4 NICs)": lambda n: [(NodeType("mig", nics=4), n)],
    "gpu (A100, 4 NICs)": lambda n: [(NodeType("gpu", nics=4), n)],
    "mixed": lambda n: [(NodeType("gpu", nics=4), n - n * 5 // 10 - n // 10 // 4 * 4),
                        (NodeType("mig", nics=4), n * 3 // 10),
                        (NodeType("mig", "h100-80gb-sxm5", nics=4, name="h100"), n * 2 // 10),
                        (NodeType("tpu"), n // 10 // 4 * 4)],
}


def run(types: list[tuple[NodeType, int]], root: Path, fmt: str) -> tuple[float, int, int, int]:
    shutil.rmtree(root, ignore_errors=True)
    nodes = sum(n for _, n in types)
    t = time.perf_counter()
    groups = gen.iter_cluster(types, seed=1)
    paths = write_dir(next(groups), groups, root, 100, nodes, fmt)
    took = time.perf_counter() - t
    size = sum(p.stat().st_size for p in paths)
    devices = sum(text.count("\n  - name: ") + text.count("\n    - name: ") for text in
                  (p.read_text() for p in paths)) if fmt == "yaml" else 0
    return took, nodes, size, devices


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", default="100,1000")
    ap.add_argument("--dir", default="/tmp/bench-generate")
    args = ap.parse_args()
    print("| shape | format | nodes | seconds | nodes/s | MB | devices |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for n in (int(x) for x in args.nodes.split(",")):
        for label, shape in SHAPES.items():
            for fmt in ("yaml", "json"):
                print(f"{label} {fmt} {n} ...", file=sys.stderr)
                took, nodes, size, devices = run(shape(n), Path(args.dir), fmt)
                shown = f"{devices:,}" if devices else "-"
                print(f"| {label} | {fmt} | {nodes:,} | {took:.1f} | {nodes / took:,.0f} | {size / 1e6:,.0f} | {shown} |")
    shutil.rmtree(args.dir, ignore_errors=True)


if __name__ == "__main__":
    main()
