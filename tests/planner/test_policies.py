"""Node policies (first / most / least allocated) of the pod-by-pod
simulation for general demand, on hand-checked clusters.

The cluster: node-a with 4 free GPUs (utilisation 0), node-b with 8 GPUs of
which 2 are allocated already (utilisation 2/8 = 1/4); three pods of 2 GPUs
each (a matchAttribute constraint makes it general demand).

* first: a, a (a is full), b.
* most: b (1/4 > 0) -> 4/8, b -> 6/8, b -> 8/8: b, b, b.
* least: a (0 < 1/4) -> 2/4 = 1/2, b (1/4 < 1/2) -> 4/8 = 1/2, tie at 1/2
  goes to the name: a. So a, b, a."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from dralloc.errors import InputError
from dralloc.features import Features
from dralloc.planner.api import Options, answer
from dralloc.planner.generate import clusters as gen
from dralloc.planner.simulate.firstfit import simulate
from dralloc.planner.simulate.nodescore import NodeScores
from dralloc.planner.simulate.podsim import NodeObjects, simulate_pods
from dralloc.planner.view.cluster import DEFAULT_GATES, build_cluster
from dralloc.planner.view.demand import demand_from
from dralloc.planner.view.pods import pods_demand
from tests.planner.helpers import objects as mig_objects
from tests.planner.test_general import DRIVER, GPU_CLASS, node, pod, template

F = Features.from_gates(DEFAULT_GATES)


def held(name: str, node_name: str, devices: list[str]) -> dict[str, Any]:
    """An allocated claim holding ``devices`` of ``node_name``'s pool."""
    results = [{"request": "gpus", "driver": DRIVER, "pool": node_name, "device": d} for d in devices]
    sel = {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In",
                                                    "values": [node_name]}]}]}
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "gpus", "exactly": {"deviceClassName": "gpu",
                                                                            "count": len(devices)}}]}},
            "status": {"allocation": {"devices": {"results": results}, "nodeSelector": sel}}}


def docs() -> list[dict[str, Any]]:
    return [GPU_CLASS, *node("node-a", ["x"] * 4), *node("node-b", ["x"] * 8),
            held("busy", "node-b", ["gpu-0", "gpu-1"]), template("two", 2), pod("job", ["two"], replicas=3)]


def placements(policy: str, ds: list[dict[str, Any]] | None = None) -> list[str]:
    objs = gen.objects(ds if ds is not None else docs())
    sim = simulate_pods(objs, pods_demand(objs), F, policy=policy)
    return [p.node for p in sim.placed]


@pytest.mark.parametrize(("policy", "nodes"), [("first", ["node-a", "node-a", "node-b"]),
                                               ("most", ["node-b", "node-b", "node-b"]),
                                               ("least", ["node-a", "node-b", "node-a"])])
def test_policy_picks_the_hand_checked_nodes(policy: str, nodes: list[str]) -> None:
    assert placements(policy) == nodes


def test_scores_are_the_autoscaler_utilisation_of_the_state_so_far() -> None:
    objs = gen.objects(docs())
    per_node = NodeObjects(objs)
    scores = NodeScores(per_node.get, F)
    a, b = sorted(objs.nodes, key=lambda n: n.name)
    allocated = [c for c in objs.claims if c.status]
    assert (scores.score(a, allocated), scores.score(b, allocated)) == (Fraction(0), Fraction(1, 4))
    assert [n.name for n in scores.order([a, b], "most", allocated)] == ["node-b", "node-a"]
    assert [n.name for n in scores.order([b, a], "least", allocated)] == ["node-a", "node-b"]
    # one more claim on node-b: only its score is recomputed
    more = gen.objects([held("more", "node-b", ["gpu-2", "gpu-3"])]).claims
    scores.committed(more, [a, b])
    assert scores.score(b, allocated + more) == Fraction(1, 2)


def test_an_infeasible_best_node_is_skipped() -> None:
    # node-b is the busiest but has only one GPU left: "most" must still go to node-a
    ds = [GPU_CLASS, *node("node-a", ["x"] * 4), *node("node-b", ["x"] * 4),
          held("busy", "node-b", ["gpu-0", "gpu-1", "gpu-2"]), template("two", 2), pod("job", ["two"])]
    assert placements("most", ds) == ["node-a"]


def test_ties_go_to_the_first_name() -> None:
    ds = [GPU_CLASS, *node("node-b", ["x"] * 2), *node("node-a", ["x"] * 2), template("two", 2),
          pod("job", ["two"])]
    assert placements("most", ds) == placements("least", ds) == ["node-a"]


def test_policy_through_the_api_and_an_unknown_policy() -> None:
    ans = answer("fit", gen.objects(docs()), Options(policy="least", workers=1))
    assert ans.first_fit["policy"] == "least" and ans.first_fit["pods"] == 3 and ans.optimal["pods"] == 3
    with pytest.raises(InputError, match="unknown node policy 'busiest'"):
        answer("fit", gen.objects(docs()), Options(policy="busiest", workers=1))


def one_gpu_docs() -> list[dict[str, Any]]:
    """One GPU per pod, no constraint: the fast simulator's shape."""
    one = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
           "metadata": {"name": "one", "namespace": "default"},
           "spec": {"spec": {"devices": {"requests": [{"name": "gpus", "exactly": {"deviceClassName": "gpu"}}]}}}}
    return [GPU_CLASS, *node("node-a", ["x"] * 4), *node("node-b", ["x"] * 8),
            held("busy", "node-b", ["gpu-0", "gpu-1"]), one, pod("job", ["one"], replicas=3)]


@pytest.mark.parametrize("policy", ["first", "most", "least"])
@pytest.mark.parametrize("case", ["plain", "mig", "mig-mixed"])
def test_pod_by_pod_policy_equals_the_fast_simulator(policy: str, case: str) -> None:
    """Both simulations score nodes with one definition: same nodes, same order."""
    if case == "plain":
        objs = gen.objects(one_gpu_docs())
    elif case == "mig":
        objs = mig_objects(3, 2, [("3g.20gb", 3, 0), ("1g.5gb", 5, 0), ("4g.20gb", 2, 0)])
    else:
        objs = mig_objects(2, 2, [("7g.40gb", 1, 1), ("2g.10gb", 4, 0), ("1g.5gb", 3, 0)])
    fast = simulate(build_cluster(objs, demand_from(objs), F), policy)
    slow = simulate_pods(objs, pods_demand(objs), F, policy=policy)
    assert slow.served == fast.served
    assert [p.node for p in slow.placed] == [p.node for p in fast.placed]


def test_one_gpu_pods_hand_checked() -> None:
    # a: 0/4, b: 2/8. most: b, b, b. least: a (0) -> 1/4; tie a/b at 1/4 -> a -> 2/4; b (1/4) -> b.
    assert placements("most", one_gpu_docs()) == ["node-b"] * 3
    assert placements("least", one_gpu_docs()) == ["node-a", "node-a", "node-b"]
    assert placements("first", one_gpu_docs()) == ["node-a"] * 3
