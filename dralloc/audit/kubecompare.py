"""Is the cluster's answer the Kubernetes answer? Replay the allocations one
pod at a time, in the order they were made, and compare.

Each difference is classified: a documented Kubernetes defect (the cluster's
answer breaks a rule the way a listed defect does), a different Kubernetes
version or feature set (another allocator variant or gate set reproduces it),
or unexplained."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from dralloc.audit.state import ClusterState, pod_key
from dralloc.checker.finding import WARNING, Finding
from dralloc.cluster import Cluster
from dralloc.features import Features, Variant
from dralloc.io.loader import ObjectSet
from dralloc.models import AllocationResult, Node, ResourceClaim
from dralloc.solver import Outcome, allocate

# rule broken by the cluster's answer -> the documented defect that produces it (spec §8)
DEFECT_BY_RULE = {
    "match-attribute": "stale matchAttribute after backtracking (CT-8/T-21, scalar T-22)",
    "distinct-attribute": "duplicate distinctAttribute values (CT-12/T-19)",
    "counters": "leaked or mis-keyed counter reservations (T-11..T-14)",
    "double-allocation": "double allocation",
    "capacity": "counters/capacity of shared devices (T-12, T-41)",
    "all-devices": "All with a prioritized list or an invalid/incomplete pool (T-6..T-9)",
    "consumed-capacity": "a capacity request Go holds as inf.Dec grows in place (quantity-dec-aliasing)",
}


@dataclass
class Unit:
    """What the scheduler allocated in one go: the new claims of one pod."""

    label: str
    node: Node
    claims: list[ResourceClaim]
    time: str


def _time(c: ResourceClaim) -> str:
    a = c.status.allocation if c.status else None
    return (a.allocation_timestamp if a else None) or ""


def units_in_order(state: ClusterState, order: Sequence[str] | None) -> list[Unit]:
    """Pods (and pod-less claims) with known allocation order: the explicit
    ``order`` of pod keys, else the claims' allocationTimestamp."""
    allocated = {c.key for c in state.allocated()}
    pods = {pod_key(p): p for p in state.objects.pods}
    out: list[Unit] = []
    taken: set[str] = set()
    names = list(order) if order else sorted(pods, key=lambda k: min(
        (_time(state.claims[c]) for c in state.pod_claims.get(k, []) if c in allocated), default=""))
    for k in names:
        pod = pods.get(k)
        if pod is None or not pod.spec.node_name:
            continue
        claims = [state.claims[c] for c in state.pod_claims.get(k, []) if c in allocated and c not in taken]
        if not claims or (not order and not all(_time(c) for c in claims)):
            continue
        taken.update(c.key for c in claims)
        out.append(Unit(f"Pod {k}", state.node(pod.spec.node_name), claims, min(_time(c) for c in claims)))
    if not order:
        for c in state.allocated():
            if c.key not in taken and not state.users.get(c.key) and _time(c):
                out.append(Unit(f"ResourceClaim {c.key}", state.node_for(c), [c], _time(c)))
        out.sort(key=lambda u: u.time)
    return out


def _devices(a: AllocationResult | None) -> list[tuple[str, str, str, str]]:
    rs = a.devices.results if a is not None and a.devices is not None else None
    return sorted((r.request, r.driver, r.pool, r.device) for r in rs or [])


Answer = list[list[tuple[str, str, str, str]]] | str


def _bare(u: Unit) -> list[ResourceClaim]:
    return [c.model_copy(update={"status": None}) for c in u.claims]


def _run(cluster: Cluster, u: Unit) -> Answer:
    """The Kubernetes search for the unit's claims on the cluster as it was then."""
    return _answer(cluster.allocate(u.node, _bare(u), mode="replay", build=False))


def _run_with(objs: ObjectSet, u: Unit, held: list[ResourceClaim], features: Features, variant: Variant) -> Answer:
    """The same with other gates or another allocator variant."""
    return _answer(allocate(objs, u.node, _bare(u), allocated=held, features=features, mode="replay",
                            variant=variant, admission=False))


def _answer(out: Outcome) -> Answer:
    if not out.ok or out.allocations is None:
        return out.error or "unsatisfiable"
    return [_devices(a) for a in out.allocations]


def _alternatives(features: Features) -> list[tuple[Features, Variant]]:
    alts = [(features, v) for v in Variant if v is not features.variant() and features.supported_by(v)]
    rel = features.kubernetes_version   # the alternatives are of the same release
    every = Features.all(rel)
    alts += [(Features(kubernetes_version=rel), Variant.STABLE), (every, Variant.EXPERIMENTAL),
             (replace(every, list_type_attributes=False, derived_attributes=False, compatibility_groups=False),
              Variant.INCUBATING)]
    return [(f, v) for f, v in alts if (f, v) != (features, features.variant())]


def compare_with_kubernetes(state: ClusterState, features: Features, variant: Variant | None,
                            order: Sequence[str] | None, rule_findings: Sequence[Finding]) -> tuple[list[Finding], int]:
    """Replay every unit in order against the cluster's own earlier answers."""
    units = units_in_order(state, order)
    cluster = Cluster(state.objects, features, variant, admission=False)
    for u in units:   # what is held before the first unit: the claims not replayed
        for c in u.claims:
            cluster.release(c.key)
    broken: dict[str, set[str]] = {}
    for f in rule_findings:
        broken.setdefault(f.claim, set()).add(f.rule)
    out: list[Finding] = []
    for u in units:
        actual = [_devices(c.status.allocation if c.status else None) for c in u.claims]
        got = _run(cluster, u)
        if got != actual:
            out.append(_difference(state, u, cluster.allocated(), actual, got, features, broken))
        for c in u.claims:
            cluster.record(c)
    return out, len(units)


def _difference(state: ClusterState, u: Unit, held: list[ResourceClaim], actual: list[list[tuple[str, str, str, str]]],
                got: Answer, features: Features, broken: dict[str, set[str]]) -> Finding:
    keys = [c.key for c in u.claims]
    rules = sorted({r for k in keys for r in broken.get(k, set()) if r in DEFECT_BY_RULE})
    if rules:
        detail = ("Kubernetes defect: " + "; ".join(DEFECT_BY_RULE[r] for r in rules)
                  + " (the answer breaks that rule the way the defect does; the replayed allocator "
                    "(today's, its defects included) answers otherwise, so an allocator version with "
                    "that defect or a different allocation order produced it)")
    else:
        detail = "unexplained"
        for f, v in _alternatives(features):
            if _run_with(state.objects, u, held, f, v) == actual:
                gates = ",".join(f.gates()) or "no gates"
                detail = f"different Kubernetes version or feature set (reproduced by {v.value} with {gates})"
                break
    shown = got if isinstance(got, str) else "; ".join(
        f"{k}: " + (", ".join(f"{r[0]}={r[1]}/{r[2]}/{r[3]}" for r in devs) or "no devices")
        for k, devs in zip(keys, got, strict=False))
    have = "; ".join(f"{k}: " + ", ".join(f"{r[0]}={r[1]}/{r[2]}/{r[3]}" for r in devs)
                     for k, devs in zip(keys, actual, strict=False))
    return Finding(WARNING, "kubernetes-answer", keys[0],
                   f"{u.label} on node {u.node.name}: the cluster holds [{have}], the Kubernetes allocator "
                   f"(replayed in allocation order) gives [{shown}]",
                   (u.label, *(f"ResourceClaim {k}" for k in keys)), ("status.allocation",), detail)
