"""Share IDs of consumable-capacity results.

Kubernetes gives every share of a device that allows multiple allocations a
random UUID (DC-17). dralloc derives it by default, so the same inputs give
the same output in every run and process: a name-based UUID (version 5) of
the claim (UID and namespace/name), the result's position in the claim, its
request and its device. Two shares never get one ID: within a claim the
positions differ, across claims the claims do. ``random`` gives fresh UUIDs
as Kubernetes does; tests may pass a callable that returns each ID in turn."""

from __future__ import annotations

import uuid
from collections.abc import Callable

from dralloc.errors import InputError
from dralloc.models import ResourceClaim
from dralloc.solver.modes import SHARE_ID_POLICIES as POLICIES

NAMESPACE = uuid.UUID("5d1b6f3e-8a3c-4c57-9d0e-2f7a4b1c6e90")  # dralloc's share-ID namespace (fixed forever)

ShareIDs = Callable[[ResourceClaim, int, str, str], str]
ShareIDPolicy = str | Callable[[], str] | None


def derived(claim: ResourceClaim, index: int, request: str, device: str) -> str:
    """The share ID of result ``index`` (``request`` on ``device``) of ``claim``."""
    ns = claim.metadata.namespace or ""
    text = "\n".join((claim.metadata.uid or "", ns, claim.name, str(index), request, device))
    return str(uuid.uuid5(NAMESPACE, text))


def fresh(claim: ResourceClaim, index: int, request: str, device: str) -> str:
    return str(uuid.uuid4())


def share_ids(policy: ShareIDPolicy) -> ShareIDs:
    """The share-ID maker for ``policy``: ``derived`` (default), ``random``,
    or a callable returning each new ID in turn."""
    if policy is None or policy == "derived":
        return derived
    if policy == "random":
        return fresh
    if callable(policy):
        make = policy
        return lambda claim, index, request, device: make()
    raise InputError(f"unknown share-ID policy {policy!r}; choose one of {', '.join(POLICIES)}")
