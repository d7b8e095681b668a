"""Allocated claims, indexed by the pools their results use.

The allocator's view of what is already allocated (``AllocatedState``) is
built per call from the claims that hold a device of one of the node's pools:
the only entries a search on that node ever looks at. Claims keep the order in
which they became allocated (input order first), so a call sees them in the
order ``allocate()`` would."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from dralloc.cluster.index import PoolKey
from dralloc.models import ResourceClaim


def result_pools(claim: ResourceClaim) -> set[PoolKey]:
    alloc = claim.status.allocation if claim.status else None
    if alloc is None or alloc.devices is None:
        return set()
    return {(r.driver, r.pool) for r in alloc.devices.results or []}


def claim_key(claim: ResourceClaim) -> str:
    """``namespace/name``, a missing namespace read as ``default`` (as kubectl does)."""
    return f"{claim.namespace or 'default'}/{claim.name}"


def normal_key(key: str) -> str:
    return key if "/" in key else f"default/{key}"


def is_allocated(claim: ResourceClaim) -> bool:
    return claim.status is not None and claim.status.allocation is not None


@dataclass
class Ledger:
    claims: dict[int, ResourceClaim] = field(default_factory=dict)        # seq -> allocated claim
    seq_of: dict[str, int] = field(default_factory=dict)                  # claim key -> seq
    by_pool: dict[PoolKey, set[int]] = field(default_factory=dict)        # pool -> seqs holding a device
    next_seq: int = 0

    def __len__(self) -> int:
        return len(self.claims)

    def add(self, claim: ResourceClaim, seq: int | None = None) -> int:
        """Record an allocated claim (replacing an earlier one of that key),
        last in order unless ``seq`` puts it back where it was."""
        key = claim_key(claim)
        self.remove(key)
        if seq is None:
            seq, self.next_seq = self.next_seq, self.next_seq + 1
        self.claims[seq] = claim
        self.seq_of[key] = seq
        for p in result_pools(claim):
            self.by_pool.setdefault(p, set()).add(seq)
        return seq

    def remove(self, key: str) -> ResourceClaim | None:
        seq = self.seq_of.pop(key, None)
        if seq is None:
            return None
        claim = self.claims.pop(seq)
        for p in result_pools(claim):
            held = self.by_pool[p]
            held.discard(seq)
            if not held:
                del self.by_pool[p]
        return claim

    def holding(self, pools: Iterable[PoolKey], skip: Iterable[str] = ()) -> list[ResourceClaim]:
        """The allocated claims with a result in one of ``pools`` (but not
        those keyed in ``skip``), in the order they were allocated."""
        seqs = sorted({q for p in pools for q in self.by_pool.get(p, ())})
        left_out = set(skip)
        return [c for c in (self.claims[q] for q in seqs) if claim_key(c) not in left_out]

    def pools_held(self, key: str) -> set[PoolKey]:
        seq = self.seq_of.get(key)
        return result_pools(self.claims[seq]) if seq is not None else set()

    def all(self) -> list[ResourceClaim]:
        return [self.claims[q] for q in sorted(self.claims)]
