"""What the API server enforces for a device capacity's ``requestPolicy``
(consumable capacity, KEP-5075): only on devices that allow multiple
allocations; ``validValues`` and ``validRange`` exclusive; every option,
bound and step within the capacity; the default one of the allowed values.

Arithmetic is exact (fractions), where Kubernetes reads integers; a step
check on a bound beyond the int64 range is refused as Kubernetes refuses it."""

from __future__ import annotations

from dralloc.models.resource import (
    CapacityRequestPolicy,
    CapacityRequestPolicyRange,
    DeviceCapacity,
)
from dralloc.quantity import Quantity
from dralloc.validation.finding import WARNING, Collector
from dralloc.validation.formats import INT64_MAX

MAX_VALID_VALUES = 10
RULE = "device.capacity.policy"


def capacity(c: Collector, path: str, cap: DeviceCapacity, multi: bool) -> None:
    if cap.value.sign() < 0:
        c.add(f"{path}.value", "device.capacity.value", "a negative capacity is accepted by the API server "
              "but no request can use it as meant", WARNING)
    pol = cap.request_policy
    if pol is None:
        return
    if not multi:
        c.add(f"{path}.requestPolicy", RULE, "a requestPolicy needs allowMultipleAllocations: true on the device")
        return
    pp = f"{path}.requestPolicy"
    if pol.valid_values and pol.valid_range is not None:
        c.add(pp, RULE, "validValues and validRange are mutually exclusive")
    elif pol.valid_values:
        _valid_values(c, pp, pol, cap.value)
    elif pol.valid_range is not None:
        if pol.default is None:
            c.add(f"{pp}.default", RULE, "default is required with validRange")
        else:
            _valid_range(c, f"{pp}.validRange", pol.default, pol.valid_range, cap.value)


def _valid_values(c: Collector, path: str, pol: CapacityRequestPolicy, most: Quantity) -> None:
    values = pol.valid_values or []
    if pol.default is None:
        c.add(f"{path}.default", RULE, "default is required with validValues")
        return
    vp = f"{path}.validValues"
    for i in range(1, len(values)):
        if values[i - 1] > values[i]:
            c.add(f"{vp}[{i}]", RULE, "validValues must be sorted in ascending order")
    if c.limit(vp, RULE, "validValues", len(values), MAX_VALID_VALUES):
        return
    seen: set[Quantity] = set()
    for i, v in enumerate(values):
        if v > most:
            c.add(f"{vp}[{i}]", RULE, f"option {v} is larger than the capacity {most}")
        if v in seen:
            c.add(f"{vp}[{i}]", RULE, f"duplicate option {v}")
        seen.add(v)
    if pol.default not in seen:
        c.add(vp, RULE, f"the default {pol.default} is not one of validValues")


def _valid_range(c: Collector, path: str, default: Quantity, rng: CapacityRequestPolicyRange,
                 most: Quantity) -> None:
    lo = rng.min
    if lo is None:
        c.add(f"{path}.min", RULE, "min is required with validRange")
        return
    if lo > most:
        c.add(f"{path}.min", RULE, f"min {lo} is larger than the capacity {most}")
    if default < lo:
        c.add(f"{path}.default", RULE, f"default {default} is less than min {lo}")
    hi = rng.max
    if hi is not None:
        if lo > hi:
            c.add(f"{path}.max", RULE, f"min {lo} is larger than max {hi}")
        if hi > most:
            c.add(f"{path}.max", RULE, f"max {hi} is larger than the capacity {most}")
        if default > hi:
            c.add(f"{path}.default", RULE, f"default {default} is more than max {hi}")
    step = rng.step
    if step is None:
        return
    if step.sign() <= 0:
        c.add(f"{path}.step", RULE, "step must be greater than zero")
        return
    if lo + step > most:
        c.add(f"{path}.step", RULE, f"one step above min ({lo + step}) is larger than the capacity {most}")
    bounds = {"default": default, "min": lo, "max": hi, "step": step}
    unsafe = [k for k, q in bounds.items() if q is not None and not 0 <= q.value <= INT64_MAX]
    for k in unsafe:
        c.add(f"{path}.{k}", RULE, f"{k} must be between 0 and {INT64_MAX} when a step is set")
    if unsafe:
        return
    for name, v in (("default", default), ("max", hi)):
        if v is not None and (v.value - lo.value) % step.value != 0:
            c.add(f"{path}.step", RULE, f"{name} {v} is not min {lo} plus a multiple of step {step}")
