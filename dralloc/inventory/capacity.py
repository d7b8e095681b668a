"""Consumable capacity (DRAConsumableCapacity): how much of a device's
capacity a request consumes, request policies, and the over-capacity check
(spec §4.6, CC-*). All arithmetic is exact (Fractions)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction

from dralloc.models import CapacityRequestPolicy, DeviceCapacity
from dralloc.quantity import Quantity

CapMap = dict[str, Fraction]


class UnknownCapacity(Exception):
    """The request names a capacity the device does not declare."""


def _round_up_range(r: Fraction, policy: CapacityRequestPolicy) -> Fraction:
    rng = policy.valid_range
    assert rng is not None and rng.min is not None
    mn = rng.min.value
    if r < mn:
        return mn
    if rng.step is None:
        return r
    big_r, big_m, big_s = math.ceil(r), math.ceil(mn), math.ceil(rng.step.value)
    n = (big_r - big_m) // big_s
    if (big_r - big_m) % big_s:
        n += 1
    return Fraction(big_m + big_s * n)


def calculate_consumed(requested: Quantity | None, cap: DeviceCapacity) -> Fraction:
    """CC-2: the amount one share consumes of ``cap``."""
    p = cap.request_policy
    if requested is None:
        if p is not None and p.default is not None:
            return p.default.value
        return cap.value.value
    r = requested.value
    if p is None:
        return r
    if p.valid_range is not None and p.valid_range.min is not None:
        return _round_up_range(r, p)
    if p.valid_values:
        for v in p.valid_values:
            if v.value >= r:
                return v.value
        return r
    return r


def is_integer_quantity(value: Fraction, policy: CapacityRequestPolicy | None, requested: Quantity | None) -> bool:
    """Whether CC-3 produced the value (so it prints in binary-SI integer form)."""
    return (requested is not None and policy is not None and policy.valid_range is not None
            and policy.valid_range.min is not None and policy.valid_range.step is not None
            and value >= policy.valid_range.min.value)


def violates_policy(c: Fraction, p: CapacityRequestPolicy | None) -> bool:
    """CC-4."""
    if p is None:
        return False
    if p.default is not None and c == p.default.value:
        return False
    if p.valid_range is not None:
        rng = p.valid_range
        if rng.max is not None and c > rng.max.value:
            return True
        if rng.step is not None:
            mn = math.ceil(rng.min.value) if rng.min is not None else 0
            if (math.ceil(c) - mn) % math.ceil(rng.step.value) != 0:
                return True
        return False
    if p.valid_values:
        return all(c != v.value for v in p.valid_values)
    return False


def request_over_capacity_ok(requests: Mapping[str, Quantity] | None,
                             capacity: Mapping[str, DeviceCapacity] | None,
                             committed: Mapping[str, Fraction] | None,
                             tentative: Mapping[str, Fraction] | None) -> bool:
    """CC-1 ``CmpRequestOverCapacity``: True when the request fits. Raises
    :class:`UnknownCapacity` when it names a capacity the device lacks."""
    reqs = requests or {}
    caps = capacity or {}
    for name in reqs:
        if name not in caps:
            raise UnknownCapacity(name)
    total: CapMap = dict(committed or {})
    for name, cap in caps.items():
        c = calculate_consumed(reqs.get(name), cap)
        if violates_policy(c, cap.request_policy):
            return False
        total[name] = total.get(name, Fraction(0)) + c
        if tentative and name in tentative:
            total[name] += tentative[name]
        if total[name] > cap.value.value:
            return False
    return True


def consumed_from_request(requests: Mapping[str, Quantity] | None,
                          capacity: Mapping[str, DeviceCapacity] | None) -> dict[str, Quantity]:
    """CC-5: what one share records as consumed, for every declared capacity."""
    reqs = requests or {}
    out: dict[str, Quantity] = {}
    for name, cap in (capacity or {}).items():
        requested = reqs.get(name)
        v = calculate_consumed(requested, cap)
        if requested is None:
            src = cap.request_policy.default if cap.request_policy and cap.request_policy.default is not None else cap.value
            out[name] = src
        elif is_integer_quantity(v, cap.request_policy, requested):
            out[name] = Quantity(v, "BinarySI")
        elif v == requested.value:
            out[name] = requested
        else:
            out[name] = Quantity(v, requested.format)
    return out
