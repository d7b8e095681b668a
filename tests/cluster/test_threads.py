"""The cluster object keeps its promise under any use: a stale answer is
refused at commit (naming the device or claim), threads sharing one cluster
never double-book (checked by the independent checker), and a trial is
isolated from other threads."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from randcluster import GPU, classes, objects, slice_doc
from test_cluster import claim, node, small

from dralloc.checker.finding import ERROR
from dralloc.checker.rules import verify_allocation
from dralloc.checker.shared import check_shared
from dralloc.cluster import Cluster
from dralloc.errors import StaleAnswerError
from dralloc.features import Features
from dralloc.io.loader import parse_object
from dralloc.models import ResourceClaim
from dralloc.solver import allocate

FEATURES = Features.from_gates(["DRAPartitionableDevices", "DRAPrioritizedList"])
PER_NODE = 8   # claims of one partition each fit on a node (its counter: 8 units, each partition 1)


def partitioned(name: str) -> list[dict[str, Any]]:
    """A node with 12 partitions over one counter set of 8 units: eight
    one-unit devices and four two-unit ones, so that a node is full for the
    one-unit claims once eight are held, with devices left over that only the
    counters block."""
    devices = [{"name": f"p{i}", "attributes": {"size": {"int": 1}},
                "consumesCounters": [{"counterSet": "units", "counters": {"n": {"value": "1"}}}]} for i in range(8)]
    devices += [{"name": f"q{i}", "attributes": {"size": {"int": 2}},
                 "consumesCounters": [{"counterSet": "units", "counters": {"n": {"value": "2"}}}]} for i in range(4)]
    return [slice_doc(f"{name}-parts", GPU, name, 2, devices=devices, nodeName=name),
            slice_doc(f"{name}-units", GPU, name, 2, nodeName=name,
                      counters=[{"name": "units", "counters": {"n": {"value": "8"}}}])]


def one_unit(name: str, size: int = 1) -> ResourceClaim:
    """A claim for one partition of ``size`` units."""
    obj = parse_object({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                        "metadata": {"name": name, "namespace": "default"},
                        "spec": {"devices": {"requests": [{"name": "r", "exactly": {
                            "deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 1,
                            "selectors": [{"cel": {"expression": f'device.attributes["{GPU}"].size == {size}'}}]}}]}}})
    assert isinstance(obj, ResourceClaim)
    return obj


def counted(nodes: int) -> Cluster:
    names = [f"n{i:02d}" for i in range(nodes)]
    docs = [*classes(), *(node(n) for n in names), *(d for n in names for d in partitioned(n))]
    return Cluster(objects(docs), features=FEATURES)


def no_double_booking(cl: Cluster) -> None:
    """The independent checker on the cluster's final state: no device held
    twice, no counter overdrawn, and every claim valid on its node."""
    objs = cl.objects()
    held = cl.allocated()
    bad = [f for f in check_shared(objs.slices, held, FEATURES, FEATURES.variant()) if f.level == ERROR]
    assert bad == [], [str(f) for f in bad]
    for c in held:
        alloc = c.status.allocation   # type: ignore[union-attr]
        on = alloc.node_selector.node_selector_terms[0].match_fields[0].values[0]   # type: ignore[union-attr,index]
        found = verify_allocation(objs.slices, objs.classes, cl.node(on), [c], [alloc], (), FEATURES)   # type: ignore[list-item]
        assert [f for f in found if f.level == ERROR] == [], c.key


# ---------------------------------------------------------------- stale answers

def test_two_answers_for_one_device_the_second_commit_is_refused() -> None:
    """Two answers computed before either is committed name the same device:
    the first commit is taken, the second refused with the device named, and
    nothing of it recorded; a fresh answer then commits."""
    cl = small(per_node=2)
    a, b = claim("a"), claim("b")
    ans_a, ans_b = cl.fits([a], limit=1)[0][1], cl.fits([b], limit=1)[0][1]
    dev = ans_a.allocations[0].devices.results[0].device   # type: ignore[index,union-attr]
    assert dev == ans_b.allocations[0].devices.results[0].device   # type: ignore[index,union-attr]
    cl.commit(ans_a, [a])
    with pytest.raises(StaleAnswerError, match=f"device {GPU}/a/{dev} is held by several claims"):
        cl.commit(ans_b, [b])
    assert [c.key for c in cl.allocated()] == ["default/a"]
    cl.commit(cl.fits([b], limit=1)[0][1], [b])
    assert [c.key for c in cl.allocated()] == ["default/a", "default/b"]
    no_double_booking(cl)


def test_a_stale_answer_over_counters_is_refused() -> None:
    """Different devices, one counter set: the second answer would overdraw
    the counters the first one consumed."""
    cl = counted(1)
    first = [one_unit(f"c{i}") for i in range(6)]
    for c in first:
        cl.commit(cl.allocate("n00", [c]), [c])
    x, y = one_unit("x"), one_unit("y", size=2)     # two units left: either fits alone
    ans_x, ans_y = cl.allocate("n00", [x]), cl.allocate("n00", [y])
    cl.commit(ans_x, [x])
    with pytest.raises(StaleAnswerError, match="counter"):
        cl.commit(ans_y, [y])
    assert len(cl.allocated()) == 7
    no_double_booking(cl)


def test_an_answer_whose_claim_was_allocated_meanwhile_is_refused() -> None:
    cl = small(per_node=2)
    a = claim("a")
    first, second = cl.allocate("a", [a]), cl.allocate("b", [a])
    cl.commit(first, [a])
    with pytest.raises(StaleAnswerError, match="claim default/a changed since this answer was computed"):
        cl.commit(second, [a])
    with pytest.raises(StaleAnswerError, match="allocated meanwhile"):
        cl.commit(first, [a])   # committing the same answer twice is a caller's bug too


def test_an_answer_still_true_after_other_changes_commits() -> None:
    """Changes elsewhere (another node's claims) or ones that leave the
    answer true (a device the answer does not use taken) do not refuse it."""
    cl = small(per_node=2)
    a, b, c = claim("a"), claim("b"), claim("c")
    ans = cl.allocate("a", [a])
    cl.commit(cl.allocate("b", [b]), [b])                 # another node
    other = cl.allocate("a", [c], mode="optimal", objective="claims")
    used = ans.allocations[0].devices.results[0].device   # type: ignore[index,union-attr]
    if other.allocations[0].devices.results[0].device != used:   # type: ignore[index,union-attr]
        cl.commit(other, [c])
    cl.commit(ans, [a])
    no_double_booking(cl)


def test_an_answer_from_allocate_is_checked_against_the_cluster() -> None:
    """An answer the cluster did not give (``dralloc.solver.allocate`` on the
    same objects) has no basis: commit checks it against the current state."""
    cl = small(per_node=1)
    a, b = claim("a"), claim("b")
    outside = allocate(cl.objects(), "a", [b], features=FEATURES)
    cl.commit(cl.allocate("a", [a]), [a])
    with pytest.raises(StaleAnswerError, match=f"device {GPU}/a/gpu-0"):
        cl.commit(outside, [b])


def test_a_replaced_slice_makes_an_answer_on_it_stale() -> None:
    cl = small(per_node=2)
    a = claim("a")
    ans = cl.allocate("a", [a])
    cl.add_slices(objects([slice_doc("a-gpus", GPU, "a", gen=2, devices=[{"name": "other"}], nodeName="a")]).slices)
    with pytest.raises(StaleAnswerError, match="no longer holds"):
        cl.commit(ans, [a])


# ---------------------------------------------------------------- threads

def _schedule(cl: Cluster, claims: list[ResourceClaim], mode: str, stats: dict[str, int],
              errors: list[BaseException]) -> None:
    try:
        for c in claims:
            while True:
                found = cl.fits([c], limit=1, mode=mode)
                if not found:
                    stats["pending"] += 1
                    break
                try:
                    cl.commit(found[0][1], [c])
                    break
                except StaleAnswerError:
                    stats["stale"] += 1   # another thread took the device: ask again
    except BaseException as e:   # noqa: BLE001 -- reported by the test
        errors.append(e)


@pytest.mark.parametrize("mode", ["first-fit", "replay"])
def test_four_threads_200_claims_no_double_booking(mode: str) -> None:
    """4 threads place 50 claims each (fits + commit, retrying a refused
    commit) on one cluster that holds exactly 200: all are placed, the
    cluster is then full, and the checker finds no device held twice and no
    counter overdrawn."""
    cl = counted(25)
    stats = {"pending": 0, "stale": 0}
    errors: list[BaseException] = []
    work = [[one_unit(f"t{t}-{i}") for i in range(50)] for t in range(4)]
    threads = [threading.Thread(target=_schedule, args=(cl, w, mode, stats, errors)) for w in work]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert stats["pending"] == 0 and len(cl.allocated()) == 200
    assert cl.fits([one_unit("more")], limit=1) == []
    no_double_booking(cl)


def test_a_trial_is_isolated_from_other_threads() -> None:
    """While one thread is inside a trial, another thread's calls wait: its
    commit is neither seen by the trial nor undone when the trial ends."""
    cl = small(per_node=2)
    inside, go_on = threading.Event(), threading.Event()
    seen: list[int] = []

    def what_if() -> None:
        with cl.trial():
            cl.commit(cl.allocate("a", [claim("t")]), [claim("t")])
            inside.set()
            go_on.wait(0.5)            # the other thread tries to commit meanwhile
            seen.append(len(cl.allocated()))

    def commit_other() -> None:
        inside.wait()
        b = claim("b")
        cl.commit(cl.allocate("a", [b]), [b])

    threads = [threading.Thread(target=what_if), threading.Thread(target=commit_other)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == [1]                                       # the trial saw only its own claim
    assert [c.key for c in cl.allocated()] == ["default/b"]   # b kept, t undone
    no_double_booking(cl)
