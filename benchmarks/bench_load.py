"""Ingest benchmark (run on demand: ``.venv/bin/python benchmarks/bench_load.py``).

Loading a cluster costs how much more than the raw parse of the same bytes,
and how much memory, in every layout a cluster comes in? The cluster is
``dralloc generate cluster --types gpu=N/2,mig=N/2 --nics 8``: half the
nodes with 8 whole A100s and 8 RDMA NICs (plus Ethernet), half with 8
A100-40GB under DynamicMIG (every profile at every placement, counters) --
112 devices per node on average, every GPU with its own UUID. Layouts:

* ``yaml``: the YAML stream ``dralloc generate cluster`` prints;
* ``json``: ``dralloc generate cluster -o json`` (one List, an item per line);
* ``dir-yaml`` / ``dir-json``: ``--out-dir`` (files of 100 nodes);
* ``kubectl-json``: the same objects as ``kubectl get -o json`` writes them
  (one List, keys sorted, indented by four spaces).

Per size and layout each measure runs in its own process (peak RSS is that
process's), repeated, alternating, so the ratios come from one run on this
shared machine; the best time of each is kept:

* **raw parse**: orjson (JSON) or fast-yaml (YAML: every document, in calls
  of at most 64 MB since fast-yaml reads at most 100 MiB at once) on the
  bytes, already read, with the garbage collector paused as the loader pauses
  it; nothing else;
* **load**: ``dralloc.io.load`` (read, parse, models, defaults, duplicates;
  identical parts shared, :mod:`dralloc.io.share`), then **admit**:
  ``dralloc.validation.admission.admit`` (the API server's validation);
  ``load + admit`` is what every command pays. Peak RSS is measured after the
  load and again after admission.

A measure whose process fails is a row saying so, and the other measures go
on; the bare parse of the 5,000-node kubectl-style List (more memory than this
24 GB machine has, for orjson at once) is then measured item by item: orjson
on each item, every item kept, the items' places found before the clock
starts (a stricter baseline: faster than the whole-List parse where both run).

Inputs are generated once into ``--workdir`` (not the repository) and reused.
``--write`` puts the table into docs/benchmarks.md (between the markers of
its section)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks.md"
BEGIN, END = "<!-- bench_load:begin -->", "<!-- bench_load:end -->"
LAYOUTS = ("yaml", "json", "dir-yaml", "dir-json", "kubectl-json")

CHILD = r"""
import json, resource, sys, time
from pathlib import Path
what, paths = sys.argv[1], [Path(p) for p in sys.argv[2:]]
from dralloc.io.build import quiet_gc
def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
out = {}
if what == "raw":
    data = [p.read_bytes() for p in paths]
    import fast_yaml, orjson
    with quiet_gc():
        t, c = time.perf_counter(), time.process_time()
        docs = []
        for p, raw in zip(paths, data):
            if p.suffix == ".json":
                docs.append(orjson.loads(raw))
                continue
            text, at = raw.decode("utf-8"), 0   # fast-yaml reads at most 100 MiB per call
            while at < len(text):
                cut = text.find("\n---\n", at + (64 << 20)) if len(text) - at > (64 << 20) else -1
                cut = len(text) if cut < 0 else cut + 1
                docs.extend(fast_yaml.safe_load_all(text[at:cut], max_documents=10_000_000))
                at = cut
        out.update(raw_s=time.perf_counter() - t, raw_cpu=time.process_time() - c)
elif what == "raw-items":   # kubectl's indented List, its items parsed one by one (every one kept)
    data = [p.read_bytes() for p in paths]
    import orjson
    pieces = []   # where the items are (found before the clock starts: the parse alone is timed)
    for raw in data:
        view = memoryview(raw)   # (slices of it are not copies)
        at = raw.index(b'"items": [') + len(b'"items": [')
        end = raw.rindex(b"\n    ],")
        while at < end:
            at += 2 if raw[at:at + 2] == b",\n" else 1 if raw[at:at + 1] == b"\n" else 0
            stop = raw.find(b"\n        }", at)   # an item's closing brace, at the items' indentation
            stop = end if stop < 0 else stop + len(b"\n        }")
            pieces.append(view[at:stop])
            at = stop
    with quiet_gc():
        t, c = time.perf_counter(), time.process_time()
        docs = [orjson.loads(piece) for piece in pieces]
        out.update(raw_s=time.perf_counter() - t, raw_cpu=time.process_time() - c, raw_items=1.0)
