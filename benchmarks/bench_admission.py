"""Admission benchmark (run on demand: ``.venv/bin/python benchmarks/bench_admission.py``).

What the front door adds to reading a cluster: ``dralloc generate cluster``'s
GPU nodes (8 A100s, one full GPU and 25 MIG partitions each: 208 devices per
node, every partition consuming counters), written to a temporary YAML file,
then ``load`` (parse, models, defaults) and ``admit`` (duplicates and the API
server's validation) timed in the same run, so their ratio holds on a busy
machine. Reported per device too."""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import yaml

from dralloc.io import load
from dralloc.planner.generate.clusters import device_classes, node_objects
from dralloc.validation.admission import admit


class _PlainDumper(yaml.SafeDumper):
    """No anchors for objects the generator shares: kubectl never writes them
    (and a document with aliases takes the loader's exact, slower path)."""

    def ignore_aliases(self, data: object) -> bool:
        return True


def write_cluster(path: Path, nodes: int) -> None:
    docs = [*device_classes()]
    for n in range(nodes):
        docs.extend(node_objects(f"node-{n:04d}", "a100-40gb", 8))
    with path.open("w", encoding="utf-8") as f:
        yaml.dump_all(docs, f, Dumper=_PlainDumper, sort_keys=False)


def run(nodes: int, repeat: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cluster.yaml"
        write_cluster(path, nodes)
        best_load = best_admit = float("inf")
        devices = 0
        for _ in range(repeat):
            t0 = time.perf_counter()
            objs = load([path])
            t1 = time.perf_counter()
            admit(objs)
            t2 = time.perf_counter()
            best_load, best_admit = min(best_load, t1 - t0), min(best_admit, t2 - t1)
            devices = sum(len(s.spec.devices or ()) for s in objs.slices)
    return {"nodes": nodes, "devices": devices, "load_s": best_load, "admit_s": best_admit,
            "ratio": best_admit / best_load, "admit_us_per_device": best_admit / devices * 1e6}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--nodes", type=int, nargs="+", default=[10, 100])
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    print("| nodes | devices | load (s) | admission (s) | admission / load | admission per device (µs) |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n in args.nodes:
        r = run(n, args.repeat)
        print(f"| {n} | {r['devices']:,} | {r['load_s']:.2f} | {r['admit_s']:.2f} | {r['ratio']:.1%} | "
              f"{r['admit_us_per_device']:.1f} |")


if __name__ == "__main__":
    main()
