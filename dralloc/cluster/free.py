"""A cheap bound on what still fits a node, exact as a necessary condition:
``fits()`` skips a node whose free devices cannot hold the claims.

Per node, from its gathered pools and the allocated claims it sees, the
devices that could still serve a request that does not ask for admin access:
not held by an allocated claim, not refused by a feature gate (binding
conditions, counters without DRAPartitionableDevices), and each of their
counters within what the allocated devices leave of it (a device that alone
overdraws a counter can never be picked) -- counted per device class (the
class's selectors). A device serves one exclusive result, so a claim set
needs, of each class, at least the sum of its ExactCount requests' counts;
where a class has fewer usable devices, no engine allocates the claims on
the node: every rule the bound leaves out (request selectors, constraints,
taints, capacity, per-device node selection, the counters the devices
consume together) and every Kubernetes defect only refuse more.

Where it cannot be sure the bound claims nothing: requests for admin access
or for All devices, devices shared by consumable capacity, alternatives of a
prioritized list (a request with one that may fit), a selector that does not
compile or fails on a device (counted as matching), counters of a pool name
two drivers use (the allocator may read the other pool's, defect T-13), a
claim of the question that is allocated already (the engines ignore its own
devices), foreign counter pools of the stable allocator.

The static part (devices, class verdicts, counters in exact integers) is
compiled once per node view; the rest (what is held, what counters are
left) is recomputed when one of the node's pools changes: the store drops a
node's summary then (``forget``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from math import lcm

from dralloc.cel import CELCompileError, CELRuntimeError, DeviceView, compile_selector
from dralloc.cluster.index import SliceIndex
from dralloc.errors import AllocationError
from dralloc.features import Features, Variant
from dralloc.inventory.pools import Pool, gather_pools
from dralloc.inventory.state import AllocatedState
from dralloc.models import DeviceClass, Node, ResourceClaim, ResourceSlice

Need = dict[str, int]     # class name -> devices the claims need at least


@dataclass(frozen=True)
class Needs:
    """What a set of claims needs at least (see :func:`need_of`)."""

    total: tuple[tuple[str, int], ...]                      # class -> count, summed over plain requests
    alternatives: tuple[tuple[tuple[str, int], ...], ...]   # per prioritized list: its alternatives' needs


def need_of(claims: list[ResourceClaim]) -> Needs | None:
    """What the claims need at least: per class, the ExactCount requests'
    counts summed, and for each prioritized list the counts of its
    alternatives (one of them must fit); None when nothing can be said."""
    total: Need = {}
    alternatives: list[Need] = []
    for c in claims:
        for req in (c.spec.devices.requests or []) if c.spec.devices else []:
            if req.exactly is not None:
                e = req.exactly
                if e.admin_access or (e.allocation_mode or "ExactCount") != "ExactCount":
                    continue
                total[e.device_class_name] = total.get(e.device_class_name, 0) + (e.count or 1)
            elif req.first_available:
                alt: Need = {}
                for sub in req.first_available:
                    if (sub.allocation_mode or "ExactCount") != "ExactCount":
                        alt = {}
                        break
                    alt[sub.device_class_name] = min(alt.get(sub.device_class_name, 1 << 62), sub.count or 1)
                if alt:
                    alternatives.append(alt)
    if not total and not alternatives:
        return None
    return Needs(tuple(sorted(total.items())), tuple(tuple(sorted(a.items())) for a in alternatives))


@dataclass
class _Device:
    id: tuple[str, str, str]
    view: DeviceView
    uses: tuple[tuple[int, int], ...]   # (counter slot, scaled amount) consumed
    blocked: bool                        # refused whatever the state (a feature gate)
    shared: bool                         # may be shared (consumable capacity): never counted out


@dataclass
class _Static:
    """What does not change until the node's view does."""

    devices: list[_Device]
    capacity: list[int]                                  # counter slot -> scaled value
    held_uses: dict[tuple[str, str, str], tuple[tuple[int, int], ...]]   # any device of the pools -> uses
    classes: dict[str, list[bool]] = field(default_factory=dict)          # class -> verdict per device


