"""Demand for generated clusters: claim templates and workloads (pod
templates with a replica count) asking for MIG devices in given proportions."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from math import gcd
from typing import Any

from dralloc.errors import InputError
from dralloc.planner.generate.dranet import RDMA_CLASS
from dralloc.planner.generate.nvidia import DRIVER as GPU_DRIVER
from dralloc.planner.generate.profiles import Profile, gpu_model

REPLICAS = "planner.dralloc.dev/replicas"
PCIE_ROOT = "resource.kubernetes.io/pcieRoot"
Obj = dict[str, Any]


def claim_template(name: str, device_class: str, selector: str | None = None, count: int = 1) -> Obj:
    exactly: Obj = {"deviceClassName": device_class, "allocationMode": "ExactCount", "count": count}
    if selector:
        exactly["selectors"] = [{"cel": {"expression": selector}}]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"spec": {"devices": {"requests": [{"name": "dev", "exactly": exactly}]}}}}


def gpu_template(name: str, gpus: int = 1, nics: int = 0, aligned: bool = True) -> Obj:
    """A template for ``gpus`` whole GPUs and ``nics`` RDMA NICs (EFA). With
    ``aligned``, the GPUs and NICs come in ``gcd(gpus, nics)`` groups, each
    its own requests (``gpu-i`` and ``nic-i``; ``gpus`` and ``nics`` for a
    single group) tied by ``matchAttribute: resource.kubernetes.io/pcieRoot``
    (as dranet's EKS example writes one GPU and one EFA): every group sits on
    one PCIe root. That is the layout of a node generated with the same
    GPU:NIC ratio (:func:`dralloc.planner.generate.topology.topology`: a root
    per group), so the pod fits such a node, e.g. 8 GPUs and 4 NICs as four
    groups of two GPUs and an EFA on the EKS p4d layout; one ``matchAttribute``
    over all GPUs and NICs would need them all on one root, which no real
    node has."""
    def exactly(cls: str, count: int) -> Obj:
        return {"deviceClassName": cls, "allocationMode": "ExactCount", "count": count}

    if gpus < 0 or nics < 0 or gpus + nics == 0:
        raise InputError(f"generate: template {name}: give a positive number of GPUs or NICs")
    groups = gcd(gpus, nics) if nics and aligned else 1
    requests: list[Obj] = []
    constraints: list[Obj] = []
    for i in range(groups):
        gname, nname = ("gpus", "nics") if groups == 1 else (f"gpu-{i}", f"nic-{i}")
        pair = []
        if gpus:
            requests.append({"name": gname, "exactly": exactly("gpu.nvidia.com", gpus // groups)})
            pair.append(gname)
        if nics:
            requests.append({"name": nname, "exactly": exactly(RDMA_CLASS, nics // groups)})
            pair.append(nname)
        if aligned and len(pair) == 2:
            constraints.append({"requests": pair, "matchAttribute": PCIE_ROOT})
    devices: Obj = {"requests": requests}
    if constraints:
        devices["constraints"] = constraints
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": name, "namespace": "default"}, "spec": {"spec": {"devices": devices}}}


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
