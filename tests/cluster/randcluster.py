"""Seeded random clusters with every way a pool reaches a node: node-local
pools (devices and counters in separate slices), allNodes pools, nodeSelector
pools (label In, NotIn, Exists, metadata.name fields), per-device node
selection, and the broken cases: incomplete pools, duplicate device names,
older generations, a pool name shared by two drivers' counter pools, a
selector that does not parse."""

from __future__ import annotations

import random
from typing import Any

from dralloc.io.loader import ObjectSet, parse_object

GPU = "gpu.example.com"
NET = "net.example.com"
Obj = dict[str, Any]


def _attrs(**kv: Any) -> Obj:
    return {k: ({"bool": v} if isinstance(v, bool) else {"int": v} if isinstance(v, int) else {"string": v})
            for k, v in kv.items()}


def slice_doc(name: str, driver: str, pool: str, count: int = 1, gen: int = 1, devices: list[Obj] | None = None,
              counters: list[Obj] | None = None, **where: Any) -> Obj:
    spec: Obj = {"driver": driver, "pool": {"name": pool, "generation": gen, "resourceSliceCount": count}, **where}
    if devices is not None:
        spec["devices"] = devices
    if counters is not None:
        spec["sharedCounters"] = counters
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name}, "spec": spec}


def _selector(key: str, op: str, values: list[str] | None = None, field: bool = False) -> Obj:
    req: Obj = {"key": key, "operator": op}
    if values is not None:
        req["values"] = values
    return {"nodeSelectorTerms": [{("matchFields" if field else "matchExpressions"): [req]}]}


def _gpus(rng: random.Random, n: int, counters: bool) -> list[Obj]:
    out = []
    for i in range(n):
        d: Obj = {"name": f"gpu-{i}", "attributes": _attrs(model=rng.choice("ab"), numa=rng.randint(0, 1))}
        if counters:
            d["consumesCounters"] = [{"counterSet": "mem", "counters": {"memory": {"value": f"{rng.choice((2, 4))}Gi"}}}]
        out.append(d)
    return out


def node_pools(rng: random.Random, node: str) -> list[Obj]:
    out = [slice_doc(f"{node}-gpus", GPU, node, devices=_gpus(rng, rng.randint(2, 4), False), nodeName=node)]
    parts = _gpus(rng, 3, True)
    out.append(slice_doc(f"{node}-parts", GPU, f"{node}-parts", 2, devices=parts, nodeName=node))
    out.append(slice_doc(f"{node}-parts-counters", GPU, f"{node}-parts", 2, nodeName=node,
                         counters=[{"name": "mem", "counters": {"memory": {"value": "8Gi"}}}]))
    return out


def shared_pools(rng: random.Random, nodes: list[str]) -> list[Obj]:
    nic = [{"name": f"nic-{i}", "attributes": _attrs(model="n", numa=i % 2)} for i in range(2)]
    out = [
        slice_doc("fabric", NET, "fabric", devices=nic, allNodes=True),
        slice_doc("rack-a", NET, "rack-a", devices=nic, nodeSelector=_selector("rack", "In", ["a"])),
        slice_doc("not-b", NET, "not-b", devices=nic, nodeSelector=_selector("rack", "NotIn", ["b"])),
        slice_doc("has-zone", NET, "has-zone", devices=nic, nodeSelector=_selector("zone", "Exists")),
        slice_doc("by-name", NET, "by-name", devices=nic,
                  nodeSelector=_selector("metadata.name", "In", [nodes[0]], field=True)),
    ]
    per_dev = []
    for i, n in enumerate(nodes):
        per_dev.append({"name": f"tpu-{i}", "nodeName": n, "attributes": _attrs(model="t", numa=0),
                        "consumesCounters": [{"counterSet": "tpus", "counters": {f"host-{i}": {"value": "1"}}}]})
    per_dev.append({"name": "tpu-pair", "attributes": _attrs(model="t", numa=1),
                    "nodeSelector": _selector("kubernetes.io/hostname", "In", nodes[:2]),
                    "consumesCounters": [{"counterSet": "tpus", "counters": {"host-0": {"value": "1"},
                                                                             "host-1": {"value": "1"}}}]})
    out.append(slice_doc("tpu-devices", NET, "tpu", 2, devices=per_dev, perDeviceNodeSelection=True))
    out.append(slice_doc("tpu-counters", NET, "tpu", 2, allNodes=True, counters=[
        {"name": "tpus", "counters": {f"host-{i}": {"value": "1"} for i in range(len(nodes))}}]))
    return [s for s in out if rng.random() < 0.8]


