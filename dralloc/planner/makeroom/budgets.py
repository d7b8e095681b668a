"""PodDisruptionBudgets as the eviction API applies them (policy/v1).

The eviction API (``pods/eviction``) refuses to evict a pod matched by more
than one budget; a pod that is not running (pending, finished) or already
being deleted is deleted without asking. Otherwise the pod's budget must
allow a disruption, and each eviction uses one up. A pod that is not ready
uses none when the budget's ``unhealthyPodEvictionPolicy`` is
``AlwaysAllow``, or (``IfHealthyBudget``, the default) when the budget is
met (currentHealthy >= desiredHealthy > 0).

What a budget allows comes from its status when the disruption controller
has seen its latest spec (``status.observedGeneration`` >= generation: the
numbers the eviction API reads), else it is computed as that controller
does: ``minAvailable`` as a number: desiredHealthy = minAvailable over all
matching pods; ``maxUnavailable`` or a percentage: expected pods = the sum
of the scales of the matching pods' controllers (pods without a controller
count for nothing; dralloc does not read controllers, so a controller's
scale is the number of its pods in the input), desiredHealthy = expected -
maxUnavailable (rounded up) or minAvailable% of expected (rounded up);
disruptionsAllowed = currentHealthy - desiredHealthy, at least 0, and 0
when no pods are expected. currentHealthy counts the matching pods that are
ready and not being deleted."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from dralloc.io import ObjectSet
from dralloc.models import LabelSelector, Pod, PodDisruptionBudget
from dralloc.planner.makeroom.running import Running, is_ready, is_running


def selector_matches(sel: LabelSelector | None, labels: dict[str, str]) -> bool:
    """metav1.LabelSelector semantics: a missing selector matches nothing,
    an empty one everything."""
    if sel is None:
        return False
    for k, v in (sel.match_labels or {}).items():
        if labels.get(k) != v:
            return False
    for r in sel.match_expressions or []:
        has = r.key in labels
        if r.operator == "In" and not (has and labels[r.key] in (r.values or [])):
            return False
        if r.operator == "NotIn" and has and labels[r.key] in (r.values or []):
            return False
        if r.operator == "Exists" and not has:
            return False
        if r.operator == "DoesNotExist" and has:
            return False
    return True


def scaled(value: int | str, total: int) -> int:
    """intstr.GetScaledValueFromIntOrPercent, rounding up."""
    if isinstance(value, int):
        return value
    return math.ceil(int(value.rstrip("%")) * total / 100)


@dataclass
class Budget:
    key: str                                    # "ns/name"
    pods: list[str]                             # matching running pods
    allowed: int                                # disruptions it allows
    current: int                                # currentHealthy
    desired: int                                # desiredHealthy
    expected: int
    source: str                                 # "status" or "computed"
    free: set[str] = field(default_factory=set)  # pods whose eviction uses none of it (not ready, policy allows)

    def describe(self) -> str:
        return (f"PodDisruptionBudget {self.key} allows {self.allowed} disruption{'s' * (self.allowed != 1)} "
                f"({self.current} healthy, {self.desired} needed; {self.source})")


@dataclass
class Budgets:
    budgets: list[Budget] = field(default_factory=list)
    of_pod: dict[str, list[str]] = field(default_factory=dict)      # pod -> budgets that count it
    refused: dict[str, str] = field(default_factory=dict)           # pod -> why the eviction API refuses it


def _key(pod: Pod) -> str:
    return f"{pod.metadata.namespace or 'default'}/{pod.name}"


def _expected(pdb: PodDisruptionBudget, matched: list[Pod], scales: dict[str, int]) -> tuple[int, int]:
    """(expected pods, desiredHealthy) as the disruption controller computes them."""
    spec = pdb.spec
    if spec.max_unavailable is not None:
        expected = sum(scales[c] for c in {p.metadata.controller_uid() for p in matched} if c is not None)
        return expected, max(0, expected - scaled(spec.max_unavailable, expected))
    if isinstance(spec.min_available, int):
        return len(matched), spec.min_available
    if spec.min_available is not None:
        expected = sum(scales[c] for c in {p.metadata.controller_uid() for p in matched} if c is not None)
        return expected, scaled(spec.min_available, expected)
    return 0, 0


def _budget(pdb: PodDisruptionBudget, objs: ObjectSet, scales: dict[str, int]) -> tuple[Budget, list[Pod]]:
    ns = pdb.metadata.namespace or "default"
    matched = [p for p in objs.pods if (p.metadata.namespace or "default") == ns
               and selector_matches(pdb.spec.selector, p.metadata.labels or {})]
    key = f"{ns}/{pdb.name}"
    st = pdb.status
    if st is not None and st.observed_generation is not None and st.observed_generation >= (pdb.metadata.generation or 0) \
            and st.disruptions_allowed is not None:
        b = Budget(key, [], st.disruptions_allowed, st.current_healthy or 0, st.desired_healthy or 0,
                   st.expected_pods or 0, "status")
    else:
        expected, desired = _expected(pdb, matched, scales)
        current = sum(1 for p in matched if is_running(p) and is_ready(p))
        allowed = max(0, current - desired) if expected > 0 else 0
        b = Budget(key, [], allowed, current, desired, expected, "computed")
    always = pdb.spec.unhealthy_pod_eviction_policy == "AlwaysAllow"
    met = b.current >= b.desired > 0
    for p in matched:
        if is_running(p) and not is_ready(p) and (always or met):
            b.free.add(_key(p))
    return b, matched


def read_budgets(objs: ObjectSet, running: Running) -> Budgets:
    """Every budget with what it allows, and per running pod the budgets its
    eviction counts against (or why the eviction API refuses it)."""
    scales: dict[str, int] = {}
    for p in objs.pods:
        c = p.metadata.controller_uid()
        if c is not None:
            scales[c] = scales.get(c, 0) + 1
    out = Budgets()
    matches: dict[str, list[str]] = {}
    for pdb in sorted(objs.budgets, key=lambda b: (b.metadata.namespace or "default", b.name)):
        b, matched = _budget(pdb, objs, scales)
        for p in matched:
            if _key(p) in running.pods:
                b.pods.append(_key(p))
                matches.setdefault(_key(p), []).append(b.key)
        out.budgets.append(b)
    for pod, keys in matches.items():
        if len(keys) > 1:
            out.refused[pod] = (f"matched by {len(keys)} PodDisruptionBudgets ({', '.join(keys)}): the eviction API "
                                "refuses to evict it")
            continue
        b = next(x for x in out.budgets if x.key == keys[0])
        status = running.pods[pod].pod.status
        phase = status.phase if status is not None else None
        if pod not in b.free and phase != "Pending":
            out.of_pod[pod] = keys
    return out