@dataclass
class _Summary:
    static: _Static
    usable: list[bool]
    counts: dict[str, int] = field(default_factory=dict)
    verdicts: dict[int, bool] = field(default_factory=dict)   # needs (their number) -> proven too few


class FreeIndex:
    """Summaries of the nodes' free devices, kept by the cluster store."""

    def __init__(self, index: SliceIndex, features: Features, variant: Variant) -> None:
        self.index = index
        self.features = features
        self.variant = variant
        self._static: dict[str, _Static | None] = {}    # node -> compiled view (None: no bound here)
        self._summary: dict[str, _Summary] = {}
        self._keys: dict[Needs, int] = {}                # the claim shapes asked about, numbered

    def forget(self, node: str, static: bool = False) -> None:
        """The node's allocated state (or, ``static``, its view) changed."""
        self._summary.pop(node, None)
        if static:
            self._static.pop(node, None)

    def clear(self) -> None:
        self._static.clear()
        self._summary.clear()
        if len(self._keys) > 4096:   # shapes are few; a caller asking ever new ones starts afresh
            self._keys.clear()

    def known_verdicts(self, needs: Needs) -> Callable[[str], bool | None]:
        """node -> the verdict for ``needs`` when it is at hand (None: ask
        :meth:`cannot_hold`): the cheap test ``fits()`` makes on every node."""
        summaries = self._summary
        key = self._keys.setdefault(needs, len(self._keys))   # an int: hashed for nothing

        def known(node: str) -> bool | None:
            summary = summaries.get(node)
            return None if summary is None else summary.verdicts.get(key)
        return known

    def cannot_hold(self, node: Node, slices: list[ResourceSlice], classes: list[DeviceClass],
                    held: Callable[[], list[ResourceClaim]], needs: Needs) -> bool:
        """Whether the node's free devices are too few for ``needs`` (proven);
        ``slices``/``classes``: the node's view, ``held()`` the allocated claims it sees."""
        summary = self._summary.get(node.name)
        if summary is None:
            static = self._static[node.name] if node.name in self._static else self._compile(node, slices)
            self._static[node.name] = static
            if static is None:
                return False
            summary = self._summary[node.name] = _Summary(static, self._usable(static, held()))
        key = self._keys.setdefault(needs, len(self._keys))
        got = summary.verdicts.get(key)
        if got is None:
            by_name = {c.name: c for c in classes}
            got = any(self._count(summary, cls, by_name) < n for cls, n in needs.total) or any(
                all(self._count(summary, cls, by_name) < n for cls, n in alt) for alt in needs.alternatives)
            summary.verdicts[key] = got
        return got

    # ------------------------------------------------------------ compiling a view

    def _compile(self, node: Node, slices: list[ResourceSlice]) -> _Static | None:
        try:
            pools = gather_pools(slices, node, self.features, self.variant)
        except AllocationError:
            return None
        slots: dict[tuple[str, str, str, str], int] = {}
        values: list[list[int | object]] = []   # per slot: the Fractions met, then the scale
        raw_cap: dict[int, object] = {}
        devices: list[tuple[tuple[str, str, str], object, list[tuple[int, object]], bool, bool, bool]] = []
        held_raw: dict[tuple[str, str, str], list[tuple[int, object]]] = {}
        for pool in pools:
            if not pool.usable:
                continue
            trusted = self._counters_trusted(pool)
            for cs, counters in pool.counter_sets.items():
                for name, v in counters.items():
                    i = slots.setdefault((pool.driver, pool.name, cs, name), len(slots))
                    if i == len(values):
                        values.append([])
                    values[i].append(v)
                    raw_cap[i] = v
            for pd in pool.devices:
                uses = self._uses(pool, pd.device.consumes_counters, slots, values) if trusted else []
                multi = bool(pd.device.allow_multiple_allocations) and self.variant is not Variant.STABLE
                shared = multi and self.features.consumable_capacity
                blocked = ((bool(pd.device.binding_conditions) and not self.features.binding_conditions)
                           or (bool(pd.device.consumes_counters) and not self.features.partitionable_devices))
                devices.append((pd.id, pd.device, uses, blocked, multi, shared))
                held_raw[pd.id] = uses
            for d in pool.nontargeting_devices():
                held_raw[(pool.driver, pool.name, d.name)] = (
                    self._uses(pool, d.consumes_counters, slots, values) if trusted else [])
        scale = [lcm(*(v.denominator for v in vs)) for vs in values]   # type: ignore[union-attr]

        def scaled(uses: list[tuple[int, object]]) -> tuple[tuple[int, int], ...]:
            return tuple((i, int(a * scale[i])) for i, a in uses)   # type: ignore[operator]
        out = []
        for dev_id, device, uses, blocked, multi, shared in devices:
            view = DeviceView.from_device(dev_id[0], device, allow_multiple=multi)   # type: ignore[arg-type]
            out.append(_Device(dev_id, view, scaled(uses), blocked, shared))
        capacity = [int(raw_cap[i] * scale[i]) for i in range(len(values))]   # type: ignore[operator]
        return _Static(out, capacity, {k: scaled(u) for k, u in held_raw.items()})

    def _counters_trusted(self, pool: Pool) -> bool:
        """Counters of a pool name no other driver's counter pool shares (T-13)."""
        return all(p[0] == pool.driver for p in self.index.counter_names.get(pool.name, ()))

    @staticmethod
    def _uses(pool: Pool, consumes: object, slots: dict[tuple[str, str, str, str], int],
              values: list[list[object]]) -> list[tuple[int, object]]:
        out: list[tuple[int, object]] = []
        for cc in consumes or []:   # type: ignore[attr-defined]
            for name, c in (cc.counters or {}).items():
                i = slots.get((pool.driver, pool.name, cc.counter_set, name))
                if i is None:
                    continue   # a counter the pool lacks is not checked
                values[i].append(c.value.value)
                out.append((i, c.value.value))
        return out

    # ------------------------------------------------------------ the state

    def _usable(self, static: _Static, held: list[ResourceClaim]) -> list[bool]:
        state = AllocatedState.from_claims(held, self.features, self.variant)
        left = list(static.capacity)
        uses_of = static.held_uses
        for dev_id in state.devices | state.shared_devices | set(state.aggregated):   # is_allocated
            for i, a in uses_of.get(dev_id, ()):
                left[i] -= a
        taken = state.devices
        out = []
        for d in static.devices:
            if d.shared:
                out.append(True)
            elif d.blocked or d.id in taken:
                out.append(False)
            else:
                ok = True
                for i, a in d.uses:
                    if a > left[i]:
                        ok = False
                        break
                out.append(ok)
        return out

    def _count(self, summary: _Summary, cls: str, classes: dict[str, DeviceClass]) -> int:
        got = summary.counts.get(cls)
        if got is not None:
            return got
        static = summary.static
        verdicts = static.classes.get(cls)
        if verdicts is None:
            verdicts = static.classes[cls] = [_in_class(d.view, classes.get(cls)) for d in static.devices]
        if any(d.shared and v for d, v in zip(static.devices, verdicts, strict=True)):
            got = 1 << 62   # shares: as many as capacity allows
        else:
            got = sum(1 for u, v in zip(summary.usable, verdicts, strict=True) if u and v)
        summary.counts[cls] = got
        return got


def _in_class(view: DeviceView, cls: DeviceClass | None) -> bool:
    """Whether the class's selectors accept the device (no class: none do;
    a selector that does not compile or fails: counted as accepting)."""
    if cls is None:
        return False
    for sel in cls.spec.selectors or []:
        if sel.cel is None:
            continue
        try:
            if not compile_selector(sel.cel.expression).evaluate(view):
                return False
        except (CELCompileError, CELRuntimeError):
            return True
    return True

