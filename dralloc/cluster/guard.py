"""Whether an answer still holds when it is committed.

The cluster stamps every change with a clock: a pool (its slices, or the
allocated claims holding one of its devices), a node (added, replaced,
removed) and the device classes. Each answer it gives carries its
:class:`Basis`: which cluster gave it, the clock when the node's view and the
allocated claims were read (under the cluster's lock, so that reading is one
moment of the state), the node, and the answer's claims as the cluster held
them then.

``commit()`` takes an answer at once when none of its claims was changed and
nothing the answer depends on (the pools of the node's view and of its
results, the node, the classes) changed since its basis: the state it would
check is the one the answer was computed from. Otherwise (or for an answer
the cluster did not give, e.g. from :func:`dralloc.solver.allocate`) it
re-checks the answer with the independent checker against the current state
and refuses it when the check finds a violation the answer did not already
have when it was computed (a replay answer keeps the Kubernetes defects it
reproduced): a device held meanwhile, a counter that would be overdrawn, a
device that is gone. What a node's device plugins hand out (extended
resources a pod takes from ``status.allocatable``) is checked on every
commit against what is taken now (:func:`plugin_short`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from dralloc.checker.finding import ERROR, Finding
from dralloc.checker.rules import verify_allocation
from dralloc.cluster.index import PoolKey
from dralloc.errors import StaleAnswerError
from dralloc.features import Features, Variant
from dralloc.models import AllocationResult, DeviceClass, Node, ResourceClaim, ResourceSlice


@dataclass
class Changes:
    """When each pool, node and the classes last changed (a logical clock)."""

    clock: int = 0
    pools: dict[PoolKey, int] = field(default_factory=dict)
    nodes: dict[str, int] = field(default_factory=dict)
    classes: int = 0

    def pool(self, key: PoolKey) -> None:
        self.clock += 1
        self.pools[key] = self.clock

    def node(self, name: str) -> None:
        self.clock += 1
        self.nodes[name] = self.clock

    def class_changed(self) -> None:
        self.clock += 1
        self.classes = self.clock

    def since(self, clock: int, pools: Iterable[PoolKey], node: str) -> bool:
        """Whether the classes, the node or one of ``pools`` changed after ``clock``."""
        if self.classes > clock or self.nodes.get(node, 0) > clock:
            return True
        at = self.pools
        return any(at.get(p, 0) > clock for p in pools)


@dataclass(frozen=True)
class Basis:
    """What an answer was computed from (set on ``Outcome.basis``)."""

    owner: object                                    # the cluster's token
    clock: int
    node: Node
    claims: tuple[tuple[str, ResourceClaim | None], ...]   # key -> the object held then (None: not held)


def result_pools(allocations: Iterable[AllocationResult]) -> set[PoolKey]:
    return {(r.driver, r.pool) for a in allocations if a.devices is not None for r in a.devices.results or []}


def claim_changed(key: str, then: ResourceClaim | None, now: ResourceClaim | None) -> StaleAnswerError:
    def allocated(c: ResourceClaim | None) -> bool:
        return c is not None and c.status is not None and c.status.allocation is not None
    if allocated(now):
        what = "it was allocated meanwhile" if not allocated(then) else "its allocation was replaced meanwhile"
    elif allocated(then):
        what = "it was released meanwhile"
    else:
        what = "it was replaced or removed meanwhile"
    return StaleAnswerError(f"claim {key} changed since this answer was computed ({what}); compute a new answer")


def new_violations(slices: list[ResourceSlice], classes: Sequence[DeviceClass], node: Node,
                   claims: Sequence[ResourceClaim], allocations: Sequence[AllocationResult],
                   held: list[ResourceClaim], features: Features, variant: Variant,
                   known: Iterable[str]) -> list[Finding]:
    """The checker's errors for the answer against ``held`` (the allocated
    claims now), except those the answer already had (``known``)."""
    pairs = [(c, a) for c, a in zip(claims, allocations, strict=True) if a.devices is not None]
    findings = verify_allocation(slices, classes, node, [c for c, _ in pairs], [a for _, a in pairs], held,
                                 features, variant)
    old = set(known)
    return [f for f in findings if f.level == ERROR and str(f) not in old]


def stale(node: Node, found: list[Finding]) -> StaleAnswerError:
    more = f" (and {len(found) - 1} more problem(s))" if len(found) > 1 else ""
    return StaleAnswerError(f"the answer for node {node.name} no longer holds: {found[0].message}{more}; "
                            "the cluster changed since it was computed: compute a new answer")


def plugin_short(node: str, have: dict[str, int], used: dict[str, int], take: dict[str, int]) -> StaleAnswerError | None:
    """The answer takes ``take`` of the node's device-plugin resources; with
    ``used`` taken now of ``have`` (``status.allocatable``), refuse it when
    one is short (another answer took them meanwhile)."""
    for name, n in sorted(take.items()):
        free = have.get(name, 0) - used.get(name, 0)
        if n > free:
            return StaleAnswerError(f"node {node}: the answer takes {n} {name} from the node's device plugin, "
                                    f"{max(free, 0)} of {have.get(name, 0)} free now (taken meanwhile); "
                                    "compute a new answer")
    return None
