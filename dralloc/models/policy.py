"""Disruption and priority: PodDisruptionBudget (policy/v1) and PriorityClass
(scheduling.k8s.io/v1), read by ``dralloc plan make-room`` and ``plan drain``
to decide which running pods may be disrupted."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from dralloc.models.base import FreeForm, IntOrString, K8sModel, OpenModel
from dralloc.models.core import LabelSelector, TypedObject


class PodDisruptionBudgetSpec(K8sModel):
    """At most one of ``minAvailable`` and ``maxUnavailable`` (an integer or
    a percentage such as "50%"); ``selector`` picks the pods of the budget's
    namespace it guards (missing: none; empty: all)."""

    min_available: IntOrString | None = None
    max_unavailable: IntOrString | None = None
    selector: LabelSelector | None = None
    unhealthy_pod_eviction_policy: str | None = None


class PodDisruptionBudgetStatus(OpenModel):
    """What the disruption controller last computed; the eviction API decides
    from it (when ``observedGeneration`` has caught up with the spec)."""

    observed_generation: int | None = None
    disrupted_pods: dict[str, str] | None = None
    disruptions_allowed: int | None = None
    current_healthy: int | None = None
    desired_healthy: int | None = None
    expected_pods: int | None = None
    conditions: list[dict[str, FreeForm]] | None = None


class PodDisruptionBudget(TypedObject, OpenModel):
    kind: Literal["PodDisruptionBudget"] = "PodDisruptionBudget"
    api_version: str = "policy/v1"
    spec: PodDisruptionBudgetSpec = Field(default_factory=PodDisruptionBudgetSpec)
    status: PodDisruptionBudgetStatus | None = None


class PriorityClass(TypedObject, OpenModel):
    """A named priority: pods naming it in ``spec.priorityClassName`` get its
    ``value`` (the API server's Priority admission writes ``spec.priority``);
    the one ``globalDefault`` class gives the value of pods naming none."""

    kind: Literal["PriorityClass"] = "PriorityClass"
    api_version: str = "scheduling.k8s.io/v1"
    value: int = 0
    global_default: bool | None = None
    preemption_policy: str | None = None
    description: str | None = None
