"""The cluster object gives the answers ``allocate()`` gives on the whole
cluster, in every mode and allocator variant, while claims are committed and
released and slices come and go: seeded random clusters with every way a pool
reaches a node and the broken cases (tests/cluster/randcluster.py), taken
without admission (as the allocator's own input: broken pools are the point).
CI runs 36 seeds; ``DRALLOC_CLUSTER_SEEDS=1000`` runs more."""

from __future__ import annotations

import itertools
import os
import random
from collections.abc import Callable
from typing import Any

import pytest
from randcluster import (
    claim_doc,
    classes,
    cluster_docs,
    node_pools,
    objects,
    shared_pools,
    slice_doc,
)

from dralloc.cluster import Cluster
from dralloc.features import Features
from dralloc.io.loader import parse_object
from dralloc.models import ResourceClaim
from dralloc.solver import Outcome, allocate

FEATURES = (
    ("stable", Features.from_gates(["DRAPartitionableDevices", "DRADeviceTaints"])),
    ("incubating", Features.from_gates(["DRAPartitionableDevices", "DRAPrioritizedList", "DRAConsumableCapacity"])),
    ("no-partitions", Features.from_gates(["DRAPrioritizedList"])),
)
SEEDS = range(int(os.environ.get("DRALLOC_CLUSTER_SEEDS", "36")))   # more on demand


def share_ids() -> Callable[[], str]:
    n = itertools.count()
    return lambda: f"share-{next(n)}"


def canon(out: Outcome) -> tuple[Any, ...]:
    return (out.status, out.error, [a.dump() for a in out.allocations or []], out.steps, out.reasons,
            out.defects, out.notes, out.verified, out.findings)


def both(cl: Cluster, node: str, claims: list[ResourceClaim], **how: Any) -> Outcome:
    mine = cl.allocate(node, claims, share_ids=share_ids(), **how)
    whole = allocate(cl.objects(), node, claims, features=cl.features, variant=cl.variant,
                     share_ids=share_ids(), admission=False, **how)
    assert canon(mine) == canon(whole), f"node {node}, claims {[c.key for c in claims]}, {how}"
    return mine


def _claims(rng: random.Random, step: int) -> list[ResourceClaim]:
    out = []
    for i in range(rng.choice((1, 1, 2))):
        obj = parse_object(claim_doc(rng, f"c{step}-{i}"))
        assert isinstance(obj, ResourceClaim)
        out.append(obj)
    return out


def _step(cl: Cluster, rng: random.Random, step: int, mode: str) -> None:
    names = [n.name for n in cl.nodes()] + ["ghost"]
    op = rng.random()
    if op < 0.6:
        claims = _claims(rng, step)
        out = both(cl, rng.choice(names), claims, mode=mode)
        if out.ok and rng.random() < 0.8:
            cl.commit(out, claims)
    elif op < 0.7 and cl.allocated():
        cl.release(rng.choice(cl.allocated()).key)
    elif op < 0.8 and cl.allocated():   # allocate an allocated claim again
        again = rng.choice(cl.allocated())
        both(cl, rng.choice(names), [again], mode=mode)
    elif op < 0.85:
        held = sorted(cl.objects().slices, key=lambda s: s.name)
        if held:
            cl.remove_slices([rng.choice(held).name])
    elif op < 0.9:   # a node moves rack (and zone): views and label-keyed pools follow
        node = rng.choice(cl.nodes())
        labels = dict(node.labels) | {"rack": rng.choice("ab"), "topology.kubernetes.io/zone": rng.choice(("z1", "z3"))}
        cl.add_node(node.model_copy(update={"metadata": node.metadata.model_copy(update={"labels": labels})}))
    elif op < 0.95:  # shared pools come (back) with other node selections
        cl.add_slices(objects(shared_pools(rng, names[:-1])).slices)
    else:
        docs = node_pools(rng, rng.choice(names))
        cl.add_slices([objects([d]).slices[0] for d in docs])


@pytest.mark.parametrize("seed", SEEDS)
def test_same_answers_as_allocate(seed: int) -> None:
    rng = random.Random(seed)
    label, feats = FEATURES[seed % len(FEATURES)]
    cl = Cluster(objects(cluster_docs(seed)), features=feats, admission=False)
    mode = "first-fit" if seed % 4 == 3 else "replay"
    for step in range(14):
        _step(cl, rng, step, mode)


@pytest.mark.parametrize("seed", range(6))
def test_fits_lists_the_nodes_allocate_accepts(seed: int) -> None:
    rng = random.Random(100 + seed)
    _, feats = FEATURES[seed % len(FEATURES)]
    cl = Cluster(objects(cluster_docs(100 + seed, nodes=5)), features=feats, admission=False)
    claims = _claims(rng, 0)
    whole = cl.objects()
    want = [n.name for n in cl.nodes()
            if allocate(whole, n, claims, features=feats, variant=cl.variant, admission=False).ok]
    assert [n.name for n, _ in cl.fits(claims)] == want
    assert [n.name for n, _ in cl.fits(claims, limit=1)] == want[:1]


@pytest.mark.parametrize("seed", range(4))
def test_optimal_mode_same_answers(seed: int) -> None:
    rng = random.Random(200 + seed)
    cl = Cluster(objects(cluster_docs(200 + seed)), features=FEATURES[1][1], admission=False)
    for step in range(3):
        claims = _claims(rng, step)
        out = both(cl, rng.choice([n.name for n in cl.nodes()]), claims, mode="optimal", objective="claims")
        if out.ok:
            cl.commit(out, claims)


def test_stable_sees_a_broken_counter_pool_of_another_node() -> None:
    """Stable gathers every counter pool: an invalid one on node-b makes a
    failed search on node-a an error, as allocate() on the whole cluster says."""
    devs = [{"name": "p", "consumesCounters": [{"counterSet": "mem", "counters": {"m": {"value": "1"}}}]},
            {"name": "q", "consumesCounters": [{"counterSet": "nope", "counters": {"m": {"value": "1"}}}]}]
    docs = [*classes(),
            slice_doc("a", "gpu.example.com", "a", devices=[{"name": "g"}], nodeName="node-a"),
            slice_doc("b-dev", "gpu.example.com", "b", 2, devices=devs, nodeName="node-b"),
            slice_doc("b-cnt", "gpu.example.com", "b", 2, nodeName="node-b",
                      counters=[{"name": "mem", "counters": {"m": {"value": "4"}}}])]
    cl = Cluster(objects(docs), features=FEATURES[0][1], admission=False)
    too_many = parse_object({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                             "metadata": {"name": "two", "namespace": "default"},
                             "spec": {"devices": {"requests": [{"name": "r", "exactly": {
                                 "deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 2}}]}}})
    assert isinstance(too_many, ResourceClaim)
    out = both(cl, "node-a", [too_many])
    assert out.error == "invalid resource pools were encountered"
    cl.remove_slices(["b-dev"])   # now incomplete: still an error (a pool being updated)
    both(cl, "node-a", [too_many])
    cl.remove_slices(["b-cnt"])
    assert both(cl, "node-a", [too_many]).error is None
