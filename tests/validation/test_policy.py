"""What the API server refuses in PodDisruptionBudgets, PriorityClasses and
DeviceTaintRules (read by plan make-room and plan drain)."""

from __future__ import annotations

import pytest

from dralloc.io import ObjectSet
from dralloc.io.loader import parse_object
from dralloc.validation import object_findings


def findings(doc: dict) -> list[tuple[str, str]]:
    objs = ObjectSet()
    objs.add(parse_object(doc, "test"))
    return [(f.field, f.rule) for f in object_findings(objs)]


def pdb(**spec: object) -> dict:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "b", "namespace": "x"},
            "spec": spec}


@pytest.mark.parametrize("spec,bad", [
    ({"minAvailable": 1, "maxUnavailable": 1}, ("spec", "budget.one-of")),
    ({"minAvailable": -1}, ("spec.minAvailable", "budget.value")),
    ({"maxUnavailable": 2**31}, ("spec.maxUnavailable", "format.int32")),   # intstr's integer is an int32
    ({"maxUnavailable": "50"}, ("spec.maxUnavailable", "budget.value")),
    ({"maxUnavailable": "150%"}, ("spec.maxUnavailable", "budget.value")),
    ({"minAvailable": 1, "unhealthyPodEvictionPolicy": "Sometimes"},
     ("spec.unhealthyPodEvictionPolicy", "budget.unhealthy-policy")),
    ({"minAvailable": 1, "selector": {"matchExpressions": [{"key": "a", "operator": "In"}]}},
     ("spec.selector.matchExpressions[0].values", "selector.values")),
    ({"minAvailable": 1, "selector": {"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]}},
     ("spec.selector.matchExpressions[0].operator", "selector.operator")),
])
def test_bad_budgets(spec, bad):
    assert bad in findings(pdb(**spec))


def test_good_budget():
    assert findings(pdb(minAvailable="50%", selector={"matchLabels": {"app": "web"}},
                        unhealthyPodEvictionPolicy="AlwaysAllow")) == []


def pc(name: str, value: int) -> dict:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": value}


def test_priority_classes():
    assert findings(pc("high", 1000)) == []
    assert ("value", "priority.value") in findings(pc("huge", 2_000_000_000))
    assert ("metadata.name", "priority.system") in findings(pc("system-mine", 5))
    assert findings(pc("system-node-critical", 2_000_001_000)) == []


def rule(version: str, selector: dict, effect: str = "NoExecute") -> dict:
    return {"apiVersion": f"resource.k8s.io/{version}", "kind": "DeviceTaintRule", "metadata": {"name": "r"},
            "spec": {"deviceSelector": selector, "taint": {"key": "example.com/m", "effect": effect}}}


def test_device_taint_rules():
    assert findings(rule("v1", {"driver": "gpu.example.com", "pool": "node-a", "device": "gpu-0"})) == []
    assert findings(rule("v1beta2", {})) == []
    assert ("spec.taint.effect", "device.taints.effect") in findings(rule("v1", {}, "PreferNoSchedule"))
    assert ("spec.deviceSelector.selectors", "taint-rule.field") in findings(
        rule("v1", {"selectors": [{"cel": {"expression": "true"}}]}))
    assert findings(rule("v1alpha3", {"selectors": [{"cel": {"expression": "true"}}]})) == []
