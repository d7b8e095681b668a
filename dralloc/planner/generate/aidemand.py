"""Demand for an AI cluster (``dralloc generate demand --ai``): training jobs
in gangs, each pod all of a node's GPUs with its NICs aligned on their PCIe
roots; 1-GPU inference pods; MIG pods -- at a load factor of the cluster's
capacity, shaped as the drivers' own examples and satisfiable on the
generator's nodes (:mod:`.nodes`).

* **Capacity**: the whole-GPU nodes' GPUs (``gpu`` kinds) and the MIG nodes'
  compute slices (``mig`` kinds, one GPU model).
* **The mix**: ``train`` and ``infer`` share the GPUs asked for (``load`` x
  the whole-GPU capacity) in proportion to their weights; the MIG profiles
  share the MIG pods (``load`` x the MIG compute slices, over the mix's mean
  slices per pod), as plain MIG demand does. Splits are exact (largest
  remainder).
* **Training**: pods of ``train_gpus`` GPUs (default: a node's) with as many
  NICs as the nodes have per GPU, grouped per PCIe root
  (:func:`.demand.gpu_template`); pods go into gangs whose sizes are drawn
  from ``sizes`` with the seed (the last gang takes what is left), each with
  its ``minCount`` (``min_count``: every pod, a number, or a fraction of
  the gang, rounded up), as a PodGroup, a Workload with a PodGroup, or the
  planner's annotation, in the API versions the release serves. Gangs get priority
  ``gang_priority`` (default: above every other pod).
* **Inference**: 1-GPU pods without NICs. **MIG**: one pod per claim of a
  profile (``mig.nvidia.com``, selected by ``profile``).

Plain pods are spread over ``priorities`` levels (0 upwards), each kind as
one Pod with a replica count (``planner.dralloc.dev/replicas``)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import ceil
from typing import Any

from dralloc.errors import InputError
from dralloc.planner.generate.demand import gpu_template, mig_template, split, workload
from dralloc.planner.generate.nodes import NodeType
from dralloc.planner.generate.profiles import gpu_model

TRAIN, INFER = "train", "infer"
GANG_APIS = ("podgroup", "workload", "annotation")
GANG = "planner.dralloc.dev/gang"
GANG_MIN = "planner.dralloc.dev/gang-min-count"
DEFAULT_MIX = {TRAIN: 75, INFER: 25, "1g.5gb": 5, "2g.10gb": 3, "3g.20gb": 2}
Obj = dict[str, Any]


@dataclass(frozen=True)
class Gangs:
    """How training pods are grouped: sizes drawn from ``sizes`` (inclusive
    range), ``min_count`` "all", an integer or a fraction of the gang
    (rounded up), written through ``api``."""

    sizes: tuple[int, int] = (2, 8)
    min_count: str = "all"
    api: str = "podgroup"
    priority: int | None = None       # None: above every plain pod
    release: str | None = None        # the Kubernetes release the objects are for (None: the default)

    def minimum(self, size: int) -> int:
        if self.min_count == "all":
            return size
        try:
            value = Fraction(self.min_count)
        except (ValueError, ZeroDivisionError):
            value = Fraction(-1)
        if value <= 0:
            raise InputError(f"--min-count {self.min_count}: give all, a positive number of pods or a fraction "
                             "of the gang (e.g. 0.5)")
        return min(size, ceil(value * size) if value < 1 else int(value))


@dataclass(frozen=True)
class Capacity:
    gpus: int                  # whole GPUs on whole-GPU nodes
    gpus_per_node: int
    nics_per_node: int
    mig_gpus: int              # GPUs under DynamicMIG
    mig_model: str | None


def capacity(types: Sequence[tuple[NodeType, int]]) -> Capacity:
    """What the cluster of ``types`` offers the AI mix (TPU blocks nothing)."""
    whole = [(t, n) for t, n in types if t.kind == "gpu" and n]
    mig = [(t, n) for t, n in types if t.kind == "mig" and n]
    if len({(t.gpus, t.nics) for t, _ in whole}) > 1:
        raise InputError("generate demand --ai: the whole-GPU node types differ in GPUs or NICs per node; "
                         "give one such type")
    models = {t.gpu for t, _ in mig}
    if len(models) > 1:
        raise InputError(f"generate demand --ai: MIG nodes of several GPU models ({', '.join(sorted(models))}); "
                         "give one")
    return Capacity(sum(t.gpus * n for t, n in whole), whole[0][0].gpus if whole else 0,
                    whole[0][0].nics if whole else 0, sum(t.gpus * n for t, n in mig),
                    next(iter(models)) if models else None)


def _check(mix: Mapping[str, int], cap: Capacity, train_gpus: int) -> None:
    migs = [k for k in mix if k not in (TRAIN, INFER) and mix[k]]
    if (mix.get(TRAIN) or mix.get(INFER)) and not cap.gpus:
        raise InputError("generate demand --ai: train and infer pods need whole-GPU nodes (kind gpu in --types)")
    if migs and not cap.mig_gpus:
        raise InputError(f"generate demand --ai: MIG pods ({', '.join(migs)}) need MIG nodes (kind mig in --types)")
    if mix.get(TRAIN):
        if not 0 < train_gpus <= cap.gpus_per_node:
            raise InputError(f"--train-gpus {train_gpus}: a training pod needs 1 to {cap.gpus_per_node} GPUs "
                             "(the GPUs of one node)")
        if (train_gpus * cap.nics_per_node) % cap.gpus_per_node:
            raise InputError(f"--train-gpus {train_gpus}: the nodes have {cap.nics_per_node} NICs for "
                             f"{cap.gpus_per_node} GPUs; a training pod's GPUs must come with a whole number "
                             "of NICs")


def _served(version: str | None, kind: str, choices: Sequence[str]) -> str | None:
    from dralloc.release import release

    rel = release(version)
    return next((f"scheduling.k8s.io/{v}" for v in choices if rel.serves(f"scheduling.k8s.io/{v}", kind)), None)


def _gang_objects(name: str, size: int, need: int, priority: int, gangs: Gangs) -> list[Obj]:
    """The gang's objects in the versions the release serves: a PodGroup
    (v1beta1 in 1.37, v1alpha2 in 1.36); with ``workload``, a Workload too
    (1.35: v1alpha1, its pod group linked by the pod's ``workloadRef``;
    later: a PodGroupTemplate the PodGroup is made from)."""
    pod = workload(name, [TRAIN], size, priority)
    policy = {"gang": {"minCount": need}}
    meta = {"name": name, "namespace": "default"}
    if gangs.api == "annotation":
        pod["metadata"]["annotations"].update({GANG: name, GANG_MIN: str(need)})
        return [pod]
    group_api = _served(gangs.release, "PodGroup", ("v1beta1", "v1alpha2"))
    if gangs.api == "workload" and group_api is None:     # Kubernetes 1.35: pod groups inside the Workload
        pod["spec"]["workloadRef"] = {"name": name, "podGroup": "workers"}
        return [{"apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload", "metadata": meta,
                 "spec": {"podGroups": [{"name": "workers", "policy": policy}]}}, pod]
    if group_api is None:
        raise InputError(f"--gang-api podgroup: Kubernetes {gangs.release} has no PodGroup; give --gang-api workload "
                         "or annotation")
    out: list[Obj] = []
    spec: Obj = {"schedulingPolicy": policy}
    if gangs.api == "workload":
        out.append({"apiVersion": group_api, "kind": "Workload", "metadata": meta,
                    "spec": {"podGroupTemplates": [{"name": "workers", "schedulingPolicy": policy}]}})
        if group_api.endswith("v1beta1"):
            spec = {"workloadRef": {"workloadName": name, "templateName": "workers"}, **spec}
    out.append({"apiVersion": group_api, "kind": "PodGroup", "metadata": dict(meta), "spec": spec})
    pod["spec"]["schedulingGroup"] = {"podGroupName": name}
    return [*out, pod]


def _training(pods: int, priority: int, gangs: Gangs, seed: int) -> list[Obj]:
    lo, hi = gangs.sizes
    if not 1 <= lo <= hi:
        raise InputError(f"--gang-sizes {lo}-{hi}: give MIN-MAX with 1 <= MIN <= MAX")
    rng = random.Random(seed)
    out: list[Obj] = []
    done, job = 0, 0
    width = max(4, len(str(max(pods - 1, 0))))
    while done < pods:
        size = min(rng.randint(lo, hi), pods - done)
        out += _gang_objects(f"train-{job:0{width}d}", size, gangs.minimum(size), priority, gangs)
        done, job = done + size, job + 1
    return out


def _spread(name: str, template: str, count: int, priorities: int) -> list[Obj]:
    per = split(count, {str(i): 1 for i in range(priorities)})
    return [workload(f"{name}-p{level}" if priorities > 1 else name, [template], per[str(level)], level)
            for level in range(priorities) if per[str(level)]]


def ai_demand(types: Sequence[tuple[NodeType, int]], load: Fraction, mix: Mapping[str, int] | None = None,
              gangs: Gangs = Gangs(), train_gpus: int | None = None, priorities: int = 1,
              seed: int = 0) -> list[Obj]:
    """Templates, gang objects and pods for ``mix`` (``train``, ``infer`` and
    MIG profile -> weight) at ``load`` x the capacity of ``types``."""
    mix = dict(DEFAULT_MIX if mix is None else mix)
    cap = capacity(types)
    if gangs.api not in GANG_APIS:
        raise InputError(f"--gang-api {gangs.api}: choose one of {', '.join(GANG_APIS)}")
    per_pod = train_gpus if train_gpus is not None else cap.gpus_per_node
    _check(mix, cap, per_pod)
    docs: list[Obj] = []
    plain: list[Obj] = []
    whole = {k: w for k, w in mix.items() if k in (TRAIN, INFER)}
    if any(whole.values()):
        asked = split(int(load * cap.gpus), whole)
        if asked.get(INFER):
            docs.append(gpu_template(INFER, gpus=1))
            plain += _spread(INFER, INFER, asked[INFER], priorities)
        if asked.get(TRAIN, 0) >= per_pod:
            nics = per_pod * cap.nics_per_node // cap.gpus_per_node
            docs.append(gpu_template(TRAIN, gpus=per_pod, nics=nics))
            level = gangs.priority if gangs.priority is not None else priorities
            plain += _training(asked[TRAIN] // per_pod, level, gangs, seed)
    profiles = {k: w for k, w in mix.items() if k not in whole}
    if any(profiles.values()):
        model = gpu_model(cap.mig_model or "")
        profs = {name: model.profile(name) for name in sorted(profiles)}
        mean = Fraction(sum(profs[k].compute_slices * w for k, w in profiles.items()), sum(profiles.values()))
        claims = int(load * cap.mig_gpus * model.compute_slices / mean)
        for name, n in split(claims, profiles).items():
            if n:
                docs.append(mig_template(profs[name]))
                plain += _spread(f"mig-{profs[name].label}", f"mig-{profs[name].label}", n, priorities)
    return docs + plain