def broken_pools(rng: random.Random, nodes: list[str]) -> list[Obj]:
    """Zero or more of the cases that make a pool incomplete, invalid,
    obsolete or a gather fail."""
    out: list[Obj] = []
    n = rng.choice(nodes)
    if rng.random() < 0.3:   # incomplete: announces three slices, has two
        out.append(slice_doc(f"{n}-half", GPU, f"{n}-half", 3, devices=_gpus(rng, 2, False), nodeName=n))
    if rng.random() < 0.3:   # invalid: duplicate device names (a foreign counter pool for the others)
        devs = _gpus(rng, 2, True)
        devs[1]["name"] = devs[0]["name"]
        out.append(slice_doc(f"{n}-dup", GPU, f"{n}-dup", 2, devices=devs, nodeName=n))
        out.append(slice_doc(f"{n}-dup-counters", GPU, f"{n}-dup", 2, nodeName=n,
                             counters=[{"name": "mem", "counters": {"memory": {"value": "8Gi"}}}]))
    if rng.random() < 0.3:   # invalid for every node: a device consumes a counter set nobody has
        devs = _gpus(rng, 2, True)
        devs[1]["consumesCounters"][0]["counterSet"] = "nope"
        out.append(slice_doc(f"{n}-lost", GPU, f"{n}-lost", 2, devices=devs, nodeName=n))
        out.append(slice_doc(f"{n}-lost-counters", GPU, f"{n}-lost", 2, nodeName=n,
                             counters=[{"name": "mem", "counters": {"memory": {"value": "8Gi"}}}]))
    if rng.random() < 0.3:   # an older generation next to the current one
        out.append(slice_doc(f"{n}-gpus-old", GPU, n, gen=0, devices=_gpus(rng, 1, False), nodeName=n))
    if rng.random() < 0.2:   # the same pool name under another driver, with counters
        out.append(slice_doc(f"{n}-parts-net", NET, f"{n}-parts", 1, nodeName=nodes[-1],
                             counters=[{"name": "mem", "counters": {"memory": {"value": "1Gi"}}}]))
    if rng.random() < 0.1:   # a selector no node can be matched against
        out.append(slice_doc("bad-selector", NET, "bad", devices=[{"name": "x"}],
                             nodeSelector=_selector("rack", "Bogus", ["a"])))
    return out


def classes() -> list[Obj]:
    def cls(name: str, expr: str) -> Obj:
        return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
                "spec": {"selectors": [{"cel": {"expression": expr}}]}}
    return [cls("gpu", f'device.driver == "{GPU}"'), cls("net", f'device.driver == "{NET}"'), cls("any", "true")]


def claim_doc(rng: random.Random, name: str) -> Obj:
    cls = rng.choice(("gpu", "gpu", "net", "any"))
    body: Obj = {"deviceClassName": cls, "allocationMode": "ExactCount", "count": rng.randint(1, 3)}
    if rng.random() < 0.3:
        body["selectors"] = [{"cel": {"expression": f'device.attributes["{GPU}"].?model.orValue("a") == "a"'}}]
    if rng.random() < 0.1:
        body = {"deviceClassName": "net", "allocationMode": "All"}
    req: Obj = {"name": "r0", "exactly": body}
    if rng.random() < 0.15:
        req = {"name": "r0", "firstAvailable": [{"name": "big", **body, "count": 3},
                                                {"name": "small", "deviceClassName": cls,
                                                 "allocationMode": "ExactCount", "count": 1}]}
    devices: Obj = {"requests": [req]}
    if rng.random() < 0.2 and "exactly" in req:
        devices["constraints"] = [{"requests": ["r0"], "matchAttribute": f"{GPU}/numa"}]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "default"}, "spec": {"devices": devices}}


def node_doc(rng: random.Random, name: str) -> Obj:
    labels = {"kubernetes.io/hostname": name, "rack": rng.choice("ab")}
    if rng.random() < 0.7:
        labels["topology.kubernetes.io/zone"] = rng.choice(("z1", "z2"))
        labels["zone"] = labels["topology.kubernetes.io/zone"]
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}}


def cluster_docs(seed: int, nodes: int | None = None) -> list[Obj]:
    rng = random.Random(seed)
    names = [f"node-{i}" for i in range(nodes or rng.randint(2, 4))]
    docs = [node_doc(rng, n) for n in names] + classes()
    for n in names:
        docs.extend(node_pools(rng, n))
    docs.extend(shared_pools(rng, names))
    docs.extend(broken_pools(rng, names))
    rng.shuffle(docs)   # input order matters to the stable allocator
    return docs


def objects(docs: list[Obj]) -> ObjectSet:
    out = ObjectSet()
    for i, d in enumerate(docs):
        obj = parse_object(d, f"random#{i}")
        assert obj is not None
        out.add(obj)
    return out
