"""Planner on an AI cluster: mixed multi-device demand and gangs (issue 15).

Cluster from the generator (``dralloc generate cluster --types
gpu=N,mig=M``, driver-shaped): whole-GPU nodes (8 GPUs, each with an RDMA
NIC on its PCIe root, as the NVIDIA driver and dranet publish them) and
A100-40GB nodes under DynamicMIG (every profile at every placement). Demand at ``--load`` of the
capacity: training jobs of 2-8 pods (gangs, every pod 8 GPUs each with an
aligned NIC: 8 ``matchAttribute`` pairs), 1-GPU inference pods, and MIG
pods (1g.5gb, 2g.10gb, 3g.20gb). ``plan fit``: the scheduler simulation
(Kubernetes' way, gangs all-or-nothing) and the configuration model
(column generation, integer master, decode through the allocator, checked).

    .venv/bin/python benchmarks/bench_planner_mixed.py                      # 500 + 500 nodes
    .venv/bin/python benchmarks/bench_planner_mixed.py --gpu-nodes 20 --mig-nodes 20
    .venv/bin/python benchmarks/bench_planner_mixed.py --small            # 200 mixed pods on 3 nodes
    .venv/bin/python benchmarks/bench_planner_mixed.py --yaml /tmp/ai     # also write cluster + demand YAML
    .venv/bin/python benchmarks/bench_planner_mixed.py --nodes 1000 5000  # half each kind, one after the other,
                                                                          # time ratios to the first (same run)
    .venv/bin/python benchmarks/bench_planner_mixed.py --nodes 1000 5000 --files  # from files, a process per size

``--nodes ... --files`` is the user's path at scale: the cluster written once by
``dralloc generate cluster --types gpu=N/2,mig=N/2 --nics 8 -o json`` (the
file ``benchmarks/bench_load.py`` reads too) and the demand above into
``--workdir``, then ``plan fit`` on the files in a process of its own per
size (load, admission, the fit; its peak RSS is that process's), sizes
alternating with ``--repeat``, best time of each; the ratios of the sizes
come from one run.

Written up in docs/benchmarks.md ("Planner: AI cluster, mixed demand and gangs")."""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from dralloc.io.progress import Reporter
from dralloc.planner.api import Options, answer
from dralloc.planner.generate import clusters as gen
from dralloc.planner.generate.profiles import gpu_model

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.planner.aicluster import ai_cluster, aligned, pod  # noqa: E402

Doc = dict[str, Any]
MIG = {"1g.5gb": 5, "2g.10gb": 3, "3g.20gb": 2}        # weights of the MIG pods


def demand(gpu_nodes: int, mig_nodes: int, load: float, seed: int) -> list[Doc]:
    """Gang jobs (priority 1) and 1-GPU pods for the GPU nodes, MIG pods for
    the MIG nodes, ``load`` x the capacity of each (8-GPU pods 75 %, 1-GPU
    pods 25 % of the GPUs; MIG pods by compute slices)."""
    rng = random.Random(seed)
    a100 = gpu_model("a100-40gb")
    docs: list[Doc] = [aligned("train", 8), aligned("infer", 1)]
    docs += [gen.mig_template(a100.profile(p)) for p in MIG]
    big = int(load * 0.75 * gpu_nodes)                 # 8-GPU pods
    jobs, pods = 0, 0
    while pods < big:
        size = min(rng.randint(2, 8), big - pods) if big - pods >= 2 else 2
        docs.append(pod(f"job-{jobs:04d}", ["train"], replicas=size, priority=1, gang=f"job-{jobs:04d}"))
        jobs, pods = jobs + 1, pods + size
    docs.append(pod("infer", ["infer"], replicas=int(load * 0.25 * 8 * gpu_nodes)))
    slices = load * mig_nodes * 8 * a100.compute_slices
    per = sum(a100.profile(p).compute_slices * w for p, w in MIG.items())
    for p, w in MIG.items():
        docs.append(pod(f"mig-{a100.profile(p).label}", [f"mig-{a100.profile(p).label}"],
                        replicas=int(slices * w / per)))
    return docs


