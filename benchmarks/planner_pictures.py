"""Every picture the planner draws, at several cluster sizes, to look at
(issue 22: pictures that tell the truth at 1,000 nodes). Run on demand:

    .venv/bin/python benchmarks/planner_pictures.py OUT [--nodes 10 100 1000] [--only ai,frag]

Scenarios per size N (driver-shaped clusters from the generator, built in
memory): ``mig`` -- N DynamicMIG A100 nodes, MIG demand at 130 % in two
priorities (fit: compare, workloads); ``layout`` -- the same at 80 %
(layout: compare, occupancy); ``frag`` -- the same nodes with MIG
partitions allocated at random, seeded (fragmentation: compare, utilisation,
occupancy); ``ai`` -- N/2 whole-GPU nodes with 8 EFA NICs and N/2 MIG
nodes, ``generate demand --ai`` at 110 % (fit: compare, workloads, nodes);
``add`` -- add-nodes for the MIG demand (compare). Files:
``OUT/<N>-<scenario>-<picture>.png``; timings on stderr."""

from __future__ import annotations

import argparse
import random
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

from dralloc.planner.api import Options, answer
from dralloc.planner.generate import clusters as gen
from dralloc.planner.generate.aidemand import ai_demand
from dralloc.planner.generate.nodes import NodeType
from dralloc.planner.report import plots

MIX = {"1g.5gb": 45, "2g.10gb": 25, "3g.20gb": 20, "4g.20gb": 5, "7g.40gb": 5}
Doc = dict[str, Any]


def held_claims(nodes: int, gpus: int, seed: int) -> list[Doc]:
    """MIG partitions allocated at random on ``gpu-*`` of ``node-*``: per
    GPU, profiles tried in a shuffled order, kept where their memory slices
    are free and the compute slices add up to at most 7; a third of the
    GPUs stay free."""
    rng = random.Random(seed)
    model = gen.gpu_model("a100-40gb")
    profiles = [model.profile(p) for p in ("1g.5gb", "2g.10gb", "3g.20gb", "4g.20gb")]
    width = max(4, len(str(nodes - 1)))
    out: list[Doc] = []
    for n in range(nodes):
        node = f"node-{n:0{width}d}"
        for g in range(gpus):
            if rng.random() < 1 / 3:
                continue
            used, compute = set(), 0
            for p in rng.sample(profiles * 2, 4):
                start = rng.choice(p.starts)
                slots = set(range(start, start + p.memory_slices))
                if slots & used or compute + p.compute_slices > model.compute_slices:
                    continue
                used |= slots
                compute += p.compute_slices
                out.append(_claim(f"held-{node}-{g}-{len(out)}", node, p.device_name(g, start, model.id), p.name))
    return out


def _claim(name: str, node: str, device: str, profile: str) -> Doc:
    sel = f'device.attributes["gpu.nvidia.com"].profile == "{profile}"'
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": name, "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "dev", "exactly": {"deviceClassName": "mig.nvidia.com",
                                                                        "selectors": [{"cel": {"expression": sel}}]}}]}},
            "status": {"allocation": {
                "devices": {"results": [{"request": "dev", "driver": "gpu.nvidia.com", "pool": node, "device": device}]},
                "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In",
                                                                           "values": [node]}]}]}}}}


def scenarios(n: int) -> dict[str, tuple[str, list[Doc], Options]]:
    mig = gen.cluster(n)
    half = [(NodeType("gpu", gpus=8, nics=8), n // 2), (NodeType("mig", gpus=8), n - n // 2)]
    return {
        "mig": ("fit", mig + gen.mig_demand("a100-40gb", MIX, load=Fraction(13, 10), nodes=n, priorities=2),
                Options(time_limit=60)),
        "layout": ("layout", mig + gen.mig_demand("a100-40gb", MIX, load=Fraction(8, 10), nodes=n),
                   Options(time_limit=60)),
        "frag": ("fragmentation", mig + held_claims(n, 8, n), Options(time_limit=60)),
        "ai": ("fit", gen.mixed_cluster(half) + ai_demand(half, Fraction(11, 10), seed=1), Options(time_limit=60)),
        "add": ("add-nodes", mig + gen.mig_demand("a100-40gb", MIX, load=Fraction(13, 10), nodes=n),
                Options(time_limit=60, template="node-0000")),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--nodes", type=int, nargs="+", default=[10, 100, 1000])
    ap.add_argument("--only", help="comma-separated scenarios")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    wanted = set(args.only.split(",")) if args.only else None
    for n in args.nodes:
        for name, (question, docs, opts) in scenarios(n).items():
            if wanted and name not in wanted:
                continue
            t0 = time.perf_counter()
            ans = answer(question, gen.objects(docs), opts)
            t1 = time.perf_counter()
            written = plots.write_all([ans], out / f"{n}-{name}")
            print(f"{n} {name}: {question} {t1 - t0:.1f}s, pictures {time.perf_counter() - t1:.1f}s: "
                  f"{', '.join(Path(w).name for w in written)}", file=sys.stderr)


if __name__ == "__main__":
    main()
