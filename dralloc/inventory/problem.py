"""The normalised allocation problem for one node: pools in search order,
what is already allocated, and the claims' validated request slots."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from dralloc.errors import InputError
from dralloc.features import Features, Variant
from dralloc.inventory.pools import Pool, PoolDevice, gather_pools
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

    _negative_requests: bool | None = field(default=None, init=False, repr=False)

    def has_invalid_pool(self) -> bool:
        return any(p.invalid is not None for p in self.pools)

    def may_share_negative(self, pd: PoolDevice) -> bool:
        """Whether a share of ``pd`` could consume a negative amount here (a
        negative capacity taken whole, a negative default, a request naming a
        negative amount; the API server accepts all three): then an earlier
        share can make room for a later one, and whether a request fits the
        device depends on what is picked before it, not on the request alone."""
        for cap in (pd.device.capacity or {}).values():
            policy = cap.request_policy
            if cap.value.value < 0 or (policy is not None and policy.default is not None
                                       and policy.default.value < 0):
                return True
        if self._negative_requests is None:
            self._negative_requests = any(q.value < 0 for plan in self.plans for slot in plan.slots
                                          for spec in slot.options for q in (spec.capacity or {}).values())
        return self._negative_requests


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
    _check_steps(pools)
    allocated = list(allocated_claims)
    state = AllocatedState.from_claims(allocated, features, variant)
    selectable = Selectability(node, features, variant, state)
    builder = PlanBuilder({c.name: c for c in classes}, pools, features, variant, selectable, state)
    plans = builder.build(claims)
    return Problem(node, features, variant, pools, state, plans, selectable, list(claims), allocated)


def _check_steps(pools: list[Pool]) -> None:
    """A capacity's request step must be positive: the API server refuses
    another, and Kubernetes' allocator would divide by it (objects read with
    admission never get here with one; scenario files are not admitted)."""
    for pool in pools:
        if pool.steps_checked:
            continue
        for pd in pool.devices:
            for name, cap in (pd.device.capacity or {}).items():
                rng = cap.request_policy.valid_range if cap.request_policy is not None else None
                if rng is not None and rng.step is not None and math.ceil(rng.step.value) <= 0:
                    raise InputError(f"capacity[{name}].requestPolicy.validRange.step {rng.step} is not positive "
                                     "(the API server refuses it; Kubernetes' allocator would divide by it)",
                                     obj=f"ResourceSlice {pd.slice.metadata.name} device {pd.device.name}")
        pool.steps_checked = True   # pools kept across calls are not looked at again