def small() -> list[Doc]:
    """200 mixed pods on 3 nodes (one GPU+NIC node, two MIG nodes)."""
    docs = ai_cluster(1, 2) + demand(0, 0, 0, 0)[:5]
    docs += [pod("mig-1g", ["mig-1g-5gb"], replicas=100), pod("mig-3g", ["mig-3g-20gb"], replicas=40),
             pod("mig-2g", ["mig-2g-10gb"], replicas=20), pod("infer", ["infer"], replicas=30),
             pod("job", ["train"], replicas=4, gang="job", min_count=2), pod("pair", ["infer"], replicas=6, priority=1)]
    return docs


def replicas(n: int, args: argparse.Namespace) -> None:
    import tracemalloc

    docs = ai_cluster(1, 1, 2) + demand(0, 0, 0, 0)[:5] + [pod("a", ["mig-1g-5gb"], replicas=n),
                                                            pod("b", ["infer"], replicas=n)]
    objs = gen.objects(docs)
    tracemalloc.start()
    t0 = time.perf_counter()
    ans = answer("fit", objs, Options(workers=args.workers, time_limit=args.time_limit))
    seconds = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"replicas={n} x 2: peak={peak / 2**20:.2f}MiB fit={seconds:.2f}s first-fit={ans.first_fit['pods']} "
          f"optimal={ans.optimal['pods']} proven={ans.optimal['proven']}")


def run(docs: list[Doc], args: argparse.Namespace) -> tuple[float, float]:
    """The fit, printed; returns its wall-clock and CPU seconds."""
    t0 = time.perf_counter()
    objs = gen.objects(docs)
    built = time.perf_counter() - t0
    t1, c1 = time.perf_counter(), time.process_time()
    progress = Reporter(True) if args.progress else None
    ans = answer("fit", objs, Options(workers=args.workers, time_limit=args.time_limit, progress=progress))
    fit, cpu = time.perf_counter() - t1, time.process_time() - c1
    ff, opt, d = ans.first_fit, ans.optimal, ans.detail
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    gap = (opt["bound"] - opt["objective"]) / opt["bound"] if opt["bound"] else 0.0
    print(f"nodes={len(objs.nodes)} pods={d['demand']} gangs={len(d.get('gangs', {}))} build={built:.1f}s "
          f"fit={fit:.1f}s wall, {cpu:.1f}s CPU (model {opt['solveSeconds']:.1f}s wall) rss={rss:.0f}MiB")
    print(f"  first-fit: pods={ff['pods']} weighted={ff['weighted']} gangs={ff.get('gangs')} "
          f"allocator-calls={ff['allocatorCalls']} simulation={ff['simulationSeconds']:.1f}s")
    print(f"  optimal:   pods={opt['pods']} objective={opt['objective']} bound={opt['bound']} gap={100 * gap:.2f}% "
          f"status={opt['status']} gangs={opt.get('gangs')} method={d.get('method')} types={d.get('nodeTypes')} "
          f"configurations={d.get('configurations')} iterations={d.get('iterations')} lp={d.get('lpValue')} "
          f"integer-master={d.get('integerMasterSeconds')}s")
    print(f"  decoded through the allocator ({d.get('allocatorCalls')} calls), checked node by node: "
          f"{'yes' if not opt.get('notes') else opt['notes']}")
    print(f"  gangs Kubernetes refuses that fit: {len(d.get('gangsKubernetesRefusesThatFit', []))}")
    return fit, cpu


