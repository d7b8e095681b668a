"""Ingest benchmark (run on demand: ``.venv/bin/python benchmarks/bench_load.py``).

Loading a ``dralloc generate cluster`` dump (nodes of 8 A100s: 208 devices
each, counters and MIG partitions) costs how much more than the raw parse of
the same bytes? Per size and format, each measure runs in its own process
(peak RSS is that process's) and is repeated, alternating, so the ratios come
from one run on this shared machine; the best time of each is kept.

* **raw parse**: orjson (JSON) or fast-yaml (YAML, every document of the
  stream, in calls of at most 64 MB since fast-yaml reads at most 100 MiB at
  once) on the file's bytes, with the garbage collector paused as the loader
  pauses it; nothing else.
* **load**: ``dralloc.io.load`` (parse, models, defaults, duplicates).
* **admit**: ``dralloc.validation.admission.admit`` after the load (the API
  server's validation); ``load + admit`` is what every command pays.

The YAML file is what ``dralloc generate cluster`` prints; the JSON file the
same objects as one ``kubectl get -o json``-style List. Files are generated
once into ``--workdir`` and reused. ``--write`` puts the table into
docs/benchmarks.md (between the markers of its section)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks.md"
BEGIN, END = "<!-- bench_load:begin -->", "<!-- bench_load:end -->"

CHILD = r"""
import json, resource, sys, time
from pathlib import Path
what, path = sys.argv[1], Path(sys.argv[2])
from dralloc.io.build import quiet_gc
out = {}
if what == "raw":
    data = path.read_bytes()
    with quiet_gc():
        t = time.perf_counter()
        if path.suffix == ".json":
            import orjson
            docs = orjson.loads(data)
        else:  # fast-yaml reads at most 100 MiB per call: whole documents, 64 MB at a time
            import fast_yaml
            text, docs, at = data.decode("utf-8"), [], 0
            while at < len(text):
                cut = text.find("\n---\n", at + (64 << 20)) if len(text) - at > (64 << 20) else -1
                cut = len(text) if cut < 0 else cut + 1
                docs.extend(fast_yaml.safe_load_all(text[at:cut], max_documents=10_000_000))
                at = cut
        out["raw_s"] = time.perf_counter() - t
else:
    from dralloc.io import load
    from dralloc.validation.admission import admit
    t = time.perf_counter()
    objs = load([path])
    t1 = time.perf_counter()
    admit(objs)
    out.update(load_s=t1 - t, admit_s=time.perf_counter() - t1,
               objects=sum(1 for _ in objs.all()),
               devices=sum(len(s.spec.devices or ()) for s in objs.slices))
out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def generate(workdir: Path, nodes: int) -> tuple[Path, Path]:
    """The YAML and JSON dumps of ``nodes`` generated nodes (made once)."""
    workdir.mkdir(parents=True, exist_ok=True)
    yml, jsn = workdir / f"cluster-{nodes}.yaml", workdir / f"cluster-{nodes}.json"
    if not yml.exists():
        print(f"generating {nodes} nodes into {yml} ...", file=sys.stderr, flush=True)
        with yml.open("w") as f:
            subprocess.run([sys.executable, "-m", "dralloc.cli.main", "generate", "cluster", "--nodes", str(nodes)],
                           stdout=f, check=True)
    if not jsn.exists():
        import orjson

        from dralloc.io.parse import iter_documents
        items = [d.data for d in iter_documents(yml)]
        jsn.write_bytes(orjson.dumps({"apiVersion": "v1", "kind": "List", "items": items,
                                      "metadata": {"resourceVersion": ""}}, option=orjson.OPT_INDENT_2))
    return yml, jsn


def child(what: str, path: Path) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", CHILD, what, str(path)], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(path: Path, repeat: int) -> dict[str, float]:
    best: dict[str, float] = {}
    for _ in range(repeat):
        for what in ("raw", "load"):
            r = child(what, path)
            for k, v in r.items():
                if k.endswith("_s"):
                    best[k] = min(best.get(k, float("inf")), v)
                elif k == "rss_mb":
                    best[f"{what}_rss_mb"] = max(best.get(f"{what}_rss_mb", 0.0), v)
                else:
                    best[k] = v
    best["mb"] = path.stat().st_size / 1e6
    return best


def row(nodes: int, fmt: str, r: dict[str, float]) -> str:
    total = r["load_s"] + r["admit_s"]
    return (f"| {nodes:,} | {fmt} | {r['mb']:.0f} | {r['devices']:,.0f} | {r['raw_s']:.2f} | {r['load_s']:.2f} | "
            f"**{r['load_s'] / r['raw_s']:.2f}×** | {r['admit_s']:.2f} | {total / r['raw_s']:.2f}× | "
            f"{r['objects'] / r['load_s']:,.0f} | {r['mb'] / r['load_s']:.1f} | {r['load_rss_mb']:,.0f} |")


HEAD = ("| nodes | format | MB | devices | raw parse (s) | load (s) | load / raw | admit (s) | "
        "(load + admit) / raw | objects/s (load) | MB/s (load) | peak RSS, load + admit (MB) |\n"
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nodes", type=int, nargs="+", default=[100, 1000])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--workdir", type=Path, default=Path("/tmp/dralloc-bench-ingest"))
    p.add_argument("--write", action="store_true", help="put the table into docs/benchmarks.md")
    args = p.parse_args()
    lines = [HEAD]
    for n in args.nodes:
        yml, jsn = generate(args.workdir, n)
        for fmt, path in (("JSON", jsn), ("YAML", yml)):
            r = measure(path, args.repeat)
            lines.append(row(n, fmt, r))
            print(lines[-1], flush=True)
    table = "\n".join(lines)
    print(table)
    if args.write:
        text = DOC.read_text()
        head, _, rest = text.partition(BEGIN)
        _, _, tail = rest.partition(END)
        DOC.write_text(f"{head}{BEGIN}\n{table}\n{END}{tail}")


if __name__ == "__main__":
    main()
