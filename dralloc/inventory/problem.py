"""The normalised allocation problem for one node: pools in search order,
what is already allocated, and the claims' validated request slots."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from dralloc.features import Features, Variant
from dralloc.inventory.pools import Pool, gather_pools
from dralloc.inventory.requests import ClaimPlan, PlanBuilder
from dralloc.inventory.selectable import Selectability
from dralloc.inventory.state import AllocatedState
from dralloc.models import DeviceClass, Node, ResourceClaim, ResourceSlice


@dataclass(eq=False)
class Problem:
    node: Node
    features: Features
    variant: Variant
    pools: list[Pool]
    state: AllocatedState
    plans: list[ClaimPlan]
    selectable: Selectability
    claims: list[ResourceClaim]
    allocated: list[ResourceClaim]

    def has_invalid_pool(self) -> bool:
        return any(p.invalid is not None for p in self.pools)


def build_problem(slices: list[ResourceSlice], classes: Iterable[DeviceClass], node: Node,
                  claims: list[ResourceClaim], allocated_claims: Iterable[ResourceClaim],
                  features: Features, variant: Variant | None = None, pools: list[Pool] | None = None) -> Problem:
    """Gather pools, record allocated state, validate the claims. Raises
    :class:`~dralloc.errors.AllocationError` where Kubernetes fails fatally.
    ``pools``: the pools already gathered from ``slices`` for ``node`` (read
    only; saves gathering them again for every claim of one node)."""
    variant = variant or features.variant()
    if pools is None:
        pools = gather_pools(slices, node, features, variant)
    allocated = list(allocated_claims)
    state = AllocatedState.from_claims(allocated, features, variant)
    selectable = Selectability(node, features, variant)
    builder = PlanBuilder({c.name: c for c in classes}, pools, features, variant, selectable, state)
    plans = builder.build(claims)
    return Problem(node, features, variant, pools, state, plans, selectable, list(claims), allocated)
