"""The questions the pending-pod analysis asks of the cluster: allocation
calls on the cluster object, bounded by a budget (:class:`Budget`), with the
time limits of the joint placement and of each minimal core. Shared by the
analysis of single pods (:mod:`dralloc.audit.pending`) and of gangs
(:mod:`dralloc.audit.gangs`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from dralloc.audit.state import ClusterState
from dralloc.checker.rules import with_allocation
from dralloc.cluster import Cluster
from dralloc.cluster.pods import refused_by
from dralloc.errors import InputError
from dralloc.features import Features, Variant
from dralloc.models import Node, Pod, ResourceClaim
from dralloc.solver import Outcome
from dralloc.solver.limits import CORE, VERIFY

JOINT_TIME_LIMIT = VERIFY    # seconds for the joint placement model (dralloc.solver.limits)
CORE_TIME_LIMIT = CORE       # seconds per feasibility test while shrinking a core
MAX_JOINT_PAIRS = 400        # pod x node pairs in the joint model; beyond, only nodes that fit now
EXPLAINED_NODES = 3          # nodes explained per pod that fits nowhere


def _admits(held: list[ResourceClaim], node: Node) -> bool:
    try:
        return refused_by(held, node) is None
    except InputError:
        return False   # a malformed selector: admission reports it (validation/objects.py)


@dataclass
class Budget:
    calls: int = 400              # calls left (below 0 once a call was refused)
    limit: int = field(init=False)

    def __post_init__(self) -> None:
        self.limit = self.calls

    @property
    def spent(self) -> bool:
        return self.calls < 0

    def take(self) -> bool:
        self.calls -= 1
        return self.calls >= 0


@dataclass
class PendingAnalysis:
    """Allocation questions on the cluster object (``cluster``): what is
    allocated there is what the questions assume held; moves are tried in
    ``cluster.trial()`` blocks and undone."""

    state: ClusterState
    features: Features
    variant: Variant | None
    budget: Budget = field(default_factory=Budget)
    stopped: list[str] = field(default_factory=list)  # nodes where a replay hit its time limit
    cluster: Cluster = field(init=False)

    def __post_init__(self) -> None:
        self.cluster = Cluster(self.state.objects, self.features, self.variant, admission=False)

    def nodes(self, pod: Pod) -> list[Node]:
        """Where the pod may go: its node, else every node its claims
        allocated already admit (their allocations' nodeSelectors)."""
        if pod.spec.node_name:
            return [self.state.node(pod.spec.node_name)]
        names = [n.name for n in self.state.objects.nodes]
        if not names:
            names = sorted({s.spec.node_name for s in self.state.objects.slices if s.spec.node_name})
        nodes = [self.state.node(n) for n in names]
        held = [c for c in self.state.claims_of(pod) if c.status is not None and c.status.allocation is not None]
        return [n for n in nodes if _admits(held, n)] if held else nodes

    def try_on(self, node: Node, claims: list[ResourceClaim]) -> Outcome | None:
        if not self.budget.take():
            return None
        out = self.cluster.allocate(node, claims, mode="replay")
        if any(n.startswith("replay stopped") for n in out.notes):
            self.stopped.append(node.name)
        return out

    def fits(self, claims: list[ResourceClaim], nodes: list[Node]) -> tuple[Node, list[ResourceClaim]] | None:
        """The first of ``nodes`` where the claims fit, and the claims as
        allocated there (recorded in the cluster)."""
        for n in nodes:
            out = self.try_on(n, claims)
            if out is not None and out.ok and out.allocations is not None:
                done = [with_allocation(c, a) for c, a in zip(claims, out.allocations, strict=True)]
                for c in done:
                    self.cluster.record(c)
                return n, done
        return None
