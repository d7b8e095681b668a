"""kube-scheduler's choice of node, as the tie-break search models it:
numFeasibleNodesToFind's adaptive window, the DynamicResources score
(prioritized-list ranks only, normalised to 0..100), selectHost's highest
score with random ties -- and a gang whose outcome the DRA score decides."""

from __future__ import annotations

from typing import Any

from dralloc.audit.core import verify_state
from dralloc.audit.tiebreak import dra_score, feasible_nodes_to_find, may_win, normalised
from dralloc.features import Features
from dralloc.models import AllocationResult, ResourceClaim
from dralloc.planner.generate import clusters as gen
from tests.planner.aicluster import member, partitionable, pod_group, prefer_whole

F = Features.from_gates(["DRAPartitionableDevices", "DRAPrioritizedList"])


def test_the_scheduler_scores_a_window_of_feasible_nodes_above_100_nodes() -> None:
    assert feasible_nodes_to_find(50) == 50            # every node below 100
    assert feasible_nodes_to_find(200) == 100          # 49 % = 98, at least 100
    assert feasible_nodes_to_find(1000) == 420         # 50 - 1000/125 = 42 %
    assert feasible_nodes_to_find(10000) == 500        # at least 5 %


def test_scores_are_normalised_by_integer_division() -> None:
    assert normalised([0, 0]) == [0, 0]
    assert normalised([8, 7, 0]) == [100, 87, 0]


def test_the_highest_score_wins_and_ties_are_all_possible() -> None:
    assert may_win([3, 5, 5, 1], window=4) == [False, True, True, False]
    # with a window of 2 among 6 feasible nodes (circular), a lower score wins
    # where two consecutive nodes hold nothing higher
    assert may_win([5, 1, 1, 1, 5, 1], window=2) == [True, True, True, True, True, False]


def test_the_dra_score_counts_the_rank_of_the_subrequest_allocated() -> None:
    claim = ResourceClaim.model_validate({
        "metadata": {"name": "c", "namespace": "default"},
        "spec": {"devices": {"requests": [
            {"name": "dev", "firstAvailable": [{"name": "big", "deviceClassName": "x"},
                                               {"name": "small", "deviceClassName": "x"}]},
            {"name": "plain", "exactly": {"deviceClassName": "x"}}]}}})

    def alloc(request: str) -> AllocationResult:
        return AllocationResult.model_validate({"devices": {"results": [
            {"request": request, "driver": "d", "pool": "p", "device": "x"},
            {"request": "plain", "driver": "d", "pool": "p", "device": "y"}]}})

    assert dra_score([claim], [alloc("dev/big")]) == 8
    assert dra_score([claim], [alloc("dev/small")]) == 7


def halves_only(name: str) -> list[dict[str, Any]]:
    """A node whose device comes only as a half (no whole)."""
    drv = "part.example.com"
    return [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}},
            {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{name}-part"},
             "spec": {"driver": drv, "nodeName": name, "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                      "devices": [{"name": "half-1", "attributes": {"size": {"string": "half"}}}]}}]


def test_the_dra_score_decides_where_a_pure_tie_break_would_not() -> None:
    """p1 prefers a whole device: n1 offers it (score 8), n2 only a half
    (score 7), so p1 always takes n1's whole device and p2, which needs a
    whole one, finds none -- refused under every tie-break, although p1 on
    n2 would have let both run."""
    whole = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
             "metadata": {"name": "whole", "namespace": "default"},
             "spec": {"spec": {"devices": {"requests": [{"name": "dev", "exactly": {
                 "deviceClassName": "part",
                 "selectors": [{"cel": {"expression": 'device.attributes["part.example.com"].size == "whole"'}}]}}]}}}}
    docs = [*partitionable("n1"), *halves_only("n2"), prefer_whole("t"), whole, pod_group("pg", 2),
            member("p1", "pg", ["t"]), member("p2", "pg", ["whole"])]
    rep = verify_state(gen.objects(docs), F, compare=False)
    [entry] = rep.pending
    assert entry["kubernetes"]["answer"] == "refused"
    assert entry["kubernetes"]["refusedBy"] == {"default/p1": "n1"}
    assert entry["verdict"] == "gang-fits-jointly"
    assert entry["nodes"] == {"default/p1": "n2", "default/p2": "n1"}


def test_a_node_may_win_exactly_when_some_window_holds_it_and_nothing_higher() -> None:
    """The definition, window by window (every start of the scheduler's
    search, round the end of the node list), against random scores."""
    import random

    rng = random.Random(7)
    for _ in range(500):
        n, window = rng.randint(1, 9), rng.randint(1, 9)
        scores = [rng.randint(0, 3) for _ in range(n)]
        if n <= window:
            want = [s == max(scores) for s in scores]
        else:
            runs = [[(j + d) % n for d in range(window)] for j in range(n)]
            want = [any(i in run and all(scores[k] <= scores[i] for k in run) for run in runs) for i in range(n)]
        assert may_win(scores, window) == want, (scores, window)
