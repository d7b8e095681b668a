"""Optimal vs first-fit on MIG nodes (issue #5).

Nodes of 8 A100-40GB GPUs as the NVIDIA DRA driver publishes them with
partitionable devices (the planner's generator: one counter set per GPU with
the engine counters, memory and memory-slice-0..7; one device per MIG profile
and placement). A seeded stream of single-request claims, each for one MIG
device of a profile drawn from MIX, until the compute slices asked for reach
LOAD (130 %) of the nodes' compute slices.

* first-fit: the scheduler's way -- one claim at a time in arrival order,
  ``allocate(mode="first-fit")`` on the first node where it fits, the answer
  committed as allocated before the next claim;
* optimal: every claim at once, objective ``claims`` (claims optional). One
  node: ``allocate(mode="optimal", objective="claims")``. Several nodes: the
  joint model of ``dralloc.audit.joint`` (one claim = one group), hinted with
  first-fit's placement.

    .venv/bin/python benchmarks/bench_mig_optimal.py --seeds 1,2,3 --nodes 1,2,4 --time-limit 60

Reported per run: claims and compute slices placed by each, CP-SAT's bound on
the claims and the gap (bound - optimal), wall times, and whether every answer
passed the independent verifier. Written up in docs/benchmarks.md."""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass
from fractions import Fraction

from dralloc.audit.joint import Group, place_jointly
from dralloc.checker.rules import with_allocation
from dralloc.features import Features
from dralloc.io import ObjectSet
from dralloc.models import Node, ResourceClaim
from dralloc.planner.generate import clusters as gen
from dralloc.planner.generate.profiles import Profile, gpu_model
from dralloc.solver import allocate

GPU = "a100-40gb"
MIX = {"1g.5gb": 45, "2g.10gb": 25, "3g.20gb": 20, "4g.20gb": 5, "7g.40gb": 5}
LOAD = Fraction(13, 10)
FEATURES = Features.from_gates(["DRAPartitionableDevices"])


def claim_doc(i: int, p: Profile) -> dict[str, object]:
    sel = f'device.attributes["{gen.GPU_DRIVER}"].profile == "{p.name}"'
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": f"c{i:04d}-{p.label}", "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "mig", "exactly": {
                "deviceClassName": "mig.nvidia.com", "allocationMode": "ExactCount", "count": 1,
                "selectors": [{"cel": {"expression": sel}}]}}]}}}


def mig_stream(seed: int, nodes: int, gpus: int = 8, load: Fraction = LOAD,
               mix: dict[str, int] | None = None) -> list[dict[str, object]]:
    """Claim documents whose compute slices add up to at least ``load`` times
    the nodes' (profiles drawn with weights ``mix``, seeded)."""
    model = gpu_model(GPU)
    weights = mix or MIX
    names = sorted(weights)
    rng = random.Random(seed)
    target = load * nodes * gpus * model.compute_slices
    out: list[dict[str, object]] = []
    asked = 0
    while asked < target:
        p = model.profile(rng.choices(names, [weights[n] for n in names])[0])
        out.append(claim_doc(len(out), p))
        asked += p.compute_slices
    return out


def scenario(seed: int, nodes: int, gpus: int = 8, load: Fraction = LOAD,
             mix: dict[str, int] | None = None) -> tuple[ObjectSet, list[Node], list[ResourceClaim]]:
    docs = gen.device_classes()
    for i in range(nodes):
        docs.extend(gen.node_objects(f"node-{i}", GPU, gpus))
    docs.extend(mig_stream(seed, nodes, gpus, load, mix))
    objs = gen.objects(docs)
    return objs, list(objs.nodes), list(objs.claims)


def slices_of(claim: ResourceClaim) -> int:
    return int(claim.name.split("-")[1][0])  # c0007-3g-20gb -> 3


@dataclass
class Run:
    placed: dict[str, str]
    seconds: float
    verified: bool
    bound: int | None = None
    status: str = ""


def first_fit(objs: ObjectSet, nodes: list[Node], claims: list[ResourceClaim]) -> Run:
    held: list[ResourceClaim] = []
    placed: dict[str, str] = {}
    verified = True
    t0 = time.perf_counter()
    for c in claims:
        for n in nodes:
            out = allocate(objs, n, [c], allocated=held, features=FEATURES, mode="first-fit")
            if out.ok and out.allocations:
                verified &= bool(out.verified)
                held.append(with_allocation(c, out.allocations[0]))
                placed[c.key] = n.name
                break
    return Run(placed, time.perf_counter() - t0, verified)


def optimal(objs: ObjectSet, nodes: list[Node], claims: list[ResourceClaim], time_limit: float,
            hint: dict[str, str]) -> Run:
    t0 = time.perf_counter()
    if len(nodes) == 1:
        out = allocate(objs, nodes[0], claims, allocated=[], features=FEATURES, mode="optimal",
                       objective="claims", time_limit=time_limit)
        placed = {c.key: nodes[0].name for c, a in zip(claims, out.allocations or [], strict=False)
                  if a.devices is not None}
        rep = out.solver["objectives"][0]  # type: ignore[index]
        return Run(placed, time.perf_counter() - t0, bool(out.verified), int(rep["bound"]), str(rep["status"]))
    groups = [Group(c.key, (c,), tuple(nodes)) for c in claims]
    res = place_jointly(objs, groups, [], FEATURES, time_limit=time_limit, workers=2, hint=hint)
    # place_jointly re-checks every group with the verifier and drops rejected ones
    return Run(res.placed, time.perf_counter() - t0, not res.notes, res.bound, res.status)


def row(seed: int, nodes: int, time_limit: float) -> str:
    objs, node_list, claims = scenario(seed, nodes)
    ff = first_fit(objs, node_list, claims)
    opt = optimal(objs, node_list, claims, time_limit, ff.placed)
    by_key = {c.key: c for c in claims}
    asked = sum(slices_of(c) for c in claims)

    def sl(run: Run) -> int:
        return sum(slices_of(by_key[k]) for k in run.placed)

    if opt.bound is not None:  # CP-SAT's bound, or the trivial one (every claim) when lower
        opt.bound = min(opt.bound, len(claims))
    gap = (opt.bound - len(opt.placed)) if opt.bound is not None else "-"
    return (f"{seed:>4} {nodes:>5} {len(claims):>6} {asked:>6} | {len(ff.placed):>5} {sl(ff):>6} {ff.seconds:>7.2f} "
            f"| {len(opt.placed):>5} {sl(opt):>6} {opt.bound!s:>5} {gap!s:>3} {opt.status:>8} {opt.seconds:>7.2f} "
            f"| {'yes' if ff.verified and opt.verified else 'NO'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--nodes", default="1")
    ap.add_argument("--time-limit", type=float, default=60.0)
    args = ap.parse_args()
    print(f"{'seed':>4} {'nodes':>5} {'claims':>6} {'slices':>6} | {'ff':>5} {'ff-sl':>6} {'ff-s':>7} "
          f"| {'opt':>5} {'opt-sl':>6} {'bound':>5} {'gap':>3} {'status':>8} {'opt-s':>7} | verified")
    for nodes in (int(n) for n in args.nodes.split(",")):
        for seed in (int(s) for s in args.seeds.split(",")):
            print(row(seed, nodes, args.time_limit), flush=True)


if __name__ == "__main__":
    main()
