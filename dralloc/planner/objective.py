"""What the planner's optimum maximises (``plan --objective``), in one place.

* ``priority`` (the default): pods placed, each priority level above all
  pods of lower priorities together (exact integer weights: the optimum is
  the lexicographic one, highest priority first).
* ``pods``: pods placed, every pod alike.
* ``gpus``: GPUs placed. A device is a GPU when its driver is a GPU driver
  (its name starts with ``gpu.``: ``gpu.nvidia.com``, ``gpu.amd.com``,
  ``gpu.intel.com``); a whole GPU counts 1, a partition (a device consuming
  counters) the share of its counter set's ``multiprocessors`` it takes
  (NVIDIA's DynamicMIG: a 1g on an A100 is 14 of 98, 1/7; 3g 3/7; 7g 1), or,
  without such a counter, the largest share it takes of any counter. NICs
  and other devices count 0.
* ``devices``: devices allocated, every device 1.

A pod's weight is fixed before solving: what its claims are given at the
least -- per request its device count (``All``: the devices it matches) times
the smallest share among the devices it may take (the allocator's own
candidates: class and request selectors, node selection, taints), for
``firstAvailable`` the cheapest alternative, on the node type where that is
least. A claim several pods share (``resourceClaimName``, a PodGroup-level
claim, a lone claim) is split equally over the pods using it. The weights
are integers over a common ``scale`` (GPU shares in sevenths become whole
numbers); values are reported in the objective's units, exactly."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from math import lcm
from typing import Any

from dralloc.errors import InputError

OBJECTIVES = {
    "priority": "pods placed, each priority above all lower ones together",
    "pods": "pods placed",
    "gpus": "GPUs placed (a MIG device: its share of the GPU)",
    "devices": "devices allocated",
}
DEFAULT = "priority"
UNITS = {"priority": "pods", "pods": "pods", "gpus": "GPUs", "devices": "devices"}
GPU_DRIVER_PREFIX = "gpu."
COMPUTE = "multiprocessors"


def check(name: str) -> str:
    if name not in OBJECTIVES:
        raise InputError(f"--objective {name}: choose one of {', '.join(OBJECTIVES)}")
    return name


@dataclass(frozen=True)
class Weights:
    """Integer weight of one pod (replica) per pod name; ``scale``: the
    weighted value divided by it is the value in ``unit``s (``priority``:
    lexicographic weights, no unit of their own)."""

    objective: str = DEFAULT
    per_pod: dict[str, int] = field(default_factory=dict)
    scale: int = 1

    @property
    def unit(self) -> str:
        return UNITS[self.objective]

    @property
    def measured(self) -> bool:
        """The objective counts something other than pods (GPUs, devices)."""
        return self.objective in ("gpus", "devices")

    def of(self, name: str) -> int:
        return self.per_pod[name]

    def value(self, weighted: int | Fraction) -> Fraction:
        """A weighted total in the objective's units."""
        return Fraction(weighted) / self.scale

    def describe(self) -> dict[str, Any]:
        return {"name": self.objective, "maximises": OBJECTIVES[self.objective], "unit": self.unit}


def exact(v: Fraction) -> int | str:
    """An exact value for the report: an integer, else ``"n/d"``."""
    return v.numerator if v.denominator == 1 else str(v)


def lexicographic(pods: Iterable[tuple[str, int, int]]) -> dict[str, int]:
    """(name, priority, replicas) -> a weight per pod such that one more pod
    of a priority outweighs every pod of all lower priorities."""
    items = list(pods)
    per_level: dict[int, int] = {}
    below = 0
    for level in sorted({p for _, p, _ in items}):
        per_level[level] = below + 1
        below += per_level[level] * sum(n for _, p, n in items if p == level)
    return {name: per_level[p] for name, p, _ in items}


def make_weights(objective: str, pods: Sequence[tuple[str, int, int]], values: Mapping[str, Fraction] | None = None,
                 forced: Iterable[str] = ()) -> Weights:
    """Integer weights for (name, priority, replicas) pods: ``priority``
    lexicographic, ``pods`` 1 each, ``gpus``/``devices`` the pods' ``values``
    over a common scale. ``forced`` pods outweigh all the others together
    (what must be placed first, e.g. the claims a re-pack puts back)."""
    check(objective)
    must = set(forced)
    rest = [p for p in pods if p[0] not in must]
    scale = 1
    if objective == "priority":
        base = lexicographic(rest)
    elif objective == "pods":
        base = {name: 1 for name, _, _ in rest}
    else:
        if values is None or any(name not in values for name, _, _ in rest):
            raise InputError(f"objective {objective}: the pods' {UNITS[objective]} are not known (a dralloc bug)")
        scale = lcm(*(values[name].denominator for name, _, _ in rest)) if rest else 1
        base = {name: int(values[name] * scale) for name, _, _ in rest}
    top = 1 + sum(base[name] * n for name, _, n in rest)
    base.update({name: top for name, _, _ in pods if name in must})
    return Weights(objective, base, scale)
