"""Reading a live cluster (run on demand: ``.venv/bin/python benchmarks/bench_live.py``).

What does reading a cluster through the kubernetes client cost, next to
loading a dump of the same objects? The cluster is tests/live's fake list
API server (a stdlib HTTP server on 127.0.0.1, in this process, serving
``tests.live.clusters.gpu_cluster``: nodes of 4 GPUs with a slice each, 3
allocated claims per node and their pods, pending pods, and running pods
without claims, most of a real cluster's objects). Each measure runs in its
own process (peak RSS is that process's) and is repeated, alternating; the
best time of each is kept:

* **import**: ``import kubernetes`` (what any read of a cluster pays first).
* **live, pages of N**: ``dralloc.io.load([LiveSource(chunk_size=N)])``:
  the kubeconfig, ``/version``, discovery, every kind listed in pages, the
  loader. The server's own work (JSON of each page, on one of the two cores)
  is in the time, not in the reader's CPU time (its process's).
* **dump (JSON)**: ``dralloc.io.load`` on one ``kubectl get -o json`` List of
  the same objects.

Peak RSS minus the RSS after the imports (``+MB``) is what the read itself
holds at its peak. ``--write`` puts the table into docs/benchmarks.md
(between the markers of its section)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DOC = ROOT / "docs" / "benchmarks.md"
BEGIN, END = "<!-- bench_live:begin -->", "<!-- bench_live:end -->"

CHILD = r"""
import json, resource, sys, time
what, arg = sys.argv[1], sys.argv[2]
t = time.perf_counter()
import kubernetes  # noqa: F401
out = {"import_s": time.perf_counter() - t}
from dralloc.io import load
from dralloc.io.live import LiveSource
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t, cpu = time.perf_counter(), time.process_time()
if what == "live":
    objs = load([LiveSource(chunk_size=int(arg))])
else:
    objs = load([arg])
out["s"] = time.perf_counter() - t
out["cpu_s"] = time.process_time() - cpu
out["objects"] = sum(1 for _ in objs.all())
out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
out["held_mb"] = out["rss_mb"] - base / 1024
print(json.dumps(out))
"""


def shape(objects: int) -> dict[str, int]:
    """gpu_cluster's arguments for ``objects`` objects: a node per 100
    objects, 3 claims each, the rest running pods without claims."""
    nodes = max(1, objects // 100)
    pending = max(1, nodes // 30)
    fixed = 4 + nodes * 2 + nodes * 3 * 2 + pending
    return dict(nodes=nodes, claims_per_node=3, pending=pending, plain=objects - fixed)


def child(what: str, arg: str, env: dict[str, str]) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", CHILD, what, arg], capture_output=True, text=True, env=env,
                          check=False)
    if done.returncode:
        raise SystemExit(done.stderr)
    return dict(json.loads(done.stdout))


def measure(objects: int, pages: list[int], repeat: int) -> list[str]:
    from tests.live.apiserver import FakeAPIServer
    from tests.live.clusters import gpu_cluster

    rows = []
    with tempfile.TemporaryDirectory() as tmp, FakeAPIServer() as server:
        items = gpu_cluster(**shape(objects))
        assert len(items) == objects, len(items)
        server.add(items)
        dump = Path(tmp, "dump.json")
        dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": server.objects()}))
        env = {**os.environ, "KUBECONFIG": str(server.kubeconfig(Path(tmp, "config"))), "HOME": tmp,
               "PYTHONPATH": str(ROOT)}
        runs: dict[str, list[dict[str, float]]] = {}
        for _ in range(repeat):
            for n in pages:
                runs.setdefault(f"live, pages of {n}", []).append(child("live", str(n), env))
            runs.setdefault("dump (JSON)", []).append(child("file", str(dump), env))
        for name, got in runs.items():
            best = min(got, key=lambda r: r["s"])
            assert best["objects"] == objects, best
            rows.append(f"| {objects:,} | {name} | {best['s']:.2f} s | {min(r['cpu_s'] for r in got):.2f} s "
                        f"| {min(r['import_s'] for r in got):.2f} s "
                        f"| {best['rss_mb']:.0f} MB | +{best['held_mb']:.0f} MB |")
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--objects", default="1000,10000", help="cluster sizes (objects), comma-separated")
    ap.add_argument("--pages", default="100,500", help="page sizes (--chunk-size), comma-separated")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--write", action="store_true", help="put the table into docs/benchmarks.md")
    args = ap.parse_args()
    rows = ["| objects | read | time | CPU (reader) | import kubernetes | peak RSS | held |",
            "|---|---|---|---|---|---|---|"]
    for n in (int(x) for x in args.objects.split(",")):
        rows += measure(n, [int(p) for p in args.pages.split(",")], args.repeat)
    load = os.getloadavg()
    table = "\n".join(rows) + f"\n\nload average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1/5/15 min) at the end"
    print(table)
    if args.write:
        text = DOC.read_text(encoding="utf-8")
        head, _, rest = text.partition(BEGIN)
        _, _, tail = rest.partition(END)
        DOC.write_text(f"{head}{BEGIN}\n{table}\n{END}{tail}", encoding="utf-8")


if __name__ == "__main__":
    main()
