"""Consumable capacity (DRAConsumableCapacity): how much of a device's
capacity a request consumes, request policies, and the over-capacity check
(spec §4.6, CC-*). All arithmetic is exact (Fractions).

The ``*_live`` functions are for the replay only: they work on
request cells (:class:`RequestCell`), which hold a claim's capacity request the way Go does
during one allocation, so that they reproduce the inf.Dec aliasing defect
(``quantity-dec-aliasing``): where ``calculateConsumedCapacity`` hands back the
request itself (a struct copy that shares its ``*inf.Dec``), adding the
device's tentative capacity to that copy grows the claim's request."""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Protocol

from dralloc.models import CapacityRequestPolicy, DeviceCapacity
from dralloc.quantity import Quantity

CapMap = dict[str, Fraction]


class UnknownCapacity(Exception):
    """The request names a capacity the device does not declare."""


class _Valued(Protocol):
    @property
    def value(self) -> Fraction: ...


class RequestCell:
    """One capacity request of one claim request, as Go holds it while the
    allocator runs. When Go parsed the text into an ``*inf.Dec``
    (:attr:`Quantity.inf_dec`), every by-value copy shares it, and ``Add`` on
    a copy changes :attr:`value` here; otherwise copies are independent and
    the value never changes."""

    __slots__ = ("value", "format", "shared", "grew")

    def __init__(self, q: Quantity) -> None:
        self.value: Fraction = q.value
        self.format: str = q.format
        self.shared: bool = q.inf_dec
        self.grew = False  # aliasing changed the value at least once

    def quantity(self) -> Quantity:
        """A snapshot (what ``DeepCopy`` gives)."""
        return Quantity(self.value, self.format, inf_dec=self.shared)

    def __repr__(self) -> str:
        return f"RequestCell({self.quantity()!r}, shared={self.shared})"


def request_cells(requests: Mapping[str, Quantity] | None) -> dict[str, RequestCell] | None:
    """Cells for a request's capacity requests, or None when none of them is
    an ``inf.Dec`` in Go (then nothing can alias and the plain functions do)."""
    if not requests or not any(q.inf_dec for q in requests.values()):
        return None
    return {name: RequestCell(q) for name, q in requests.items()}


def returns_request(r: Fraction, cap: DeviceCapacity) -> bool:
    """Whether ``calculateConsumedCapacity`` returns the request itself (a copy
    sharing its ``inf.Dec``) rather than a deep copy or a new quantity: the
    device has a request policy, and that policy leaves the value alone
    (no ``validRange.min`` and no ``validValues``; a range without step the
    request is already inside; valid values all below the request)."""
    p = cap.request_policy
    if p is None:
        return False  # DeepCopy
    rng = p.valid_range
    if rng is not None and rng.min is not None:
        return rng.step is None and r >= rng.min.value
    return all(v.value < r for v in p.valid_values or ())


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


def calculate_consumed(requested: _Valued | None, cap: DeviceCapacity) -> Fraction:
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


def is_integer_quantity(value: Fraction, policy: CapacityRequestPolicy | None, requested: _Valued | None) -> bool:
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
    return _over_capacity(requests, capacity, committed, tentative)


def request_over_capacity_live(cells: Mapping[str, RequestCell] | None,
                               capacity: Mapping[str, DeviceCapacity] | None,
                               committed: Mapping[str, Fraction] | None,
                               tentative: Mapping[str, Fraction] | None) -> bool:
    """CC-1 as Go runs it on a claim's request (replay only): when the device
    has no committed share of a capacity, Go starts the sum from the consumed
    amount itself; if that is the request (:func:`returns_request`) and an
    ``inf.Dec``, adding the tentative amount grows the request in place."""
    return _over_capacity(cells, capacity, committed, tentative)


def _over_capacity(reqs: Mapping[str, Quantity] | Mapping[str, RequestCell] | None,
                   capacity: Mapping[str, DeviceCapacity] | None,
                   committed: Mapping[str, Fraction] | None,
                   tentative: Mapping[str, Fraction] | None) -> bool:
    reqs = reqs or {}
    caps = capacity or {}
    for name in reqs:
        if name not in caps:
            raise UnknownCapacity(name)
    for name, cap in caps.items():
        requested = reqs.get(name)
        c = calculate_consumed(requested, cap)
        if violates_policy(c, cap.request_policy):
            return False
        if committed and name in committed:
            total = committed[name] + c   # a fresh clone: nothing shared
            alias = None
        else:
            total = c
            alias = requested if isinstance(requested, RequestCell) and requested.shared \
                and returns_request(requested.value, cap) else None
        if tentative and name in tentative:
            total += tentative[name]
            if alias is not None and tentative[name] != 0:
                alias.value = total
                alias.grew = True
        if total > cap.value.value:
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
        if requested is not None and not is_integer_quantity(v, cap.request_policy, requested) \
                and v == requested.value:
            out[name] = requested
        else:
            out[name] = _consumed_quantity(v, requested, cap)
    return out


def _consumed_quantity(v: Fraction, requested: Quantity | RequestCell | None, cap: DeviceCapacity) -> Quantity:
    if requested is None:
        p = cap.request_policy
        return p.default if p is not None and p.default is not None else cap.value
    if is_integer_quantity(v, cap.request_policy, requested):
        return Quantity(v, "BinarySI")
    return Quantity(v, requested.format)


def consumed_from_request_live(cells: Mapping[str, RequestCell],
                               capacity: Mapping[str, DeviceCapacity] | None
                               ) -> tuple[dict[str, Quantity], dict[str, RequestCell]]:
    """CC-5 on a claim's request as Go holds it (replay only): the consumed
    amounts now, and the cells the result keeps sharing. Go records those
    results with the request itself, so their final ``consumedCapacity`` (and
    what undoing them subtracts) is whatever the request has grown to."""
    out: dict[str, Quantity] = {}
    shared: dict[str, RequestCell] = {}
    for name, cap in (capacity or {}).items():
        cell = cells.get(name)
        v = calculate_consumed(cell, cap)
        out[name] = _consumed_quantity(v, cell, cap)
        if cell is not None and cell.shared and returns_request(cell.value, cap):
            shared[name] = cell
    return out, shared