elif what == "breakdown":   # where the load's CPU goes, phase by phase (one process)
    from dralloc.io import ObjectSet, dupkeys, parse, share
    from dralloc.io.loader import parse_object
    from dralloc.validation.admission import admit
    def cpu(fn):
        c = time.process_time()
        got = fn()
        return got, time.process_time() - c
    with quiet_gc():
        docs, read = cpu(lambda: [d for p in paths for d in parse.iter_documents(p)])
        del docs
        parse.may_hide_duplicates = lambda *a, **k: False   # the same reading without the duplicate-key proof
        docs, bare = cpu(lambda: [d for p in paths for d in parse.iter_documents(p)])
        parse.may_hide_duplicates = dupkeys.may_hide_duplicates
        objs = ObjectSet()
        with share.sharing() as tables:
            built, build = cpu(lambda: [parse_object(d.data, "") for d in docs])
        _, free = cpu(lambda: docs.clear())
        for o in built:
            objs.add(o)
        objs.derived.update(tables.derived)
        _, adm = cpu(lambda: admit(objs))
    out.update(read_items_cpu=bare, duplicate_key_proof_cpu=read - bare, build_cpu=build, free_cpu=free,
               admit_cpu=adm)
else:
    from dralloc.io import load
    from dralloc.validation.admission import admit
    t, c = time.perf_counter(), time.process_time()
    objs = load(paths)
    t1, c1 = time.perf_counter(), time.process_time()
    out["load_rss_mb"] = rss()
    admit(objs)
    out.update(load_s=t1 - t, load_cpu=c1 - c, admit_s=time.perf_counter() - t1, admit_cpu=time.process_time() - c1,
               objects=sum(1 for _ in objs.all()), devices=sum(len(s.spec.devices or ()) for s in objs.slices))
