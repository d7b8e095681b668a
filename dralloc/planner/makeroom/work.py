"""The pending work make-room is asked to fit: one pod (``--for ns/pod``),
one gang (``--for-gang`` its key: ``ns/podgroup``, ``ns/workload/group``
or the annotation's ``ns/name``), or every pending pod of given files
(``--demand``). Other pending pods stay pending and hold nothing.

A running pod may be disrupted only if its priority is below the work's
(the highest among the work's pods), and -- as preemption would have it --
only to make room on its node for a pod of the work of higher priority than
its own (a running gang broken below its minimum: for a pod of higher
priority than all its members on one of their nodes)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace

from dralloc.errors import InputError
from dralloc.features import Features
from dralloc.io import ObjectSet
from dralloc.planner.makeroom.running import pod_priority, priorities
from dralloc.planner.view.pods import PodsDemand, pods_demand


@dataclass
class Work:
    demand: PodsDemand
    priority: int          # victims must be below it (the work's highest priority)
    what: str              # for messages: "Pod ns/x", "gang ns/g", "3 pods of demand.yaml"


def _resolved(objs: ObjectSet, demand: PodsDemand) -> PodsDemand:
    """Pod priorities resolved through PriorityClasses (``spec.priority`` wins)."""
    values, default = priorities(objs)
    by_name = {f"{p.metadata.namespace or 'default'}/{p.name}": p for p in objs.pods}
    pods = [replace(p, priority=pod_priority(by_name[p.name], values, default)) if p.name in by_name else p
            for p in demand.pods]
    return PodsDemand(pods, demand.shared, demand.gangs)


def select_work(objs: ObjectSet, pod: str | None = None, gang: str | None = None,
                names: Collection[str] | None = None, what: str = "", features: Features | None = None) -> Work:
    """The work: exactly one of ``pod``, ``gang`` and ``names`` (pod keys);
    ``features``: the release's gates (whether extended resources are DRA's)."""
    if sum(x is not None for x in (pod, gang, names)) != 1:
        raise InputError("say which pending work to make room for: --for ns/pod, --for-gang KEY or --demand FILE")
    every = _resolved(objs, pods_demand(objs, features))
    if pod is not None:
        key = pod if "/" in pod else f"default/{pod}"
        mine = [p for p in every.pods if p.name == key]
        if not mine:
            raise InputError(f"--for {pod}: no pending Pod {key} (a pod not bound to a node, with claims "
                             "or extended resources a DeviceClass serves)")
        if mine[0].gang is not None:
            raise InputError(f"--for {pod}: Pod {key} is in gang {mine[0].gang}, which starts whole or not at all: "
                             f"ask --for-gang {mine[0].gang}")
        label = f"Pod {key}"
    elif gang is not None:
        mine = [p for p in every.pods if p.gang == gang]
        if not mine:
            known = ", ".join(sorted(every.gangs)) or "none"
            raise InputError(f"--for-gang {gang}: no pending gang {gang} (pending gangs: {known})")
        label = f"gang {gang}"
    else:
        wanted = set(names or ())
        mine = [p for p in every.pods if p.name in wanted]
        if not mine:
            raise InputError(f"{what or 'the demand'}: no pending pods with claims in it")
        label = f"{len(mine)} pending pod{'s' * (len(mine) != 1)} of {what or 'the demand'}"
    gangs = {g: every.gangs[g] for g in sorted({p.gang for p in mine if p.gang is not None})}
    shared = {k: c for k, c in every.shared.items() if any(k in p.shared for p in mine)}
    demand = PodsDemand(mine, shared, gangs)
    return Work(demand, max(p.priority for p in mine), label)
