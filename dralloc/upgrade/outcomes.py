"""The outcome of every claim, pod and gang of a cluster under one feature
set (which carries its Kubernetes release): what the scheduler would do with
the pending pods and unallocated claims, pod by pod in its queue order on the
nodes in its order (:func:`dralloc.planner.simulate.podsim.simulate_pods`,
Kubernetes' own search: the replay), and what the rule check says of each
existing allocation (``verify``'s part 1).

Outcomes are compared by ``state`` (a plain, hashable value); ``text`` says
the same in words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dralloc.audit import verify_state
from dralloc.checker.finding import ERROR
from dralloc.extended import ExtendedReader, pod_key
from dralloc.features import Features, Variant
from dralloc.io import ObjectSet
from dralloc.models import ResourceClaim
from dralloc.planner.simulate.podsim import simulate_pods
from dralloc.planner.view.pods import PodsDemand

POD, CLAIM, GANG = "pod", "claim", "gang"


@dataclass(frozen=True)
class Outcome:
    """One item's outcome: ``state`` to compare, ``text`` to read, ``data`` for YAML."""

    state: Any
    text: str
    data: dict[str, Any]


Key = tuple[str, str]   # (kind, name)


def _devices(claim: ResourceClaim) -> tuple[str, ...]:
    alloc = claim.status.allocation if claim.status else None
    results = alloc.devices.results or [] if alloc and alloc.devices else []
    return tuple(f"{r.pool}/{r.device}" + (" (shared)" if r.share_id else "") for r in results)


def _placed(node: str, claims: list[ResourceClaim]) -> Outcome:
    parts = tuple((c.key, _devices(c)) for c in claims)
    words = "; ".join(f"{k}: {', '.join(d) or 'no devices'}" for k, d in parts)
    text = f"node {node}" + (f" ({words})" if words else "")
    data = {"node": node, "claims": [{"claim": k, "devices": list(d)} for k, d in parts]}
    return Outcome(("placed", node, parts), text, data)


NOT_PLACED = Outcome(("not placed",), "not placed", {"placed": False})
NOT_DRA = Outcome(("not DRA's",), "not DRA's (device plugins only)", {"placed": False, "dra": False})
NOT_ALLOCATED = Outcome(("not allocated",), "not allocated", {"allocated": False})


def pending_outcomes(objs: ObjectSet, demand: PodsDemand, features: Features,
                     variant: Variant | None = None) -> dict[Key, Outcome]:
    """Every pending pod (each replica), unallocated claim no pod uses and
    gang, as the scheduler of ``features``' release would place them (with
    its allocator variant, or ``variant``)."""
    sim = simulate_pods(objs, demand, features, mode="replay", variant=variant)
    placed = {(p.pod, p.replica): p for p in sim.placed}
    out: dict[Key, Outcome] = {}
    for pod in demand.pods:
        for r in range(pod.replicas):
            name = pod.name if pod.replicas == 1 else f"{pod.name}#{r}"
            got = placed.get((pod.name, r))
            kind = CLAIM if pod.lone else POD
            if got is None:
                out[(kind, name)] = NOT_ALLOCATED if pod.lone else NOT_PLACED
            else:
                out[(kind, name)] = _placed(got.node, got.claims)
    for gang, ok in sim.gangs.items():
        out[(GANG, gang)] = Outcome(("gang", ok), "placed" if ok else "not placed", {"placed": ok})
    reader = ExtendedReader.of(objs, features)
    for p in objs.pods:   # pending pods whose extended resources DRA does not serve here
        key = (POD, pod_key(p))
        if key not in out and not p.spec.node_name and (d := reader.demand(p)) is not None and not d.dra:
            out[key] = NOT_DRA
    return out


def allocated_outcomes(objs: ObjectSet, features: Features, variant: Variant | None = None) -> dict[Key, Outcome]:
    """Every existing allocation as the rule check of ``features`` sees it."""
    report = verify_state(objs, features, variant, compare=False, pending=False)
    held = {c.key for c in objs.claims if c.status and c.status.allocation}
    broken: dict[str, list[str]] = {}
    for f in report.findings:
        if f.level == ERROR and f.claim in held:
            broken.setdefault(f.claim, []).append(f"[{f.rule}] {f.message}")
    out: dict[Key, Outcome] = {}
    for key in sorted(held):
        msgs = tuple(sorted(broken.get(key, [])))
        if msgs:
            out[(CLAIM, key)] = Outcome(("breaks", msgs), "allocated; breaks a rule: " + "; ".join(msgs),
                                        {"allocated": True, "valid": False, "findings": list(msgs)})
        else:
            out[(CLAIM, key)] = Outcome(("valid",), "allocated; valid", {"allocated": True, "valid": True})
    return out


def outcomes(objs: ObjectSet, demand: PodsDemand, features: Features,
             variant: Variant | None = None) -> dict[Key, Outcome]:
    """Everything the cluster holds, under ``features`` (and ``variant``)."""
    return {**allocated_outcomes(objs, features, variant), **pending_outcomes(objs, demand, features, variant)}
