"""Multi-host TPU slices as KEP-4815 defines them ("Defining multi-host
devices"): a block of four nodes with four TPUs each forms a 4x4 slice,
published by a central controller as one pool (``allNodes`` counter slice,
per-device node selection): the 4x4 device over the four nodes, two 2x4
devices over two nodes each and four 2x2 devices on one node each. One
counter per node (TPUs on that node) makes the partitions exclude each other.

Demand: a slice of a topology is one shared ResourceClaim (selected by the
``tpus`` capacity) used by one pod per host (the ``replicas`` annotation):
4 pods for a 4x4, 2 for a 2x4, 1 for a 2x2."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dralloc.errors import InputError
from dralloc.planner.generate.demand import REPLICAS, split

TPU_DRIVER = "tpu.dra.example.com"
TPU_CLASS = "tpu.example.com"
HOST_TPUS = 4
# topology -> (TPUs, host indices within a block, per device)
TOPOLOGIES: dict[str, tuple[int, list[tuple[int, ...]]]] = {
    "4x4": (16, [(0, 1, 2, 3)]),
    "2x4": (8, [(0, 1), (2, 3)]),
    "2x2": (4, [(0,), (1,), (2,), (3,)]),
}
Obj = dict[str, Any]


def _selector(hosts: list[str]) -> Obj:
    return {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "kubernetes.io/hostname", "operator": "In", "values": hosts}]}]}


def _devices(hosts: list[str]) -> list[Obj]:
    out = []
    for topo, (tpus, groups) in TOPOLOGIES.items():
        for i, group in enumerate(groups):
            names = [hosts[h] for h in group]
            dev: Obj = {"name": f"tpu-{topo}-{i + 1}",
                        "attributes": {"topology": {"string": topo}},
                        "capacity": {"tpus": {"value": str(tpus)}},
                        "consumesCounters": [{"counterSet": "tpus", "counters": {
                            f"tpus-{n}": {"value": str(HOST_TPUS)} for n in names}}]}
            if len(names) == 1:
                dev["nodeName"] = names[0]
            else:
                dev["nodeSelector"] = _selector(names)
            out.append(dev)
    return out


def tpu_block(name: str) -> list[Obj]:
    """Four Nodes ``<name>-host-0..3`` and the two slices of their pool."""
    hosts = [f"{name}-host-{i}" for i in range(4)]
    out: list[Obj] = [{"apiVersion": "v1", "kind": "Node",
                       "metadata": {"name": h, "labels": {"kubernetes.io/hostname": h, "tpu.block": name}}}
                      for h in hosts]
    pool = {"name": name, "generation": 1, "resourceSliceCount": 2}
    out.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                "metadata": {"name": f"{name}-tpu-counters"},
                "spec": {"driver": TPU_DRIVER, "pool": pool, "allNodes": True,
                         "sharedCounters": [{"name": "tpus", "counters": {
                             f"tpus-{h}": {"value": str(HOST_TPUS)} for h in hosts}}]}})
    out.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                "metadata": {"name": f"{name}-tpu-devices"},
                "spec": {"driver": TPU_DRIVER, "pool": pool, "perDeviceNodeSelection": True,
                         "devices": _devices(hosts)}})
    return out


def tpu_class() -> Obj:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": TPU_CLASS},
            "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{TPU_DRIVER}"'}}]}}


def tpu_cluster(blocks: int, prefix: str = "tpu") -> list[Obj]:
    """The TPU DeviceClass and ``blocks`` blocks of four nodes."""
    if blocks < 0:
        raise InputError("generate: the number of TPU blocks must not be negative")
    width = max(2, len(str(max(blocks - 1, 0))))
    out = [tpu_class()]
    for b in range(blocks):
        out.extend(tpu_block(f"{prefix}-{b:0{width}d}"))
    return out


def slice_demand(name: str, topology: str, priority: int = 0) -> list[Obj]:
    """One slice of ``topology``: a shared claim and its pods (one per host)."""
    if topology not in TOPOLOGIES:
        raise InputError(f"generate: unknown TPU topology {topology!r}; choose one of {', '.join(TOPOLOGIES)}")
    tpus, groups = TOPOLOGIES[topology]
    hosts = len(groups[0])
    sel = f'device.capacity["{TPU_DRIVER}"].tpus == quantity("{tpus}")'
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": name, "namespace": "default"},
             "spec": {"devices": {"requests": [{"name": "tpus", "exactly": {
                 "deviceClassName": TPU_CLASS, "selectors": [{"cel": {"expression": sel}}]}}]}}}
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name, "namespace": "default", "annotations": {REPLICAS: str(hosts)}},
           "spec": {"priority": priority, "resourceClaims": [{"name": "tpus", "resourceClaimName": name}],
                    "containers": [{"name": "main", "resources": {"claims": [{"name": "tpus"}]}}]}}
    return [claim, pod]


def tpu_demand(mix: Mapping[str, int], slices: int, priorities: int = 1) -> list[Obj]:
    """``slices`` slices split over the topologies of ``mix`` (topology ->
    weight, largest remainder), interleaved in queue order (round robin over
    topologies), each spread over ``priorities`` levels."""
    bad = sorted(set(mix) - set(TOPOLOGIES))
    if bad:
        raise InputError(f"generate: unknown TPU topology {bad[0]!r}; choose among {', '.join(TOPOLOGIES)}")
    counts = split(slices, mix)
    queue: list[str] = []
    while any(counts.values()):
        for topo in sorted(counts):
            if counts[topo]:
                queue.append(topo)
                counts[topo] -= 1
    out: list[Obj] = []
    for i, topo in enumerate(queue):
        out.extend(slice_demand(f"slice-{i:04d}-{topo}", topo, i % max(1, priorities)))
    return out
