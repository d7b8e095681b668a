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
from dralloc.cluster.pods import answered, for_node, refused_by
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

    def as_given(self, node: Node, claims: list[ResourceClaim]) -> bool:
        """Whether the scheduler asks for ``claims`` on ``node`` as they are:
        no extended-resource claim among them that the node's device
        plugins change (what the joint model, built once per pod, assumes)."""
        got, built, share, _ = for_node(node, claims, self.cluster.extended())
        return share is None or (len(got) == len(claims) and not share.plugin and not share.missing
                                 and all(self._same(c, built.get(c.key)) for c in got))

    @staticmethod
    def _same(c: ResourceClaim, built: ResourceClaim | None) -> bool:
        return built is None or built.spec == c.spec

    def refusal(self, node: Node, claims: list[ResourceClaim]) -> str | None:
        """Why the pod's extended resources do not fit ``node`` (neither DRA
        nor a device plugin with enough free serves one), or None."""
        _, _, share, _ = for_node(node, claims, self.cluster.extended())
        return share.refusal(node.name) if share is not None else None

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
                done = [with_allocation(c, a) for c, a in zip(answered(out, claims), out.allocations, strict=True)]
                for c in done:
                    self.cluster.record(c)
                if out.device_plugin:
                    self.cluster.take_plugin(n.name, out.device_plugin)
                return n, done
        return None
