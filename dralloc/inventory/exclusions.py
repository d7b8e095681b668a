"""Why a device cannot serve a request in one allocation call: the
inventory's exclusions, one function for every engine and every report.

Static exclusions (:func:`static_exclusion`, the filters the search applies
to each device, in Kubernetes' order): held by an allocated claim; a feature
gate off (binding conditions, partitionable devices); not selected by the
class, by the request's selectors, or not available on the node (per-device
node selection); an untolerated taint; consumable capacity against what is
committed. :func:`counters_exhausted` adds what the counters alone forbid: a
device consuming more of a shared counter than the allocated devices leave
(a MIG device of a fully used GPU). Quantities are given in Kubernetes units."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from dralloc.errors import AllocationError
from dralloc.features import Variant
from dralloc.inventory.capacity import UnknownCapacity, request_over_capacity_ok
from dralloc.inventory.pools import CounterMap, Pool, PoolDevice
from dralloc.inventory.problem import Problem
from dralloc.inventory.requests import RequestSpec
from dralloc.inventory.taints import untolerated_taint
from dralloc.quantity import amount_text

# kinds, in the order the filters run (reports list them in this order)
IN_USE = "in use"
GATE_OFF = "feature gate off"
CLASS = "not selected by the class"
SELECTOR = "not matched by the request's selectors"
NODE = "not available on the node"
SELECTOR_ERROR = "selector error"
TAINT = "untolerated taint"
CAPACITY = "capacity"
COUNTERS = "counters exhausted"
KINDS = (IN_USE, GATE_OFF, CLASS, SELECTOR, NODE, SELECTOR_ERROR, TAINT, CAPACITY, COUNTERS)

# the step of the search that refuses the device (the replay's and the defect
# triggers' coarser view: a device that is in use or not selected never
# reaches the capacity check)
STAGE_IN_USE, STAGE_NOT_SELECTED, STAGE_GATE, STAGE_TAINT, STAGE_CAPACITY = (
    "in use", "not selected", "consumes counters", "taint", "capacity")


@dataclass(frozen=True)
class Exclusion:
    """One reason a device cannot serve a request: its kind (one of
    :data:`KINDS`) and the particulars (class, gate, taint, counter...)."""

    kind: str
    detail: str = ""
    stage: str = ""                # the search step that refuses it (STAGE_*)
    counter: str = ""              # COUNTERS: driver/pool/counter-set/counter
    need: Fraction | None = None   # COUNTERS: what the device consumes of it
    left: Fraction | None = None   # COUNTERS: what the allocated devices leave

    def __str__(self) -> str:
        return f"{self.kind} ({self.detail})" if self.detail else self.kind


def static_exclusion(problem: Problem, spec: RequestSpec, pd: PoolDevice) -> Exclusion | None:
    """Why ``pd`` can never serve ``spec`` in this call (None: it may).
    Selector errors propagate as :class:`AllocationError`."""
    dev = pd.device
    if not spec.admin and pd.id in problem.state.devices:
        return Exclusion(IN_USE, stage=STAGE_IN_USE)
    unselected = problem.selectable.why_not(pd, spec)
    if unselected is not None:
        return _not_selected(problem, spec, unselected)
    if not problem.features.partitionable_devices and dev.consumes_counters:
        return Exclusion(GATE_OFF, "consumes counters, DRAPartitionableDevices off", STAGE_GATE)
    if problem.features.device_taints:
        taint = untolerated_taint(dev.taints, spec.tolerations)
        if taint is not None:
            return Exclusion(TAINT, f"{taint.key}={taint.value or ''}:{taint.effect}", STAGE_TAINT)
    if problem.features.consumable_capacity and problem.variant is not Variant.STABLE:
        return _capacity(problem, spec, pd)
    return None


def _not_selected(problem: Problem, spec: RequestSpec, why: str) -> Exclusion:
    key = (why, spec.device_class_name, spec.name, problem.node.name)
    got = _NOT_SELECTED.get(key)
    if got is None:
        if len(_NOT_SELECTED) > 4096:
            _NOT_SELECTED.clear()
        got = _NOT_SELECTED[key] = _not_selected_new(problem, spec, why)
    return got


_NOT_SELECTED: dict[tuple[str, str, str, str], Exclusion] = {}   # the same few exclusions, over and over


def _not_selected_new(problem: Problem, spec: RequestSpec, why: str) -> Exclusion:
    if why.startswith("has binding conditions"):
        return Exclusion(GATE_OFF, "binding conditions, DRADeviceBindingConditions off", STAGE_NOT_SELECTED)
    if why.startswith("has compatibility groups"):
        return Exclusion(GATE_OFF, "compatibility groups, DRADeviceCompatibilityGroups off", STAGE_NOT_SELECTED)
    if why.startswith("does not match class"):
        return Exclusion(CLASS, spec.device_class_name, STAGE_NOT_SELECTED)
    if why.startswith("is not available on node"):
        return Exclusion(NODE, problem.node.name, STAGE_NOT_SELECTED)
    return Exclusion(SELECTOR, spec.name, STAGE_NOT_SELECTED)


def _capacity(problem: Problem, spec: RequestSpec, pd: PoolDevice) -> Exclusion | None:
    committed = problem.state.aggregated.get(pd.id)
    try:
        if _fits_capacity(spec, pd, committed):
            return None
    except UnknownCapacity as e:
        return Exclusion(CAPACITY, f"the device has no capacity {e}", STAGE_CAPACITY)
    if problem.may_share_negative(pd):
        return None  # shares picked before this one may make room: checked at each pick
    parts = []
    for name, q in sorted((spec.capacity or {}).items()):
        cap = (pd.device.capacity or {}).get(name)
        used = (committed or {}).get(name, Fraction(0))
        total = amount_text(cap.value.value) if cap is not None else "?"
        parts.append(f"asks {name} {q}, the device has {total}" + (f" with {amount_text(used)} in use" if used else ""))
    return Exclusion(CAPACITY, "; ".join(parts) or "request policy", STAGE_CAPACITY)


def _fits_capacity(spec: RequestSpec, pd: PoolDevice, committed: dict[str, Fraction] | None) -> bool:
    """CC-1 for the request on the device alone; without committed shares it
    depends on the request's amounts and the device only, so it is kept on
    the device (pools kept across calls compute it once per request shape)."""
    if committed is not None:
        return request_over_capacity_ok(spec.capacity, pd.device.capacity, committed, None)
    key = ("capacity", None if not spec.capacity else tuple(sorted((k, q.value) for k, q in spec.capacity.items())))
    got = pd.memo.get(key)
    if got is None:
        try:
            got = request_over_capacity_ok(spec.capacity, pd.device.capacity, None, None)
        except UnknownCapacity as e:
            got = e
        pd.memo[key] = got
    if isinstance(got, UnknownCapacity):
        raise UnknownCapacity(*got.args)
    return bool(got)


def counters_exhausted(pd: PoolDevice, available: CounterMap) -> Exclusion | None:
    """The first counter ``pd`` consumes beyond what ``available`` leaves
    (the pool's counters minus the allocated devices' consumption)."""
    for cs, counters in pd.consumption().items():
        left = available.get(cs)
        if left is None:
            continue
        for name, need in sorted(counters.items()):
            if name in left and need > left[name]:
                have = max(left[name], Fraction(0))
                path = f"{pd.pool.driver}/{pd.pool.name}/{cs}/{name}"
                return Exclusion(COUNTERS, f"{path}: needs {amount_text(need)}, {amount_text(have)} left",
                                 "", path, need, have)
    return None


def exclusion(problem: Problem, spec: RequestSpec, pd: PoolDevice,
              available: dict[tuple[str, str], CounterMap]) -> Exclusion | None:
    """Every exclusion a report names: the static ones (a selector error
    becomes :data:`SELECTOR_ERROR`), then exhausted counters. ``available``
    caches each pool's counters left (see :func:`available_counters`)."""
    try:
        why = static_exclusion(problem, spec, pd)
    except AllocationError as e:
        return Exclusion(SELECTOR_ERROR, str(e))
    if why is not None:
        return why
    if pd.device.consumes_counters and problem.features.partitionable_devices:
        return counters_exhausted(pd, available_counters(problem, pd.pool, available))
    return None


def available_counters(problem: Problem, pool: Pool, cache: dict[tuple[str, str], CounterMap]) -> CounterMap:
    got = cache.get(pool.id)
    if got is None:
        got = cache[pool.id] = problem.state.available_counters(pool)
    return got
