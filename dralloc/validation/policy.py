"""What the API server rejects in the objects ``plan make-room`` and ``plan
drain`` read besides pods and claims: a PodDisruptionBudget (policy/v1), a
PriorityClass (scheduling.k8s.io/v1), a DeviceTaintRule (resource.k8s.io
v1alpha3, v1beta2, v1)."""

from __future__ import annotations

import re

from dralloc.models import DeviceTaintRule, LabelSelector, PodDisruptionBudget, PriorityClass
from dralloc.validation import formats as f
from dralloc.validation.claims import selectors
from dralloc.validation.finding import Collector
from dralloc.validation.slices import check_taint, pool_name

PERCENT = re.compile(r"^[0-9]+%$")
SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
UNHEALTHY_POLICIES = ("IfHealthyBudget", "AlwaysAllow")
PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")
HIGHEST_USER_PRIORITY = 1_000_000_000        # scheduling.HighestUserDefinablePriority
SYSTEM_CLASSES = {"system-cluster-critical": 2_000_000_000, "system-node-critical": 2_000_001_000}


def label_selector(c: Collector, path: str, sel: LabelSelector | None) -> None:
    """metav1.LabelSelector: label keys and values; In/NotIn need values,
    Exists/DoesNotExist take none."""
    if sel is None:
        return
    for k, v in (sel.match_labels or {}).items():
        f.label_key(c, f"{path}.matchLabels[{k}]", k, "label key")
        f.label_value(c, f"{path}.matchLabels[{k}]", v, "label value")
    for i, r in enumerate(sel.match_expressions or []):
        rp = f"{path}.matchExpressions[{i}]"
        f.label_key(c, f"{rp}.key", r.key, "label key")
        if r.operator not in SELECTOR_OPERATORS:
            c.add(f"{rp}.operator", "selector.operator",
                  f"operator {r.operator!r} is not one of {', '.join(SELECTOR_OPERATORS)}")
        elif r.operator in ("In", "NotIn") and not r.values:
            c.add(f"{rp}.values", "selector.values", f"operator {r.operator} needs at least one value")
        elif r.operator in ("Exists", "DoesNotExist") and r.values:
            c.add(f"{rp}.values", "selector.values", f"operator {r.operator} takes no values")
        for j, v in enumerate(r.values or []):
            f.label_value(c, f"{rp}.values[{j}]", v, "label value")


def _int_or_percent(c: Collector, path: str, value: int | str | None) -> None:
    if value is None:
        return
    if isinstance(value, bool) or (isinstance(value, int) and value < 0):
        c.add(path, "budget.value", f"{value!r} must be a non-negative integer or a percentage")
    elif isinstance(value, int):
        f.int32(c, path, value, path.rsplit(".", 1)[-1])
    elif isinstance(value, str):
        if not PERCENT.match(value):
            c.add(path, "budget.value", f"{value!r} must be a non-negative integer or a percentage such as '50%'")
        elif int(value[:-1]) > 100:
            c.add(path, "budget.value", f"{value!r} must not be more than 100%")


def check_budget(c: Collector, pdb: PodDisruptionBudget) -> None:
    spec = pdb.spec
    if spec.min_available is not None and spec.max_unavailable is not None:
        c.add("spec", "budget.one-of", "minAvailable and maxUnavailable cannot be both set")
    _int_or_percent(c, "spec.minAvailable", spec.min_available)
    _int_or_percent(c, "spec.maxUnavailable", spec.max_unavailable)
    label_selector(c, "spec.selector", spec.selector)
    policy = spec.unhealthy_pod_eviction_policy
    if policy is not None and policy not in UNHEALTHY_POLICIES:
        c.add("spec.unhealthyPodEvictionPolicy", "budget.unhealthy-policy",
              f"{policy!r} is not one of {', '.join(UNHEALTHY_POLICIES)}")


def check_priority_class(c: Collector, pc: PriorityClass) -> None:
    if pc.name in SYSTEM_CLASSES:
        if pc.value != SYSTEM_CLASSES[pc.name]:
            c.add("value", "priority.system", f"the system class {pc.name} has value {SYSTEM_CLASSES[pc.name]}")
    elif pc.name.startswith("system-"):
        c.add("metadata.name", "priority.system", f"{pc.name!r}: the prefix 'system-' is reserved")
    elif pc.value > HIGHEST_USER_PRIORITY:
        c.add("value", "priority.value", f"{pc.value} is above the highest user priority {HIGHEST_USER_PRIORITY}")
    if not -(2**31) <= pc.value < 2**31:
        c.add("value", "format.int32", f"value {pc.value} does not fit in a 32-bit integer")
    if pc.preemption_policy is not None and pc.preemption_policy not in PREEMPTION_POLICIES:
        c.add("preemptionPolicy", "priority.preemption",
              f"{pc.preemption_policy!r} is not one of {', '.join(PREEMPTION_POLICIES)}")


def check_taint_rule(c: Collector, rule: DeviceTaintRule) -> None:
    check_taint(c, "spec.taint", rule.spec.taint)
    sel = rule.spec.device_selector
    if sel is None:
        return
    if sel.driver is not None:
        f.driver_name(c, "spec.deviceSelector.driver", sel.driver)
    if sel.pool is not None:
        pool_name(c, "spec.deviceSelector.pool", sel.pool)
    if sel.device is not None:
        f.dns_label(c, "spec.deviceSelector.device", sel.device, "device name")
    alpha = rule.api_version.endswith("/v1alpha3")
    for name, value in (("deviceClassName", sel.device_class_name), ("selectors", sel.selectors)):
        if value is not None and not alpha:
            c.add(f"spec.deviceSelector.{name}", "taint-rule.field",
                  f"{name} exists only in resource.k8s.io/v1alpha3 as Kubernetes 1.33-1.34 served it "
                  f"(removed in 1.35), not in {rule.api_version}")
    if sel.device_class_name is not None:
        f.dns_subdomain(c, "spec.deviceSelector.deviceClassName", sel.device_class_name, "device class name")
    if alpha and sel.selectors is not None:
        selectors(c, "spec.deviceSelector.selectors", sel.selectors)
