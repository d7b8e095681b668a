"""Findings of the verifier and the report that collects them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ERROR, WARNING, INFO = "error", "warning", "info"
LEVELS = (INFO, WARNING, ERROR)  # ascending severity

# Rule ids -> one line of what the rule demands (docs/verify.md lists them too).
RULES = {
    "device-exists": "every result names a device published in a ResourceSlice",
    "pool-usable": "the device's pool is complete and valid for the node",
    "device-on-node": "the device is available on the node the claim is used on",
    "request": "every result names a request (or chosen sub-request) of the claim",
    "first-available": "at most one alternative of a prioritized list is used",
    "selector": "the device matches the class and request selectors",
    "binding-conditions": "devices with binding conditions only when the feature is on; results copy the "
                          "device's bindingConditions/bindingFailureConditions then, none otherwise",
    "count": "an ExactCount request gets exactly count devices",
    "all-devices": "an All request gets every matching device of the node and no other, and the pools are usable",
    "max-results": "a claim holds at most 32 results",
    "match-attribute": "all devices of the constrained requests share one attribute value",
    "distinct-attribute": "the devices of the constrained requests have pairwise distinct values",
    "double-allocation": "no device held twice unless sharing is allowed",
    "counters": "the devices held within each counter set stay within its counters",
    "capacity": "the shares of a device stay within its capacity; a request's capacity requests fit the "
                "device and its request policy",
    "admin-access": "a result has adminAccess exactly when its request asks for admin access",
    "tolerations": "a result carries its request's tolerations, all of them",
    "share-id": "a share of a shared device has a UUID shareID of its own; other results have none",
    "consumed-capacity": "a share records what its request consumes of every capacity of the device; "
                         "other results record nothing",
    "config": "devices.config holds the class and claim configuration Kubernetes copies, in its order",
    "taint": "every NoSchedule/NoExecute taint of a device is tolerated by its request",
    "node-selector": "the claim's nodeSelector is the one Kubernetes computes",
    "pod-node": "the pods using the claim run on existing nodes its nodeSelector admits",
    "claim-invalid": "the claim is one Kubernetes accepts for allocation",
    "kubernetes-answer": "the cluster's answer equals the Kubernetes allocator's (replayed)",
    "extended-resources": "a pod's extended resources a DeviceClass serves have the extended-resource claim "
                          "kube-scheduler makes on its node (requests, allocation, the pod status' mapping)",
    "pending": "why a pending pod's (or gang's) claims are not allocated, and whether they fit",
    "input": "the state can be read",
}


@dataclass(frozen=True)
class Finding:
    """One violation (or observation): its level, the rule, the claim it is
    about, a sentence, and the objects and fields involved."""

    level: str
    rule: str
    claim: str
    message: str
    objects: tuple[str, ...] = ()
    fields: tuple[str, ...] = ()
    detail: str = ""  # classification (e.g. the Kubernetes defect it matches)

    def __str__(self) -> str:
        who = f"{self.claim}: " if self.claim else ""
        extra = f" ({self.detail})" if self.detail else ""
        return f"{self.level}: [{self.rule}] {who}{self.message}{extra}"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"level": self.level, "rule": self.rule, "claim": self.claim,
                               "message": self.message}
        if self.objects:
            out["objects"] = list(self.objects)
        if self.fields:
            out["fields"] = list(self.fields)
        if self.detail:
            out["detail"] = self.detail
        return out


def error(rule: str, claim: str, message: str, objects: tuple[str, ...] = (),
          fields: tuple[str, ...] = (), detail: str = "") -> Finding:
    return Finding(ERROR, rule, claim, message, objects, fields, detail)


def level_at_least(level: str, threshold: str) -> bool:
    return LEVELS.index(level) >= LEVELS.index(threshold)


@dataclass
class Report:
    """Everything ``verify_state`` found, plus counts of what was looked at."""

    findings: list[Finding] = field(default_factory=list)
    checked_claims: int = 0
    allocated_claims: int = 0
    replayed_pods: int = 0
    pending_pods: int = 0
    pending: list[dict[str, Any]] = field(default_factory=list)

    def worst(self) -> str | None:
        levels = [f.level for f in self.findings]
        return max(levels, key=LEVELS.index) if levels else None

    def failing(self, threshold: str) -> list[Finding]:
        return [f for f in self.findings if level_at_least(f.level, threshold)]

    def to_dict(self) -> dict[str, Any]:
        """The report as data, with camelCase keys as in Kubernetes objects."""
        return {
            "summary": {"claims": self.checked_claims, "allocated": self.allocated_claims,
                        "replayedPods": self.replayed_pods, "pendingPods": self.pending_pods,
                        "errors": sum(f.level == ERROR for f in self.findings),
                        "warnings": sum(f.level == WARNING for f in self.findings),
                        "infos": sum(f.level == INFO for f in self.findings)},
            "findings": [f.to_dict() for f in self.findings],
            "pending": self.pending,
        }
