"""Foreign counter pools of the stable allocator.

With partitionable devices, the stable variant adds every slice that carries
``sharedCounters`` to its pool whatever node it targets (spec V-3), so a node
sees the counter pools of every other node too: pools without a device for it.
Such a *foreign* pool can change an answer only in a few ways: it is
incomplete or invalid (a failed search becomes an error, an ``All`` request
fails), its name is shared with a counter pool of another driver (the
counters-keyed-by-pool-name defect), or its counters are overdrawn by
allocated devices (the overdrawn-counter defect). Those are the *notable*
pools; the cluster hands them to every node's gather, and leaves out the rest,
whose only effect would be the cost of looking at them.

A foreign pool's gathered form does not depend on the node (only its counter
slices are kept, the rest of the pool is "not targeting this node"), so it is
computed once per change of the pool's slices."""

from __future__ import annotations

from dataclasses import dataclass, field

from dralloc.cluster.index import PoolKey, SliceIndex
from dralloc.cluster.ledger import Ledger
from dralloc.features import Features, Variant
from dralloc.inventory.pools import Pool, gather_pools
from dralloc.inventory.state import AllocatedState
from dralloc.models import Node, ObjectMeta, ResourceSlice

NOWHERE = "\x00nowhere"   # a node name no slice can carry (not a DNS label)


def applies(features: Features, variant: Variant) -> bool:
    return variant is Variant.STABLE and features.partitionable_devices


def _pinned_away(s: ResourceSlice) -> ResourceSlice:
    """``s`` targeting no real node (counter slices are kept as they are)."""
    if s.spec.shared_counters:
        return s
    spec = s.spec.model_copy(update={"node_name": NOWHERE, "all_nodes": None, "node_selector": None,
                                     "per_device_node_selection": None})
    return s.model_copy(update={"spec": spec})


@dataclass
class ForeignPools:
    index: SliceIndex
    ledger: Ledger
    features: Features
    variant: Variant
    views: dict[PoolKey, Pool | None] = field(default_factory=dict)   # gathered as foreign
    notable: set[PoolKey] = field(default_factory=set)
    dirty: set[PoolKey] | None = None        # None: nothing computed yet

    def view(self, pool: PoolKey) -> Pool | None:
        if pool not in self.views:
            slices = [_pinned_away(s) for s in self.index.slices_of([pool])]
            got = gather_pools(slices, Node(metadata=ObjectMeta(name=NOWHERE)), self.features, self.variant)
            self.views[pool] = got[0] if got else None
        return self.views[pool]

    def slices_changed(self, pool: PoolKey) -> None:
        self.views.pop(pool, None)
        if self.dirty is not None:  # a name shared across drivers may start or stop colliding
            self.dirty.update(self.index.counter_names.get(pool[1], ()))
            self.dirty.add(pool)

    def claims_changed(self, pool: PoolKey) -> None:
        if self.dirty is not None:
            self.dirty.add(pool)

    def current(self) -> set[PoolKey]:
        """The notable counter pools (as foreign pools) right now."""
        if not applies(self.features, self.variant):
            return set()
        if self.dirty is None:
            self.dirty = set(self.index.counter_pools)
        for pool in self.dirty:
            self.notable.discard(pool)
            if pool in self.index.counter_pools and self._is_notable(pool):
                self.notable.add(pool)
        self.dirty = set()
        return self.notable

    def _is_notable(self, key: PoolKey) -> bool:
        pool = self.view(key)
        if pool is None:
            return False
        if not pool.usable:
            return True
        if pool.counter_sets and any(p[0] != key[0] for p in self.index.counter_names.get(key[1], ())):
            return True
        return self._overdrawn(pool)

    def _overdrawn(self, pool: Pool) -> bool:
        held = self.ledger.holding([pool.id])
        if not held:
            return False
        state = AllocatedState.from_claims(held, self.features, self.variant)
        return state.overdrawn(pool)
