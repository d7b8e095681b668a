"""Realistic clusters and demands for the planner (``dralloc generate``).

GPUs follow the DRA driver for NVIDIA GPUs with partitionable devices
(KEP-4815): one counter set per physical GPU holding the engine counters,
memory and one counter per memory slice; a full-GPU device consuming all of
it; one MIG device per profile and valid placement consuming the profile's
engines, memory and the memory slices it occupies. NICs are plain devices of
a second driver. Everything is plain ``resource.k8s.io/v1`` data that
:func:`dralloc.io.load` reads; :func:`objects` turns it into models."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from dralloc.errors import InputError
from dralloc.io import ObjectSet, parse_object
from dralloc.planner.generate.profiles import GpuModel, Profile, gpu_model

GPU_DRIVER = "gpu.nvidia.com"
NIC_DRIVER = "dra.net"
REPLICAS = "planner.dralloc.dev/replicas"
Obj = dict[str, Any]


def _attrs(values: Mapping[str, object]) -> Obj:
    out: Obj = {}
    for k, v in values.items():
        out[k] = {"bool": v} if isinstance(v, bool) else {"int": v} if isinstance(v, int) else {"string": str(v)}
    return out


def _counters(values: Mapping[str, int]) -> Obj:
    return {k: {"value": str(v)} for k, v in values.items()}


def _mig_use(model: GpuModel, p: Profile, start: int) -> dict[str, int]:
    caps = model.counters()
    use = {c: v for c, v in p.engines.items() if c in caps and v is not None}
    if "memory" in caps and p.memory_mib is not None:
        use["memory"] = p.memory_mib * 2**20
    for i in range(start, start + p.memory_slices):
        use[f"memory-slice-{i}"] = 1
    return use


def gpu_devices(model: GpuModel, node: str, gpu: int, profiles: Iterable[str] | None = None,
                full_gpu: bool = True) -> tuple[Obj, list[Obj]]:
    """The counter set and devices of one physical GPU."""
    cset = f"gpu-{gpu}-counter-set"
    caps = model.counters()
    uuid = f"GPU-{node}-{gpu}"
    common = {"productName": model.product, "index": gpu, "parentUUID": uuid}
    devices: list[Obj] = []
    if full_gpu:
        devices.append({"name": f"gpu-{gpu}", "attributes": _attrs({"type": "gpu", **common}),
                        "consumesCounters": [{"counterSet": cset, "counters": _counters(caps)}]})
    wanted = set(profiles) if profiles is not None else None
    for p in model.profiles:
        if wanted is not None and p.name not in wanted:
            continue
        for start in p.starts:
            use = _mig_use(model, p, start)
            cap = {"memory": {"value": str(use["memory"])}} if "memory" in use else {}
            devices.append({
                "name": f"gpu-{gpu}-mig-{p.label}-{start}",
                "attributes": _attrs({"type": "mig", "profile": p.name, "placement": start, **common}),
                "capacity": cap,
                "consumesCounters": [{"counterSet": cset, "counters": _counters(use)}],
            })
    return {"name": cset, "counters": _counters(caps)}, devices


MAX_DEVICES_PER_SLICE = 64


def node_objects(name: str, gpu: str, gpus: int, nics: int = 0, profiles: Iterable[str] | None = None,
                 full_gpu: bool = True, labels: Mapping[str, str] | None = None) -> list[Obj]:
    """A Node and its ResourceSlices."""
    model = gpu_model(gpu)
    sets, devices = [], []
    for g in range(gpus):
        cs, devs = gpu_devices(model, name, g, profiles, full_gpu)
        sets.append(cs)
        devices.extend(devs)
    out: list[Obj] = [{"apiVersion": "v1", "kind": "Node",
                       "metadata": {"name": name, "labels": dict(labels or {"gpu.model": gpu})}}]
    # Counter sets and devices live in separate slices of one pool (v1, Kubernetes >= 1.35);
    # a slice whose devices consume counters holds at most 64 of them (the API server's limit).
    chunks = [devices[i:i + MAX_DEVICES_PER_SLICE] for i in range(0, len(devices), MAX_DEVICES_PER_SLICE)]
    pool = {"name": name, "generation": 1, "resourceSliceCount": 1 + len(chunks)}
    out.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                "metadata": {"name": f"{name}-{GPU_DRIVER}-counters"},
                "spec": {"driver": GPU_DRIVER, "nodeName": name, "pool": pool, "sharedCounters": sets}})
    for k, chunk in enumerate(chunks):
        suffix = f"-{k}" if len(chunks) > 1 else ""
        out.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                    "metadata": {"name": f"{name}-{GPU_DRIVER}-devices{suffix}"},
                    "spec": {"driver": GPU_DRIVER, "nodeName": name, "pool": pool, "devices": chunk}})
    if nics:
        nic_devs = [{"name": f"nic-{i}", "attributes": _attrs({"rdma": True, "index": i})} for i in range(nics)]
        out.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                    "metadata": {"name": f"{name}-{NIC_DRIVER}"},
                    "spec": {"driver": NIC_DRIVER, "nodeName": name,
                             "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                             "devices": nic_devs}})
    return out


def device_classes() -> list[Obj]:
    def cls(name: str, expr: str) -> Obj:
        return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
                "spec": {"selectors": [{"cel": {"expression": expr}}]}}
    return [
        cls("gpu.nvidia.com", f'device.driver == "{GPU_DRIVER}" && device.attributes["{GPU_DRIVER}"].type == "gpu"'),
        cls("mig.nvidia.com", f'device.driver == "{GPU_DRIVER}" && device.attributes["{GPU_DRIVER}"].type == "mig"'),
        cls("nic.dra.net", f'device.driver == "{NIC_DRIVER}"'),
    ]


def cluster(nodes: int, gpu: str = "a100-40gb", gpus: int = 8, nics: int = 0,
            profiles: Iterable[str] | None = None, prefix: str = "node") -> list[Obj]:
    """DeviceClasses plus ``nodes`` identical nodes named ``<prefix>-0000``..."""
    if nodes < 0 or gpus < 0 or nics < 0:
        raise InputError("generate: node, GPU and NIC counts must not be negative")
    prof = list(profiles) if profiles is not None else None
    out = device_classes()
    width = max(4, len(str(max(nodes - 1, 0))))
    for i in range(nodes):
        out.extend(node_objects(f"{prefix}-{i:0{width}d}", gpu, gpus, nics, prof))
    return out


def claim_template(name: str, device_class: str, selector: str | None = None, count: int = 1) -> Obj:
    exactly: Obj = {"deviceClassName": device_class, "allocationMode": "ExactCount", "count": count}
    if selector:
        exactly["selectors"] = [{"cel": {"expression": selector}}]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"spec": {"devices": {"requests": [{"name": "dev", "exactly": exactly}]}}}}


def workload(name: str, templates: Iterable[str], replicas: int, priority: int = 0) -> Obj:
    """A pod template with a replica count (annotation ``planner.dralloc.dev/replicas``)."""
    claims = [{"name": f"c{i}", "resourceClaimTemplateName": t} for i, t in enumerate(templates)]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "annotations": {REPLICAS: str(replicas)}},
            "spec": {"priority": priority, "resourceClaims": claims,
                     "containers": [{"name": "main", "resources": {"claims": [{"name": c["name"]} for c in claims]}}]}}


def mig_template(p: Profile) -> Obj:
    sel = f'device.attributes["{GPU_DRIVER}"].profile == "{p.name}"'
    return claim_template(f"mig-{p.label}", "mig.nvidia.com", sel)


def split(total: int, weights: Mapping[str, int]) -> dict[str, int]:
    """``total`` split in proportion to integer ``weights`` (largest remainder,
    ties by name): exact and deterministic."""
    wsum = sum(weights.values())
    if wsum <= 0 or any(w < 0 for w in weights.values()):
        raise InputError("generate: mix weights must be non-negative and not all zero")
    shares = {k: Fraction(total * w, wsum) for k, w in weights.items()}
    out = {k: int(v) for k, v in shares.items()}
    rest = total - sum(out.values())
    for k in sorted(shares, key=lambda k: (-(shares[k] - out[k]), k))[:rest]:
        out[k] += 1
    return out


def mig_demand(gpu: str, mix: Mapping[str, int], claims: int | None = None, load: Fraction | None = None,
               nodes: int = 0, gpus: int = 8, priorities: int = 1) -> list[Obj]:
    """Templates and workloads asking for MIG devices in the proportions of
    ``mix`` (profile -> weight): either ``claims`` claims in all, or enough
    that the compute slices asked for are ``load`` times the cluster's."""
    model = gpu_model(gpu)
    profs = {name: model.profile(name) for name in sorted(mix)}
    if claims is None:
        if load is None:
            raise InputError("generate: give a claim count or a load factor")
        wsum = sum(mix.values())
        mean = Fraction(sum(profs[k].compute_slices * w for k, w in mix.items()), wsum)
        claims = int(Fraction(load) * nodes * gpus * model.compute_slices / mean)
    out: list[Obj] = [mig_template(p) for p in profs.values()]
    for name, n in split(claims, mix).items():
        per = split(n, {str(i): 1 for i in range(priorities)})
        for level in range(priorities):
            if per[str(level)]:
                out.append(workload(f"w-{profs[name].label}-p{level}", [f"mig-{profs[name].label}"],
                                    per[str(level)], priority=level))
    return out


def objects(docs: Iterable[Obj]) -> ObjectSet:
    """Parse generated documents into an :class:`ObjectSet`."""
    out = ObjectSet()
    for i, d in enumerate(docs):
        obj = parse_object(d, f"generated#{i}")
        if obj is not None:
            out.add(obj)
    return out