def sizes(nodes: list[int], args: argparse.Namespace) -> None:
    """Each cluster size in turn (half whole-GPU, half MIG nodes), the fit's
    time against the first size's, measured in this one run."""
    first: tuple[float, float] | None = None
    for n in nodes:
        docs = ai_cluster(n // 2, n - n // 2) + demand(n // 2, n - n // 2, args.load, args.seed)
        wall, cpu = run(docs, args)
        del docs
        first = (wall, cpu) if first is None else first
        print(f"  {n} nodes: fit {wall / first[0]:.2f}x the {nodes[0]}-node fit's wall time, "
              f"{cpu / first[1]:.2f}x its CPU time")


CHILD = r"""
import json, resource, sys, time
from dralloc.planner.api import Options, answer, load_objects
t0, c0 = time.perf_counter(), time.process_time()
objs = load_objects(sys.argv[1:3])
t1, c1 = time.perf_counter(), time.process_time()
loaded_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
ans = answer("fit", objs, Options(workers=int(sys.argv[3]), time_limit=float(sys.argv[4])))
t2, c2 = time.perf_counter(), time.process_time()
ff, opt, d = ans.first_fit, ans.optimal, ans.detail
print(json.dumps({"load_s": t1 - t0, "load_cpu": c1 - c0, "fit_s": t2 - t1, "fit_cpu": c2 - c1,
                  "loaded_rss_mb": loaded_rss, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "nodes": len(objs.nodes), "pods": d["demand"], "ff": ff["pods"], "opt": opt["pods"],
                  "objective": opt["objective"], "bound": opt["bound"], "status": opt["status"],
                  "types": d.get("nodeTypes"), "sim_s": ff["simulationSeconds"], "calls": ff["allocatorCalls"]}))
"""


def files(nodes: int, workdir: Path, args: argparse.Namespace) -> tuple[Path, Path]:
    """The cluster (as bench_load.py generates it) and the demand for it, made once."""
    d = workdir / f"n{nodes}"
    d.mkdir(parents=True, exist_ok=True)
    cluster, dem = d / "cluster.json", d / f"demand-{args.load}-{args.seed}.yaml"
    gpu, mig = nodes // 2, nodes - nodes // 2
    if not cluster.exists():
        print(f"generating {cluster} ...", file=sys.stderr, flush=True)
        with cluster.with_suffix(".part").open("wb") as f:
            subprocess.run([sys.executable, "-m", "dralloc.cli.main", "generate", "cluster", "--types",
                            f"gpu={gpu},mig={mig}", "--nics", "8", "-o", "json"], stdout=f, check=True,
                           stderr=subprocess.DEVNULL)
        cluster.with_suffix(".part").rename(cluster)
    if not dem.exists():
        from dralloc.planner.generate.emit import write_groups
        with dem.open("w") as f:
            write_groups([demand(gpu, mig, args.load, args.seed)], f, "yaml")
    return cluster, dem


def at_scale(args: argparse.Namespace) -> None:
    """``plan fit`` from files at each size of ``--nodes``, in a process of its own."""
    inputs = {n: files(n, Path(args.workdir), args) for n in args.nodes}
    best: dict[int, dict[str, Any]] = {}
    for _ in range(args.repeat):
        for n in args.nodes:
            cluster, dem = inputs[n]
            done = subprocess.run([sys.executable, "-c", CHILD, str(cluster), str(dem), str(args.workers),
                                   str(args.time_limit)], capture_output=True, text=True, check=True)
            r = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"nodes={n} load={r['load_s']:.1f}s ({r['load_cpu']:.1f} CPU) fit={r['fit_s']:.1f}s "
                  f"({r['fit_cpu']:.1f} CPU) peak RSS={r['rss_mb']:,.0f} MiB (after load {r['loaded_rss_mb']:,.0f}) "
                  f"pods={r['pods']} first-fit={r['ff']} optimal={r['opt']} objective={r['objective']} "
                  f"bound={r['bound']} status={r['status']} node types={r['types']} calls={r['calls']}", flush=True)
            old = best.get(n)
            keep = dict(r) if old is None else old
            for k in ("load_s", "load_cpu", "fit_s", "fit_cpu"):
                keep[k] = min(keep[k], r[k])
            keep["rss_mb"] = max(keep["rss_mb"], r["rss_mb"])
            best[n] = keep
    base = best[args.nodes[0]]
    for n, r in best.items():
        gap = (r["bound"] - r["objective"]) / r["bound"] if r["bound"] else 0.0
        print(f"| {n:,} | {r['pods']:,} | {r['ff']:,} | {r['opt']:,} | {100 * gap:.4f} % | {r['load_s']:.1f} | "
              f"{r['fit_s']:.1f} ({r['fit_cpu']:.1f} CPU) | {r['fit_s'] / base['fit_s']:.2f}× "
              f"({r['fit_cpu'] / base['fit_cpu']:.2f}× CPU) | {r['rss_mb']:,.0f} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpu-nodes", type=int, default=500)
    ap.add_argument("--mig-nodes", type=int, default=500)
    ap.add_argument("--load", type=float, default=1.1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--small", action="store_true", help="200 mixed pods on 3 nodes")
    ap.add_argument("--time-limit", type=float, default=45.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--progress", action="store_true")
    ap.add_argument("--yaml", help="write cluster.yaml and demand.yaml into this directory too")
    ap.add_argument("--replicas", type=int, nargs="+", metavar="N",
                    help="memory: fit a 1g.5gb pod and a GPU+NIC pod of N replicas each on two nodes, per N "
                         "(tracemalloc peak during the fit)")
    ap.add_argument("--nodes", type=int, nargs="+", metavar="N",
                    help="cluster sizes (half whole-GPU, half MIG nodes), run one after the other; the fit's time "
                         "as a ratio to the first size's")
    ap.add_argument("--joint", action="store_true", help="also answer with the joint model (the path before "
                                                           "the configuration model), same run")
    ap.add_argument("--files", action="store_true", help="with --nodes: plan fit from files (N/2 GPU+NIC nodes, "
                    "N/2 MIG nodes), each size in a process of its own (load included; its peak RSS)")
    ap.add_argument("--workdir", default="/tmp/dralloc-bench-ingest", help="where --nodes keeps its inputs")
    ap.add_argument("--repeat", type=int, default=1, help="--nodes: runs per size, alternating")
    args = ap.parse_args()
    if args.nodes and args.files:
        at_scale(args)
        return
    if args.replicas:
        for n in args.replicas:
            replicas(n, args)
        return
    if args.nodes:
        sizes(args.nodes, args)
        return
    if args.small:
        docs = small()
    else:
        docs = ai_cluster(args.gpu_nodes, args.mig_nodes) + demand(args.gpu_nodes, args.mig_nodes, args.load,
                                                                   args.seed)
    if args.yaml:
        out = Path(args.yaml)
        out.mkdir(parents=True, exist_ok=True)
        dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        (out / "cluster.yaml").write_text(yaml.dump_all([d for d in docs if d["kind"] != "Pod"
                                                         and d["kind"] != "ResourceClaimTemplate"], Dumper=dumper))
        (out / "demand.yaml").write_text(yaml.dump_all([d for d in docs if d["kind"] in ("Pod", "ResourceClaimTemplate")],
                                                       Dumper=dumper))
    run(docs, args)
    if args.joint:
        joint(docs, args)


def joint(docs: list[Doc], args: argparse.Namespace) -> None:
    from dralloc.features import Features
    from dralloc.planner.questions.general import general_fit
    from dralloc.planner.view.pods import pods_demand

    objs = gen.objects(docs)
    t0 = time.perf_counter()
    _, opt = general_fit(objs, pods_demand(objs), Features.default(), time_limit=args.time_limit,
                         workers=args.workers, model="joint")
    print(f"  joint model: pods={sum(opt.served.values())} objective={opt.value} bound={opt.bound} "
          f"status={opt.status} time={time.perf_counter() - t0:.1f}s")


if __name__ == "__main__":
    main()
