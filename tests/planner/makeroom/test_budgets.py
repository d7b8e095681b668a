"""PodDisruptionBudgets as the eviction API and the disruption controller
count them, and priorities as the API server resolves them."""

from __future__ import annotations

import pytest

from dralloc.errors import InputError
from dralloc.models import LabelSelector
from dralloc.planner.makeroom.budgets import read_budgets, scaled, selector_matches
from dralloc.planner.makeroom.running import running_state
from tests.planner.makeroom.build import budget, gpu_class, gpu_node, objects, running


def pods(n: int, ready: list[bool] | None = None, owner: bool = False, phase: str | None = None) -> list:
    docs = [gpu_class(), *gpu_node("node-a")]
    for i in range(n):
        docs += running(f"p{i}", "node-a", [f"gpu-{i}"], 0, labels={"app": "web", "tier": str(i)})
        pod = docs[-1]
        if ready is not None:
            pod["status"] = {"phase": phase or "Running",
                             "conditions": [{"type": "Ready", "status": "True" if ready[i] else "False"}]}
        if owner:
            pod["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web",
                                                   "uid": "rs", "controller": True}]
    return docs


def allowed(docs: list) -> tuple[int, dict]:
    objs = objects(docs)
    b = read_budgets(objs, running_state(objs))
    return b.budgets[0].allowed, b.of_pod


def test_selector_semantics():
    labels = {"app": "web", "tier": "1"}
    assert not selector_matches(None, labels)
    assert selector_matches(LabelSelector(), labels)
    sel = LabelSelector.model_validate({"matchLabels": {"app": "web"}, "matchExpressions": [
        {"key": "tier", "operator": "In", "values": ["1", "2"]}, {"key": "gone", "operator": "DoesNotExist"}]})
    assert selector_matches(sel, labels) and not selector_matches(sel, {"app": "web", "tier": "3"})
    assert not selector_matches(LabelSelector.model_validate(
        {"matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["1"]}]}), labels)


def test_percentages_round_up():
    assert (scaled("50%", 3), scaled("34%", 3), scaled(2, 3), scaled("0%", 5)) == (2, 2, 2, 0)


def test_min_available_counts_every_matching_pod():
    assert allowed([*pods(4), budget("b", {"app": "web"}, minAvailable=1)])[0] == 3
    assert allowed([*pods(4), budget("b", {"app": "web"}, minAvailable="50%", )])[0] == 0   # no controller
    assert allowed([*pods(4, owner=True), budget("b", {"app": "web"}, minAvailable="50%")])[0] == 2


def test_max_unavailable_needs_controllers():
    assert allowed([*pods(3), budget("b", {"app": "web"}, maxUnavailable=1)])[0] == 0
    assert allowed([*pods(3, owner=True), budget("b", {"app": "web"}, maxUnavailable=1)])[0] == 1
    assert allowed([*pods(3, owner=True), budget("b", {"app": "web"}, maxUnavailable="10%")])[0] == 1


def test_unready_pods_and_the_unhealthy_policy():
    docs = [*pods(3, ready=[True, True, False]), budget("b", {"app": "web"}, minAvailable=1)]
    n, of_pod = allowed(docs)
    assert n == 1 and "default/p2" not in of_pod and "default/p0" in of_pod      # budget met: p2 uses none
    docs = [*pods(3, ready=[True, False, False]), budget("b", {"app": "web"}, minAvailable=2)]
    n, of_pod = allowed(docs)
    assert n == 0 and "default/p2" in of_pod                                     # not met: p2 counts
    docs[-1]["spec"]["unhealthyPodEvictionPolicy"] = "AlwaysAllow"
    assert "default/p2" not in allowed(docs)[1]


def test_the_status_wins_once_the_controller_has_seen_the_spec():
    b = budget("b", {"app": "web"}, minAvailable=3)
    b["metadata"]["generation"] = 2
    b["status"] = {"observedGeneration": 2, "disruptionsAllowed": 2, "currentHealthy": 4, "desiredHealthy": 2}
    assert allowed([*pods(4), b])[0] == 2
    b["status"]["observedGeneration"] = 1                                        # stale: computed instead
    assert allowed([*pods(4), b])[0] == 1


def test_priority_classes():
    pc = [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000},
          {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "base"}, "value": 7,
           "globalDefault": True}]
    docs = [*pods(2), *pc]
    for doc in docs:
        if doc["kind"] == "Pod":
            del doc["spec"]["priority"]
    docs[-3]["spec"]["priorityClassName"] = "high"   # p1
    run = running_state(objects(docs))
    assert (run.pods["default/p0"].priority, run.pods["default/p1"].priority) == (7, 1000)
    docs[-3]["spec"]["priorityClassName"] = "missing"
    with pytest.raises(InputError, match="PriorityClass 'missing' not found"):
        running_state(objects(docs))