out["rss_mb"] = rss()
print(json.dumps(out))
"""


def _dralloc(args: list[str], out: Path | None = None) -> None:
    cmd = [sys.executable, "-m", "dralloc.cli.main", "generate", "cluster", *args]
    if out is None:
        subprocess.run(cmd, check=True, stderr=subprocess.DEVNULL)
        return
    with out.open("wb") as f:
        subprocess.run(cmd, stdout=f, check=True, stderr=subprocess.DEVNULL)


def _kubectl_json(src: Path, dst: Path) -> None:
    """``src`` (a JSON List) as ``kubectl get -o json`` prints it, item by item."""
    import orjson

    from dralloc.errors import InputError
    from dralloc.io.parse import iter_documents

    with dst.open("wb") as f:
        f.write(b'{\n    "apiVersion": "v1",\n    "items": [\n')
        for j, doc in enumerate(iter_documents(src)):
            if isinstance(doc, InputError):
                raise doc
            text = orjson.dumps(doc.data, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
            lines = [b" " * (8 + 2 * (len(ln) - len(ln.lstrip(b" ")))) + ln.lstrip(b" ") for ln in text.split(b"\n")]
            f.write((b",\n" if j else b"") + b"\n".join(lines))
        f.write(b'\n    ],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n')


def generate(workdir: Path, nodes: int) -> dict[str, list[Path]]:
    """Every layout of the ``nodes``-node cluster (made once)."""
    d = workdir / f"n{nodes}"
    d.mkdir(parents=True, exist_ok=True)
    types = ["--types", f"gpu={nodes // 2},mig={nodes - nodes // 2}", "--nics", "8"]
    files = {"yaml": d / "cluster.yaml", "json": d / "cluster.json"}
    for layout, path in files.items():
        if not path.exists():
            print(f"generating {path} ...", file=sys.stderr, flush=True)
            _dralloc([*types, "-o", layout], path.with_suffix(".part"))
            path.with_suffix(".part").rename(path)
    for fmt in ("yaml", "json"):
        out = d / f"dir-{fmt}"
        if not (out / "done").exists():
            print(f"generating {out} ...", file=sys.stderr, flush=True)
            _dralloc([*types, "-o", fmt, "--out-dir", str(out)])
            (out / "done").touch()
    kub = d / "kubectl.json"
    if not kub.exists():
        print(f"generating {kub} ...", file=sys.stderr, flush=True)
        _kubectl_json(files["json"], kub.with_suffix(".part"))
        kub.with_suffix(".part").rename(kub)
    return {"yaml": [files["yaml"]], "json": [files["json"]], "kubectl-json": [kub],
            "dir-yaml": sorted((d / "dir-yaml").glob("*.yaml")), "dir-json": sorted((d / "dir-json").glob("*.json"))}


def child(what: str, paths: list[Path]) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", CHILD, what, *map(str, paths)], capture_output=True, text=True,
                          cwd=ROOT)
    if done.returncode != 0:   # the bare parse of a 5,000-node kubectl List does not fit in 24 GB
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        print(f"{what} failed: {last}", file=sys.stderr, flush=True)
        return {f"{what}_failed": 1.0}
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(paths: list[Path], repeat: int, kubectl: bool = False) -> dict[str, float]:
    best: dict[str, float] = {}
    for _ in range(repeat):
        for what in ("raw", "load"):
            r = child(what, paths)
            if "raw_failed" in r and kubectl:   # the whole List asks more memory than there is: item by item
                r = child("raw-items", paths)
            for k, v in r.items():
                if k.endswith(("_s", "_cpu")):
                    best[k] = min(best.get(k, float("inf")), v)
                elif k == "rss_mb":
                    best[f"{what}_peak_mb"] = max(best.get(f"{what}_peak_mb", 0.0), v)
                elif k == "load_rss_mb":
                    best[k] = max(best.get(k, 0.0), v)
                else:
                    best[k] = v
    best["mb"] = sum(p.stat().st_size for p in paths) / 1e6
    return best


HEAD = ("| nodes | layout | MB | devices | raw parse s (CPU) | load s (CPU) | admit s (CPU) | "
        "(load + admit) / raw, CPU | (load + admit) / raw, wall | peak RSS of load (MB) | "
        "peak RSS, load + admit (MB) | raw parse peak (MB) |\n"
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")


def row(nodes: int, layout: str, r: dict[str, float]) -> str:
    if r.get("raw_items"):
        layout += " (raw parse item by item: the whole List did not fit)"
    if "raw_cpu" not in r or "load_cpu" not in r:
        raw = f"{r['raw_s']:.1f} ({r['raw_cpu']:.1f})" if "raw_cpu" in r else "could not run (see stderr)"
        load = (f"{r['load_s']:.1f} ({r['load_cpu']:.1f}) | {r['admit_s']:.1f} ({r['admit_cpu']:.1f})"
                if "load_cpu" in r else "could not run (see stderr) | -")
        rss = f"{r['load_rss_mb']:,.0f} | {r['load_peak_mb']:,.0f}" if "load_cpu" in r else "- | -"
        devices = f"{r['devices']:,.0f}" if "devices" in r else "-"
        raw_peak = f"{r['raw_peak_mb']:,.0f}" if "raw_cpu" in r else "-"
        return f"| {nodes:,} | {layout} | {r['mb']:.0f} | {devices} | {raw} | {load} | - | - | {rss} | {raw_peak} |"
    cpu = (r["load_cpu"] + r["admit_cpu"]) / r["raw_cpu"]
    wall = (r["load_s"] + r["admit_s"]) / r["raw_s"]
    return (f"| {nodes:,} | {layout} | {r['mb']:.0f} | {r['devices']:,.0f} | {r['raw_s']:.1f} ({r['raw_cpu']:.1f}) | "
            f"{r['load_s']:.1f} ({r['load_cpu']:.1f}) | {r['admit_s']:.1f} ({r['admit_cpu']:.1f}) | **{cpu:.2f}×** | "
            f"{wall:.2f}× | {r['load_rss_mb']:,.0f} | {r['load_peak_mb']:,.0f} | {r['raw_peak_mb']:,.0f} |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nodes", type=int, nargs="+", default=[100, 1000])
    p.add_argument("--layouts", default=",".join(LAYOUTS), help=f"comma-separated, of {', '.join(LAYOUTS)}")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--workdir", type=Path, default=Path("/tmp/dralloc-bench-ingest"))
    p.add_argument("--write", action="store_true", help="put the table into docs/benchmarks.md")
    p.add_argument("--breakdown", action="store_true",
                   help="instead of the table: where the CPU of loading each JSON layout goes, phase by phase "
                        "(reading the items, the duplicate-key proof, building the models, freeing the parsed "
                        "items, admission), and for kubectl's List the raw parse whole and item by item")
    args = p.parse_args()
    layouts = [x.strip() for x in args.layouts.split(",") if x.strip()]
    if unknown := set(layouts) - set(LAYOUTS):
        p.error(f"unknown layout(s): {', '.join(sorted(unknown))}")
    if args.breakdown:
        for n in args.nodes:
            inputs = generate(args.workdir, n)
            for layout in (x for x in layouts if "json" in x):
                phases = {k: round(v, 2) for k, v in child("breakdown", inputs[layout]).items() if k.endswith("_cpu")}
                if layout == "kubectl-json":
                    for what in ("raw", "raw-items"):
                        phases[f"{what}_cpu"] = round(child(what, inputs[layout]).get("raw_cpu", float("nan")), 2)
                print(f"{n:,} nodes, {layout}: {json.dumps(phases)}", flush=True)
        return
    lines = [HEAD]
    print(HEAD, flush=True)
    for n in args.nodes:
        inputs = generate(args.workdir, n)
        for layout in layouts:
            lines.append(row(n, layout, measure(inputs[layout], args.repeat, layout == "kubectl-json")))
            print(lines[-1], flush=True)
    table = "\n".join(lines)
    if args.write:
        text = DOC.read_text()
        head, _, rest = text.partition(BEGIN)
        _, _, tail = rest.partition(END)
        DOC.write_text(f"{head}{BEGIN}\n{table}\n{END}{tail}")


if __name__ == "__main__":
    main()
