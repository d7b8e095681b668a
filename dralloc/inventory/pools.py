"""Pool gathering for one node, in Kubernetes order (spec §2, PG-*).

Which slices target the node, grouped into pools by (driver, pool name), the
newest generation kept, completeness checked, pools validated, and sorted:
by (driver, pool), pools whose devices carry binding conditions last; slices by
name; devices in slice order. No OR-Tools, no CEL here."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from dralloc.errors import AllocationError
from dralloc.features import Features, Variant
from dralloc.inventory.nodesel import NodeSelectorError, node_matches
from dralloc.models import Device, Node, ResourceSlice

DeviceID = tuple[str, str, str]  # (driver, pool, device)
CounterMap = dict[str, dict[str, Fraction]]  # counter set -> counter -> value


@dataclass(eq=False)
class PoolDevice:
    """One device of a pool that targets the node, with its search position."""

    pool: Pool
    slice: ResourceSlice
    device: Device
    position: tuple[int, int, int]  # (pool, slice, device) indices: the search order
    id: DeviceID = field(init=False)  # (driver, pool, device), computed once: the search's hottest key
    # what is computed once per device and read by every call on pools kept across calls (the
    # cluster object's): its consumption, and per-device caches of the inventory (read only)
    memo: dict[Any, Any] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        self.id = (self.pool.driver, self.pool.name, self.device.name)

    @property
    def label(self) -> str:
        return "/".join(self.id)

    def consumption(self) -> CounterMap:
        """What the device consumes of each counter (read only: computed once)."""
        got = self.memo.get("consumption")
        if got is not None:
            return got  # type: ignore[no-any-return]
        out: CounterMap = {}
        for cc in self.device.consumes_counters or []:
            dst = out.setdefault(cc.counter_set, {})
            for name, c in (cc.counters or {}).items():
                v = c.value.value
                dst[name] = dst[name] + v if name in dst else v
        self.memo["consumption"] = out
        return out


@dataclass(eq=False)
class Pool:
    driver: str
    name: str
    generation: int = 0
    incomplete: bool = False
    invalid: str | None = None
    slices: list[ResourceSlice] = field(default_factory=list)       # device slices targeting the node
    nontargeting: list[ResourceSlice] = field(default_factory=list)  # same pool, other nodes
    counter_slices: list[ResourceSlice] = field(default_factory=list)
    counter_sets: CounterMap = field(default_factory=dict)
    devices: list[PoolDevice] = field(default_factory=list)
    has_binding_conditions: bool = False
    steps_checked: bool = False   # its capacities' request steps were found positive (problem._check_steps)
    memo: dict[Any, Any] = field(default_factory=dict, repr=False)   # computed once per pool (read only)

    @property
    def id(self) -> tuple[str, str]:
        return (self.driver, self.name)

    @property
    def usable(self) -> bool:
        return not self.incomplete and self.invalid is None

    def nontargeting_devices(self) -> list[Device]:
        return [d for s in self.nontargeting for d in s.spec.devices or []]


def _relevant(s: ResourceSlice, node: Node) -> bool:
    spec = s.spec
    try:
        if spec.node_name or spec.all_nodes or spec.node_selector is not None:
            return node_matches(node, spec.node_name, spec.all_nodes, spec.node_selector)
    except NodeSelectorError as e:
        raise AllocationError(f"gather pool information: failed to perform node selection for slice "
                              f"{s.name}: failed to parse node selector: {e}") from None
    if spec.per_device_node_selection:
        for d in spec.devices or []:
            try:
                if node_matches(node, d.node_name or "", d.all_nodes or False, d.node_selector):
                    return True
            except NodeSelectorError as e:
                raise AllocationError(
                    f"gather pool information: failed to perform node selection for device {d.name} "
                    f"in slice {s.name}: failed to parse node selector: {e}") from None
    return False


def _candidates(slices: list[ResourceSlice], node: Node, features: Features,
                variant: Variant) -> list[ResourceSlice]:
    """PG-1/PG-2. Incubating and experimental bucket slices by nodeName (this
    node's first, then those without one); stable looks at every slice in
    input order (V-3)."""
    if variant is Variant.STABLE:
        out = list(slices)
    else:
        by_node = [s for s in slices if s.spec.node_name and s.spec.node_name == node.name]
        shared = [s for s in slices if not s.spec.node_name]
        out = by_node + shared
    if not features.partitionable_devices:
        out = [s for s in out if s.spec.per_device_node_selection is None and not s.spec.shared_counters]
    return out


@dataclass
class _Entry:
    kept: list[ResourceSlice]


def _group(slices: list[ResourceSlice], node: Node, features: Features,
           variant: Variant) -> dict[tuple[str, str], _Entry]:
    pools: dict[tuple[str, str], _Entry] = {}
    for s in _candidates(slices, node, features, variant):
        counters_anyway = (variant is Variant.STABLE and features.partitionable_devices
                           and bool(s.spec.shared_counters))
        if not counters_anyway and not _relevant(s, node):
            continue
        key = (s.spec.driver, s.spec.pool.name)
        entry = pools.get(key)
        if entry is None:
            pools[key] = _Entry([s])
            continue
        gen = entry.kept[0].spec.pool.generation
        if s.spec.pool.generation < gen:
            continue
        if s.spec.pool.generation > gen:
            entry.kept = [s]
        else:
            entry.kept.append(s)
    return pools


def gather_pools(slices: list[ResourceSlice], node: Node, features: Features,
                 variant: Variant) -> list[Pool]:
    """The pools for ``node`` in search order. Node-selector parse errors are
    fatal (:class:`AllocationError`); invalid and incomplete pools are kept and
    flagged, obsolete ones dropped."""
    main: list[Pool] = []
    binding: list[Pool] = []
    for (driver, name), entry in _group(slices, node, features, variant).items():
        ref = entry.kept[0].spec.pool
        extra: list[ResourceSlice] = []
        if len(entry.kept) != ref.resource_slice_count:
            same = [s for s in slices if s.spec.driver == driver and s.spec.pool.name == name]
            if any(s.spec.pool.generation > ref.generation for s in same):
                continue  # obsolete: a newer generation exists elsewhere
            same_gen = [s for s in same if s.spec.pool.generation == ref.generation]
            if len(same_gen) != ref.resource_slice_count:
                main.append(Pool(driver, name, ref.generation, incomplete=True))
                continue
            kept_names = {s.name for s in entry.kept}
            extra = [s for s in same_gen if s.name not in kept_names]
        pool = _build(driver, name, ref.generation, entry.kept, extra, features, variant)
        (binding if pool.has_binding_conditions else main).append(pool)
    if variant is not Variant.STABLE:
        main.sort(key=lambda p: (p.driver.encode(), p.name.encode()))
        binding.sort(key=lambda p: (p.driver.encode(), p.name.encode()))
        main.extend(binding)
    else:  # stable: map order in Kubernetes (random); dralloc uses name order
        main = sorted(main + binding, key=lambda p: (p.driver.encode(), p.name.encode()))
    for pi, pool in enumerate(main):
        pool.devices = [
            PoolDevice(pool, s, d, (pi, si, di))
            for si, s in enumerate(pool.slices) for di, d in enumerate(s.spec.devices or [])
        ]
    return main


def _build(driver: str, name: str, generation: int, kept: list[ResourceSlice],
           extra: list[ResourceSlice], features: Features, variant: Variant) -> Pool:
    pool = Pool(driver, name, generation)
    ordered = kept if variant is Variant.STABLE else sorted(kept, key=lambda s: s.name.encode())
    for s in ordered:
        if features.partitionable_devices and s.spec.shared_counters:
            pool.counter_slices.append(s)
        else:
            pool.slices.append(s)
    if features.partitionable_devices:
        for s in extra:
            (pool.counter_slices if s.spec.shared_counters else pool.nontargeting).append(s)
    pool.invalid = _validate(pool, features, variant)
    if pool.invalid is None:
        for cs_slice in pool.counter_slices:
            for cs in cs_slice.spec.shared_counters or []:
                pool.counter_sets[cs.name] = {k: c.value.value for k, c in (cs.counters or {}).items()}
        pool.has_binding_conditions = any(
            d.binding_conditions is not None for s in pool.slices for d in s.spec.devices or [])
    else:
        pool.slices, pool.nontargeting, pool.counter_slices = [], [], []
    return pool


def _validate(pool: Pool, features: Features, variant: Variant) -> str | None:
    seen: set[str] = set()
    for s in pool.slices:
        for d in s.spec.devices or []:
            if d.name in seen:
                return f"duplicate device name {d.name}"
            seen.add(d.name)
    if not features.partitionable_devices:
        return None
    sets: dict[str, set[str]] = {}
    for s in pool.counter_slices:
        for cs in s.spec.shared_counters or []:
            if cs.name in sets:
                return f"duplicate counter set name {cs.name}"
            sets[cs.name] = set((cs.counters or {}).keys())
    # Stable checks the consumption of every kept slice's devices, counter-set
    # slices included; the others only of device slices (PG-12, V-3).
    checked = pool.counter_slices + pool.slices if variant is Variant.STABLE else pool.slices
    devices = [d for s in checked for d in s.spec.devices or []] + pool.nontargeting_devices()
    for d in devices:
        for cc in d.consumes_counters or []:
            if cc.counter_set not in sets:
                return f"counter set {cc.counter_set} not found"
            for c in cc.counters or {}:
                if c not in sets[cc.counter_set]:
                    return f"counter {c} not found in counter set {cc.counter_set}"
    return None
