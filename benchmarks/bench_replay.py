"""Replay benchmark in the shape of Kubernetes' scheduler_perf test
``SchedulingWithResourceClaimTemplate/5000pods_500nodes``: 500 nodes with one
ResourceSlice of 10 devices each, 5,000 pods each with one claim (from a
template) for one device, scheduled one pod at a time.

For each pod, nodes are tried round-robin from a rotating start (as the
scheduler's ``nextStartNodeIndex`` does) until one allocates; the allocated
claim then joins that node's allocated state. Slices are indexed per node once
(each node has its own pool, so a node's allocation question only involves its
own slice); the engine is called through the public ``allocate``.

    .venv/bin/python benchmarks/bench_replay.py [--mode replay|first-fit] [--pods N] [--nodes N]
        [--feasible N]   # allocate on N feasible nodes per pod, as the scheduler's Filter does

Prints claims per second; results are in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from typing import Any

from dralloc.io import ObjectSet
from dralloc.io.loader import parse_object
from dralloc.models import (
    AllocationResult,
    DeviceClass,
    Node,
    ResourceClaim,
    ResourceClaimStatus,
    ResourceSlice,
)
from dralloc.solver.api import allocate

DRIVER = "test-driver.cdi.k8s.io"
FEATURES = ("DRAPrioritizedList", "DRAAdminAccess", "DRAPartitionableDevices", "DRADeviceTaints")


def _obj(d: dict[str, Any]) -> Any:
    o = parse_object(d)
    assert o is not None
    return o


def build(nodes: int, devices: int, pods: int) -> tuple[list[Node], list[ObjectSet], list[ResourceClaim]]:
    cls: DeviceClass = _obj({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                             "metadata": {"name": "test-class"},
                             "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}})
    node_objs, per_node = [], []
    for n in range(nodes):
        name = f"scheduler-perf-dra-{n}"
        node_objs.append(_obj({"apiVersion": "v1", "kind": "Node",
                               "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}}}))
        sl: ResourceSlice = _obj({
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": f"{name}-{DRIVER}"},
            "spec": {"driver": DRIVER, "nodeName": name,
                     "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": f"device-{i}"} for i in range(devices)]}})
        objs = ObjectSet()
        objs.add(cls)
        objs.add(sl)
        per_node.append(objs)
    claims = [_obj({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                    "metadata": {"name": f"test-dra-{p}-resource-claim", "namespace": "default"},
                    "spec": {"devices": {"requests": [{"name": "req-0", "exactly": {"deviceClassName": "test-class"}}]}}})
              for p in range(pods)]
    return node_objs, per_node, claims


def with_allocation(claim: ResourceClaim, alloc: AllocationResult) -> ResourceClaim:
    return claim.model_copy(update={"status": ResourceClaimStatus(allocation=alloc)})


def schedule(nodes: list[Node], per_node: list[ObjectSet], claims: list[ResourceClaim],
             mode: str, feasible: int = 1) -> tuple[int, int, float]:
    """Returns (claims allocated, allocate calls, seconds). With ``feasible``
    > 1, each pod's allocation is computed on that many feasible nodes (the
    scheduler's Filter stops after numFeasibleNodesToFind) and the first one
    is kept."""
    held: list[list[ResourceClaim]] = [[] for _ in nodes]
    calls = placed = 0
    t0 = time.perf_counter()
    for i, claim in enumerate(claims):
        found: list[tuple[int, AllocationResult]] = []
        for k in range(len(nodes)):
            n = (i + k) % len(nodes)
            calls += 1
            out = allocate(per_node[n], nodes[n], [claim], allocated=held[n], features=FEATURES, mode=mode)
            if out.ok:
                assert out.allocations is not None
                found.append((n, out.allocations[0]))
                if len(found) >= feasible:
                    break
        if found:
            n, alloc = found[0]
            held[n].append(with_allocation(claim, alloc))
            placed += 1
    return placed, calls, time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", default="replay", choices=("replay", "first-fit"))
    ap.add_argument("--nodes", type=int, default=500)
    ap.add_argument("--devices", type=int, default=10)
    ap.add_argument("--pods", type=int, default=5000)
    ap.add_argument("--feasible", type=int, default=1,
                    help="nodes to run the allocation on per pod (the scheduler's Filter: 230 of 500)")
    args = ap.parse_args(argv)
    nodes, per_node, claims = build(args.nodes, args.devices, args.pods)
    placed, calls, secs = schedule(nodes, per_node, claims, args.mode, args.feasible)
    print(f"{args.mode}: {placed}/{len(claims)} claims on {args.nodes} nodes x {args.devices} devices, "
          f"{calls} allocate calls, {secs:.2f} s, {placed / secs:.0f} claims/s "
          f"({secs / calls * 1e3:.2f} ms/call) [python {platform.python_version()}]")
    return 0 if placed == min(len(claims), args.nodes * args.devices) else 1


if __name__ == "__main__":
    sys.exit(main())
