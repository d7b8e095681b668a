"""The demand weighed in the user's objective (``plan --objective``): for
``gpus`` and ``devices``, what one pod of each workload is given at the least
(:class:`ClaimValues`; the rules are in :mod:`dralloc.planner.objective`), asked of the allocator's
inventory once per node type (nodes whose fingerprint for the demand's claims
is the same) and claim spec."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from dralloc.errors import AllocationError
from dralloc.features import Features
from dralloc.inventory.candidates import request_candidates
from dralloc.inventory.fingerprint import node_fingerprint, read_attributes
from dralloc.inventory.pools import PoolDevice
from dralloc.inventory.problem import build_problem
from dralloc.io import ObjectSet
from dralloc.models import Node, ResourceClaim
from dralloc.planner.objective import COMPUTE, GPU_DRIVER_PREFIX, check
from dralloc.planner.view.cluster import _node_slices
from dralloc.planner.view.demand import Demand
from dralloc.planner.view.pods import PodsDemand


def gpu_share(pd: PoolDevice) -> Fraction:
    """How much of a GPU the device is (0 for a device of another driver)."""
    if not pd.pool.driver.startswith(GPU_DRIVER_PREFIX):
        return Fraction(0)
    use = pd.consumption()
    if not use:
        return Fraction(1)
    compute = [(c[COMPUTE], pd.pool.counter_sets.get(s, {}).get(COMPUTE)) for s, c in use.items() if COMPUTE in c]
    shares = [Fraction(u) / cap for u, cap in compute if cap] or [
        Fraction(u) / cap for s, c in use.items() for n, u in c.items() if (cap := pd.pool.counter_sets.get(s, {}).get(n))]
    return min(Fraction(1), max(shares, default=Fraction(1)))


class ClaimValues:
    """What one claim is given at the least, per distinct claim spec, over
    the node types (nodes the allocator cannot tell apart)."""

    def __init__(self, objs: ObjectSet, objective: str, features: Features, reps: Sequence[Node],
                 slices_of: Callable[[Node], Any]) -> None:
        self.objs, self.objective, self.features = objs, objective, features
        self.reps, self.slices_of = reps, slices_of
        self._known: dict[str, Fraction] = {}

    def __call__(self, claim: ResourceClaim) -> Fraction:
        key = claim.spec.model_dump_json(by_alias=True, exclude_none=True)
        if key not in self._known:
            on_nodes = [v for n in self.reps if (v := self._on(claim, n)) is not None]
            self._known[key] = min(on_nodes) if on_nodes else Fraction(0)
        return self._known[key]

    def _on(self, claim: ResourceClaim, node: Node) -> Fraction | None:
        bare = claim.model_copy(update={"status": None})
        try:
            problem = build_problem(self.slices_of(node), self.objs.classes, node, [bare], [], self.features)
        except AllocationError:
            return None
        total = Fraction(0)
        for slot in problem.plans[0].slots:
            options = []
            for spec in slot.options:
                devices, _ = request_candidates(problem, spec)
                if len(devices) >= max(1, spec.num_devices):
                    each = min(gpu_share(d) for d in devices) if self.objective == "gpus" else Fraction(1)
                    options.append(spec.num_devices * each)
            if not options:
                return None
            total += min(options)
        return total


def representatives(objs: ObjectSet, claims: Sequence[ResourceClaim]) -> list[Node]:
    """A node per fingerprint for ``claims`` (when the caller has none at hand)."""
    slices = _node_slices(objs)
    read = read_attributes(objs.classes, claims)
    reps: dict[object, Node] = {}
    for node in sorted(objs.nodes, key=lambda n: n.name.encode()):
        reps.setdefault(node_fingerprint(node, slices.get(node.name, slices[""]), set(), read), node)
    return list(reps.values())


def _values(objs: ObjectSet, objective: str, features: Features, claims: list[ResourceClaim],
            reps: Sequence[Node] | None) -> ClaimValues:
    slices = _node_slices(objs)
    nodes = list(reps) if reps is not None else representatives(objs, claims)
    return ClaimValues(objs, objective, features, nodes, lambda n: slices.get(n.name, slices[""]))


def weigh_pods(objs: ObjectSet, demand: PodsDemand, objective: str, features: Features,
               reps: Sequence[Node] | None = None) -> None:
    """Set ``demand``'s objective; for gpus/devices each pod's units: its
    template claims, plus its share of every claim it shares (split equally
    over the pods using it). ``reps``: a node per kind the allocator can tell
    apart (the caller's fingerprints; computed here when not given)."""
    check(objective)
    if objective not in ("gpus", "devices"):
        demand.weigh(objective)
        return
    value = _values(objs, objective, features, [c for p in demand.pods for _, c in p.templates]
                    + list(demand.shared.values()), reps)
    users: Counter[str] = Counter()
    for p in demand.pods:
        for k in p.shared:
            users[k] += p.replicas
    values: dict[str, Fraction] = {}
    for p in demand.pods:
        own = sum((value(c) for _, c in p.templates), Fraction(0))
        values[p.name] = own + sum((value(demand.shared[k]) / users[k] for k in p.shared), Fraction(0))
    demand.weigh(objective, values)


def weigh_workloads(objs: ObjectSet, demand: Demand, objective: str, features: Features,
                    reps: Sequence[Node] | None = None) -> None:
    """The same for one-device demand (the pattern model's workloads)."""
    check(objective)
    if objective not in ("gpus", "devices"):
        demand.weigh(objective)
        return
    value = _values(objs, objective, features, [t.claim for t in demand.types], reps)
    demand.weigh(objective, {w.name: value(demand.types[w.type].claim) for w in demand.workloads})
