"""fits() skips a node whose free devices are proven too few
(dralloc/cluster/free.py): the skip never changes an answer -- on random
clusters filled by commits, every node it skips is one no engine accepts,
in every mode, and fits() lists exactly the nodes the unskipped path
accepts -- and it does skip full nodes."""

from __future__ import annotations

import random

import pytest
from randcluster import cluster_docs, objects
from test_same_answers import FEATURES, _claims
from test_threads import counted, one_unit

from dralloc.cluster import Cluster
from dralloc.cluster.free import need_of
from dralloc.models import ResourceClaim

MODES = ("replay", "first-fit")


def _check(cl: Cluster, claims: list[ResourceClaim]) -> int:
    """Every skipped node is refused by every engine; fits() is the
    unskipped path's list. Returns how many nodes were skipped."""
    need = need_of(claims)
    keys = [c.key for c in claims]
    skipped = 0
    accepted = []
    for node in cl.nodes():
        skip = need is not None and cl.cannot_hold(node, need, keys)
        skipped += skip
        answers = {mode: cl.allocate(node, claims, mode=mode) for mode in MODES}
        if skip:
            assert not any(a.ok for a in answers.values()), (node.name, keys, answers)
        if answers["replay"].ok:
            accepted.append(node.name)
    assert [n.name for n, _ in cl.fits(claims, mode="replay")] == accepted
    return skipped


@pytest.mark.parametrize("seed", range(12))
def test_the_skip_never_changes_the_answer(seed: int) -> None:
    rng = random.Random(300 + seed)
    _, feats = FEATURES[seed % len(FEATURES)]
    cl = Cluster(objects(cluster_docs(300 + seed, nodes=4)), features=feats, admission=False)
    for step in range(16):
        claims = _claims(rng, step)
        _check(cl, claims)
        found = cl.fits(claims, limit=1, mode="replay")
        if found:
            cl.commit(found[0][1], claims)
        if cl.allocated() and rng.random() < 0.15:
            cl.release(rng.choice(cl.allocated()).key)


def test_full_nodes_are_skipped() -> None:
    """Nodes whose counters are used up (devices left unallocated, but each
    would overdraw the counters) are skipped; once a claim is released the
    node is asked again."""
    cl = counted(3)
    for i in range(16):
        c = one_unit(f"c{i}")
        node, answer = cl.fits([c], limit=1)[0]
        cl.commit(answer, [c])
        assert node.name == ("n00" if i < 8 else "n01")
    one = one_unit("x")
    need = need_of([one])
    assert need is not None
    assert [cl.cannot_hold(n, need, ["default/x"]) for n in cl.nodes()] == [True, True, False]
    assert _check(cl, [one]) == 2
    two = one_unit("y", size=2)
    assert _check(cl, [two]) == 2
    cl.release("default/c3")
    assert [cl.cannot_hold(n, need, ["default/x"]) for n in cl.nodes()] == [False, True, False]
    assert cl.fits([one], limit=1)[0][0].name == "n00"


def test_what_the_bound_cannot_judge_is_asked() -> None:
    """Requests the bound says nothing about (admin access, All) and claims
    already allocated leave every node to the engines."""
    cl = counted(1)
    for i in range(8):
        c = one_unit(f"c{i}")
        cl.commit(cl.fits([c], limit=1)[0][1], [c])
    held = cl.claim("default/c0")
    assert held is not None
    need = need_of([held])
    assert need is not None and not cl.cannot_hold(cl.nodes()[0], need, [held.key])
    admin = one_unit("admin")
    req = admin.spec.devices.requests[0]   # type: ignore[union-attr,index]
    exactly = req.exactly.model_copy(update={"admin_access": True})   # type: ignore[union-attr]
    admin = admin.model_copy(update={"spec": admin.spec.model_copy(update={"devices": admin.spec.devices.model_copy(
        update={"requests": [req.model_copy(update={"exactly": exactly})]})})})   # type: ignore[union-attr]
    assert need_of([admin]) is None
