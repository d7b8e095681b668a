"""The answer of an allocation call, in every mode."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from dralloc.models import AllocationResult, ResourceClaim

# the note of a CP-SAT mode that handed the question to the replay
REPLAY_NOTE = "answered by replay"


class Status(str, Enum):
    ALLOCATED = "allocated"          # every claim got devices
    UNSATISFIABLE = "unsatisfiable"  # cannot allocate on this node (no error)
    ERROR = "error"                  # a fatal error, as Kubernetes returns one
    PARTIAL = "partial"              # optimal mode with optional claims: some allocated


COMPARE = ("auto", "always", "never")  # how first-fit finds out Kubernetes' own answer


@dataclass
class KubernetesAnswer:
    """What first-fit knows of Kubernetes' own answer to the same question.

    ``how`` says how it is known: ``no trigger`` (no documented defect can fire
    here, so first-fit's answer is Kubernetes'), ``replay`` (the replay of
    Kubernetes' search finished), ``proof`` (the solver proved it, see
    docs/engine.md), ``stopped`` (the replay stopped at its time limit: not
    known), ``not compared`` (``compare="never"``)."""

    how: str
    known: bool
    same: bool | None = None            # equal to first-fit's answer (None: not known)
    outcome: Outcome | None = None      # Kubernetes' answer when known and different
    statement: str = ""                 # what is known, in words
    triggers: list[str] = field(default_factory=list)  # defect triggers that hold (static)
    seen: list[str] = field(default_factory=list)      # defects the replay saw fire, with the step
    steps: int = 0                      # replay steps run (0: no replay)
    seconds: float = 0.0                # time spent comparing (replay and proofs)

    def __str__(self) -> str:
        return f"Kubernetes' answer ({self.how}): {self.statement}"


@dataclass
class Outcome:
    status: Status
    mode: str
    node: str
    claims: list[str]
    allocations: list[AllocationResult] | None = None
    error: str | None = None
    steps: int = 0                     # allocateOne invocations (replay)
    reasons: list[str] = field(default_factory=list)
    defects: list[str] = field(default_factory=list)   # Kubernetes defects that shaped the answer
    notes: list[str] = field(default_factory=list)
    solver: dict[str, object] = field(default_factory=dict)  # CP-SAT status, objective, bound, time
    verified: bool | None = None       # checked by the independent verifier (None: not checked)
    findings: list[str] = field(default_factory=list)  # the verifier's error findings
    kubernetes: KubernetesAnswer | None = None  # first-fit: what is known of Kubernetes' answer
    # the state the answer was computed from, when a dralloc.Cluster gave it (its commit() checks it)
    basis: object = field(default=None, compare=False, repr=False)
    # A pod on a node (dralloc.cluster.pods.on_node): claims as the scheduler builds them for this node
    # where they differ from those asked (the extended-resource claim, dralloc.extended), what the node's
    # device plugins give the pod, and the request mapping its status.extendedResourceClaimStatus gets.
    instances: dict[str, ResourceClaim] = field(default_factory=dict)
    device_plugin: dict[str, int] = field(default_factory=dict)
    request_mappings: list[dict[str, str]] = field(default_factory=list)

    @property
    def by_replay(self) -> bool:
        """Whether the Kubernetes search gave this answer (mode replay, or a
        CP-SAT mode that handed the question to it)."""
        return self.mode == "replay" or any(n.startswith(REPLAY_NOTE) for n in self.notes)

    @property
    def ok(self) -> bool:
        return self.status is Status.ALLOCATED

    def __str__(self) -> str:
        head = f"{self.mode} on node {self.node or '<none>'}: {self.status.value}"
        lines = [head]
        if self.error:
            lines.append(f"  error: {self.error}")
        if self.allocations is not None:
            for key, alloc in zip(self.claims, self.allocations, strict=False):
                devs = alloc.devices.results if alloc.devices and alloc.devices.results else []
                shown = ", ".join(f"{r.request}={r.driver}/{r.pool}/{r.device}" for r in devs) or "no devices"
                lines.append(f"  {key}: {shown}")
        if self.device_plugin:
            lines.append("  device plugin: " + ", ".join(f"{n}={v}" for n, v in self.device_plugin.items()))
        for r in self.reasons:
            lines.append(f"  why: {r}")
        for d in self.defects:
            lines.append(f"  defect: {d}")
        for f in self.findings:
            lines.append(f"  verifier: {f}")
        if self.steps:
            lines.append(f"  search steps: {self.steps}")
        if self.kubernetes is not None:
            lines.append(f"  {self.kubernetes}")
        return "\n".join(lines)
