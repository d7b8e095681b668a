"""What the API server enforces for one ResourceSlice (resource.k8s.io/v1,
Kubernetes 1.36: pkg/apis/resource/validation).

Slices are checked as dralloc holds them: converted to v1 and with KEP-5234
mixins already flattened, so the per-device limits apply to the flattened
device as the KEP requires."""

from __future__ import annotations

from dralloc.models import Device, DeviceAttribute, DeviceCapacity, NodeSelector, ResourceSlice
from dralloc.models.resource import CounterSet, DeviceCounterConsumption
from dralloc.validation import formats as f
from dralloc.validation.capacity import capacity
from dralloc.validation.finding import Collector

MAX_DEVICES = 128
MAX_DEVICES_WITH_TAINTS_OR_COUNTERS = 64
MAX_ATTRIBUTES_AND_CAPACITIES = 32
MAX_ATTRIBUTE_VALUES = 48
MAX_CONSUMPTIONS_PER_DEVICE = 2
MAX_COUNTERS_PER_CONSUMPTION = 32
MAX_COUNTER_SETS = 8
MAX_COUNTERS_PER_SET = 32
MAX_TAINTS = 16
MAX_BINDING_CONDITIONS = 4
MAX_ATTRIBUTE_STRING = 64
TAINT_EFFECTS = ("NoSchedule", "NoExecute", "None")
SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


def node_selector(c: Collector, path: str, sel: NodeSelector, one_term: bool = True) -> None:
    """A node selector in a slice or device (exactly one term) or in an
    allocation (any number); valid keys, operators and values."""
    terms = sel.node_selector_terms
    if one_term and len(terms) != 1:
        c.add(f"{path}.nodeSelectorTerms", "slice.node-selector.terms",
              f"must have exactly one term, found {len(terms)}")
    for t, term in enumerate(terms):
        tpath = f"{path}.nodeSelectorTerms[{t}]"
        for r, req in enumerate(term.match_expressions or ()):
            rpath = f"{tpath}.matchExpressions[{r}]"
            f.label_key(c, f"{rpath}.key", req.key, "label key")
            _requirement(c, rpath, req.operator, req.values or [], SELECTOR_OPERATORS)
        for r, req in enumerate(term.match_fields or ()):
            rpath = f"{tpath}.matchFields[{r}]"
            if req.key != "metadata.name":
                c.add(f"{rpath}.key", "slice.node-selector.field", f"field {req.key!r} is not "
                      "supported, only metadata.name")
            _requirement(c, rpath, req.operator, req.values or [], ("In", "NotIn"), single=True)


def _requirement(c: Collector, path: str, op: str, values: list[str], ops: tuple[str, ...],
                 single: bool = False) -> None:
    rule = "slice.node-selector.requirement"
    if op not in ops:
        c.add(f"{path}.operator", rule, f"operator {op!r} is not one of {', '.join(ops)}")
    elif op in ("In", "NotIn") and (not values or (single and len(values) != 1)):
        c.add(f"{path}.values", rule, f"operator {op} needs {'exactly one value' if single else 'values'}")
    elif op in ("Exists", "DoesNotExist") and values:
        c.add(f"{path}.values", rule, f"operator {op} takes no values")
    elif op in ("Gt", "Lt") and (len(values) != 1 or not values[0].lstrip("-").isdigit()):
        c.add(f"{path}.values", rule, f"operator {op} needs exactly one integer value")


def _selection_fields(c: Collector, path: str, node_name: str | None, sel: NodeSelector | None,
                      all_nodes: bool | None) -> list[str]:
    """The node-selection fields set; an explicit empty nodeName or false
    allNodes is itself an error (set it or leave it out)."""
    if node_name == "":
        c.add(f"{path}.nodeName", "slice.node-selection", "nodeName must be unset or not empty")
    elif node_name is not None:
        f.dns_subdomain(c, f"{path}.nodeName", node_name, "node name")
    if all_nodes is False:
        c.add(f"{path}.allNodes", "slice.node-selection", "allNodes must be unset or true")
    return [name for name, on in (("nodeName", bool(node_name)), ("nodeSelector", sel is not None),
                                  ("allNodes", bool(all_nodes))) if on]


def _spec_header(c: Collector, s: ResourceSlice) -> None:
    spec = s.spec
    if not s.metadata.name and not s.metadata.generate_name:
        c.add("metadata.name", "format.required", "name or generateName is required")
    elif s.metadata.name:
        f.dns_subdomain(c, "metadata.name", s.metadata.name, "slice name")
    f.driver_name(c, "spec.driver", spec.driver)
    pool_name(c, "spec.pool.name", spec.pool.name)
    if f.int64(c, "spec.pool.generation", spec.pool.generation, "generation") and spec.pool.generation < 0:
        c.add("spec.pool.generation", "slice.pool.generation", "must not be negative")
    if (f.int64(c, "spec.pool.resourceSliceCount", spec.pool.resource_slice_count, "resourceSliceCount")
            and spec.pool.resource_slice_count <= 0):
        c.add("spec.pool.resourceSliceCount", "slice.pool.count", "must be greater than zero")
    chosen = _selection_fields(c, "spec", spec.node_name, spec.node_selector, spec.all_nodes)
    if spec.per_device_node_selection:
        chosen.append("perDeviceNodeSelection")
    elif spec.per_device_node_selection is False:
        c.add("spec.perDeviceNodeSelection", "slice.node-selection", "perDeviceNodeSelection must be unset or true")
    if len(chosen) != 1:
        c.add("spec", "slice.node-selection", "exactly one of nodeName, nodeSelector, allNodes, "
              "perDeviceNodeSelection must be set" + (f"; found {', '.join(chosen)}" if chosen else ""))
    if spec.node_selector is not None:
        node_selector(c, "spec.nodeSelector", spec.node_selector)
    if spec.devices and spec.shared_counters:
        c.add("spec", "slice.devices-and-counters", "devices and sharedCounters must not be set in "
              "the same slice; publish counter sets in a slice of their own in the same pool")


def pool_name(c: Collector, path: str, name: str) -> None:
    if not name:
        c.add(path, "format.required", "pool name is required")
        return
    if len(name) > f.MAX_SUBDOMAIN or any(not f.DNS_SUBDOMAIN.match(p) for p in name.split("/")):
        c.add(path, "format.pool-name", f"pool name {name!r} must be DNS subdomains "
              f"separated by '/', at most {f.MAX_SUBDOMAIN} characters")


def _counter_sets(c: Collector, sets: list[CounterSet]) -> None:
    if c.limit("spec.sharedCounters", "slice.counter-sets.max", "counter sets", len(sets), MAX_COUNTER_SETS):
        return
    seen: set[str] = set()
    for i, cs in enumerate(sets):
        path = f"spec.sharedCounters[{i}]"
        f.dns_label(c, f"{path}.name", cs.name, "counter set name")
        if cs.name in seen:
            c.add(f"{path}.name", "slice.counter-sets.unique", f"duplicate counter set name {cs.name!r}")
        seen.add(cs.name)
        counters = cs.counters or {}
        if not counters:
            c.add(f"{path}.counters", "slice.counters.required", "a counter set needs at least one counter")
        c.limit(f"{path}.counters", "slice.counters.max", "counters", len(counters), MAX_COUNTERS_PER_SET)
        for name in counters:
            f.dns_label(c, f"{path}.counters[{name}]", name, "counter name")


def _attribute(c: Collector, path: str, attr: DeviceAttribute) -> int:
    """Check one attribute; returns how many values it holds (list items counted)."""
    scalars = [v for v in (attr.int_, attr.bool_, attr.string, attr.version) if v is not None]
    lists = [v for v in (attr.ints, attr.bools, attr.strings, attr.versions) if v is not None]
    if len(scalars) + len(lists) != 1:
        kinds = attr.set_fields()
        c.add(path, "device.attribute.one-value", "exactly one of int, bool, string, version (or "
              "their list forms) must be set" + (f"; found {', '.join(kinds)}" if kinds else ""))
    if scalars and not lists:
        _attribute_value(c, path, attr, scalars[0])
        return 1
    for name in ("ints", "bools", "strings", "versions"):
        if getattr(attr, name) == []:
            c.add(f"{path}.{name}", "device.attribute.one-value", f"{name} must not be empty if set")
    for v in [*scalars, *(x for lst in lists for x in lst)]:
        _attribute_value(c, path, attr, v)
    return sum(len(x) for x in lists) or 1


def _attribute_value(c: Collector, path: str, attr: DeviceAttribute, v: object) -> None:
    if isinstance(v, bool):
        return
    if isinstance(v, int):
        f.int64(c, path, v, "int attribute")
    elif isinstance(v, str) and (v == attr.version or (attr.versions and v in attr.versions)):
        if len(v) > MAX_ATTRIBUTE_STRING or not f.SEMVER.match(v):
            c.add(path, "device.attribute.version", f"version {v!r} must be a semantic version "
                  f"(MAJOR.MINOR.PATCH) of at most {MAX_ATTRIBUTE_STRING} characters")
    elif isinstance(v, str) and len(v) > MAX_ATTRIBUTE_STRING:
        c.add(path, "device.attribute.string", f"string values are at most {MAX_ATTRIBUTE_STRING} characters")


def _device_selection(c: Collector, path: str, d: Device, per_device: bool) -> None:
    given = [n for n, v in (("nodeName", d.node_name), ("nodeSelector", d.node_selector),
                            ("allNodes", d.all_nodes)) if v is not None]
    if not per_device:
        if given:
            c.add(f"{path}.{given[0]}", "device.node-selection",
                  f"{given[0]} on a device needs perDeviceNodeSelection: true on the slice")
        return
    chosen = _selection_fields(c, path, d.node_name, d.node_selector, d.all_nodes)
    if len(chosen) != 1:
        c.add(path, "device.node-selection", "with perDeviceNodeSelection every device sets exactly one of "
              "nodeName, nodeSelector, allNodes" + (f"; found {', '.join(chosen)}" if chosen else ""))
    if d.node_selector is not None:
        node_selector(c, f"{path}.nodeSelector", d.node_selector)


def _taints(c: Collector, path: str, d: Device) -> None:
    taints = d.taints or []
    if c.limit(f"{path}.taints", "device.taints.max", "taints", len(taints), MAX_TAINTS):
        return
    for t, taint in enumerate(taints):
        tp = f"{path}.taints[{t}]"
        if not taint.key:
            c.add(f"{tp}.key", "format.required", "taint key is required")
        else:
            f.label_key(c, f"{tp}.key", taint.key, "taint key")
        f.label_value(c, f"{tp}.value", taint.value or "", "taint value")
        if taint.effect not in TAINT_EFFECTS:
            c.add(f"{tp}.effect", "device.taints.effect",
                  f"effect {taint.effect!r} is not one of {', '.join(TAINT_EFFECTS)}")


def binding_conditions(c: Collector, path: str, conds: list[str] | None, failures: list[str] | None) -> None:
    """bindingConditions and bindingFailureConditions of a device or a result."""
    rule = "device.binding-conditions"
    for name, items in (("bindingConditions", conds or []), ("bindingFailureConditions", failures or [])):
        if c.limit(f"{path}.{name}", f"{rule}.max", name, len(items), MAX_BINDING_CONDITIONS):
            continue
        for i, cond in enumerate(items):
            f.label_key(c, f"{path}.{name}[{i}]", cond, "condition")
            if cond in items[:i]:
                c.add(f"{path}.{name}[{i}]", rule, f"duplicate condition {cond!r}")
    for i, cond in enumerate(failures or []):
        if cond in (conds or []):
            c.add(f"{path}.bindingFailureConditions[{i}]", rule,
                  f"{cond!r} is also a bindingCondition; the two lists must not overlap")
    if bool(conds) != bool(failures):
        c.add(path, f"{rule}.pair", "bindingConditions and bindingFailureConditions must be set together")


class _Clean:
    """Parts found clean, by identity: a loaded cluster shares its attribute
    values, capacities and counter consumptions between devices, and whole
    attribute and capacity maps and consumption lists (:mod:`dralloc.io.share`),
    so each is checked once. The part itself is held, so its id cannot be
    reused; a full table starts over (parts come slice by slice, so the
    recent ones are what repeats)."""

    def __init__(self) -> None:
        self.seen: dict[int, tuple[object, int]] = {}

    def get(self, part: object) -> int | None:
        hit = self.seen.get(id(part))
        return hit[1] if hit is not None and hit[0] is part else None

    def put(self, part: object, value: int) -> None:
        if len(self.seen) >= 1 << 16:
            self.seen.clear()
        self.seen[id(part)] = (part, value)


_CLEAN_ATTRIBUTES, _CLEAN_CONSUMPTIONS = _Clean(), _Clean()
_CLEAN_CAPACITIES = {False: _Clean(), True: _Clean()}   # by allowMultipleAllocations
_CLEAN_MAPS = _Clean()   # attribute maps (value: values held), consumption lists
_CLEAN_CAPACITY_MAPS = {False: _Clean(), True: _Clean()}


def _consumptions(c: Collector, path: str, cons: list[DeviceCounterConsumption]) -> None:
    if _CLEAN_MAPS.get(cons) is not None:
        return
    before = len(c.findings)
    _consumption_list(c, path, cons)
    if len(c.findings) == before:
        _CLEAN_MAPS.put(cons, 1)


def _consumption_list(c: Collector, path: str, cons: list[DeviceCounterConsumption]) -> None:
    if c.limit(path, "device.consumes-counters.max", "counter consumptions", len(cons), MAX_CONSUMPTIONS_PER_DEVICE):
        return
    for k, cc in enumerate(cons):
        if k and cc.counter_set in (x.counter_set for x in cons[:k]):
            c.add(f"{path}[{k}].counterSet", "device.consumes-counters.unique",
                  f"counter set {cc.counter_set!r} is consumed twice by this device")
        if _CLEAN_CONSUMPTIONS.get(cc) is None:
            before = len(c.findings)
            _consumption(c, f"{path}[{k}]", cc)
            if len(c.findings) == before:
                _CLEAN_CONSUMPTIONS.put(cc, 1)


def _consumption(c: Collector, cpath: str, cc: DeviceCounterConsumption) -> None:
    f.dns_label(c, f"{cpath}.counterSet", cc.counter_set, "counter set name")
    counters = cc.counters or {}
    if not counters:
        c.add(f"{cpath}.counters", "device.consumes-counters.counters", "at least one counter is required")
    elif not c.limit(f"{cpath}.counters", "device.consumes-counters.counters", "counters", len(counters),
                     MAX_COUNTERS_PER_CONSUMPTION):
        for name in counters:
            if not f.is_dns_label(name):
                f.dns_label(c, f"{cpath}.counters[{name}]", name, "counter name")


def _attributes(c: Collector, path: str, attrs: dict[str, DeviceAttribute]) -> int:
    """Check a device's attributes; returns how many values they hold."""
    known = _CLEAN_MAPS.get(attrs)
    if known is not None:
        return known
    before = len(c.findings)
    values = _attribute_map(c, path, attrs)
    if len(c.findings) == before:
        _CLEAN_MAPS.put(attrs, values)
    return values


def _attribute_map(c: Collector, path: str, attrs: dict[str, DeviceAttribute]) -> int:
    values = 0
    for name, attr in attrs.items():
        if not f.known_qualified_name(name):
            f.qualified_name(c, f"{path}.attributes[{name}]", name, "attribute name")
        n = _CLEAN_ATTRIBUTES.get(attr)
        if n is None:
            before = len(c.findings)
            n = _attribute(c, f"{path}.attributes[{name}]", attr)
            if len(c.findings) == before:
                _CLEAN_ATTRIBUTES.put(attr, n)
        values += n
    return values


def _capacities(c: Collector, path: str, caps: dict[str, DeviceCapacity], multi: bool) -> None:
    if _CLEAN_CAPACITY_MAPS[multi].get(caps) is not None:
        return
    before = len(c.findings)
    _capacity_map(c, path, caps, multi)
    if len(c.findings) == before:
        _CLEAN_CAPACITY_MAPS[multi].put(caps, 1)


def _capacity_map(c: Collector, path: str, caps: dict[str, DeviceCapacity], multi: bool) -> None:
    for name, cap in caps.items():
        if not f.known_qualified_name(name):
            f.qualified_name(c, f"{path}.capacity[{name}]", name, "capacity name")
        if _CLEAN_CAPACITIES[multi].get(cap) is None:
            before = len(c.findings)
            capacity(c, f"{path}.capacity[{name}]", cap, multi)
            if len(c.findings) == before:
                _CLEAN_CAPACITIES[multi].put(cap, 1)


def _device(c: Collector, i: int, d: Device, per_device: bool) -> None:
    path = f"spec.devices[{i}]"
    if not f.is_dns_label(d.name):
        f.dns_label(c, f"{path}.name", d.name, "device name")
    attrs, caps = d.attributes or {}, d.capacity or {}
    if len(attrs) + len(caps) > MAX_ATTRIBUTES_AND_CAPACITIES:
        c.add(path, "device.attributes.max", f"{len(attrs)} attributes + {len(caps)} capacities "
              f"(after mixins), at most {MAX_ATTRIBUTES_AND_CAPACITIES} together are allowed")
    values = _attributes(c, path, attrs)
    if values > MAX_ATTRIBUTE_VALUES:
        c.add(path, "device.attributes.max", f"{values} attribute values (list items counted), "
              f"at most {MAX_ATTRIBUTE_VALUES} are allowed")
    _capacities(c, path, caps, bool(d.allow_multiple_allocations))
    if d.consumes_counters:
        _consumptions(c, f"{path}.consumesCounters", d.consumes_counters)
    if per_device or d.node_name is not None or d.node_selector is not None or d.all_nodes is not None:
        _device_selection(c, path, d, bool(per_device))
    if d.taints:
        _taints(c, path, d)
    if d.binding_conditions is not None or d.binding_failure_conditions is not None:
        binding_conditions(c, path, d.binding_conditions, d.binding_failure_conditions)


def _advanced(d: Device) -> bool:
    """Taints, counters or list attributes: the slice then holds at most 64 devices."""
    return bool(d.taints or d.consumes_counters) or any(
        a.ints is not None or a.bools is not None or a.strings is not None or a.versions is not None
        for a in (d.attributes or {}).values())


def _devices(c: Collector, s: ResourceSlice) -> None:
    devices = s.spec.devices or []
    if len(devices) > MAX_DEVICES_WITH_TAINTS_OR_COUNTERS:
        heavy = any(_advanced(d) for d in devices)
        most = MAX_DEVICES_WITH_TAINTS_OR_COUNTERS if heavy else MAX_DEVICES
        if len(devices) > most:
            why = " (a device has taints, consumes counters or has list attributes)" if heavy else ""
            c.add("spec.devices", "slice.devices.max", f"{len(devices)} devices, at most {most} are allowed{why}")
            return
    seen: set[str] = set()
    per_device = bool(s.spec.per_device_node_selection)
    for i, d in enumerate(devices):
        if d.name in seen:
            c.add(f"spec.devices[{i}].name", "slice.devices.unique", f"duplicate device name {d.name!r}")
        seen.add(d.name)
        if per_device or not _known_clean(d):
            _device(c, i, d, per_device)


def _known_clean(d: Device) -> bool:
    """A device of a name and parts already found clean (what drivers
    publish, as the loader shares it): nothing to check, no path to build."""
    if (d.taints is not None or d.binding_conditions is not None or d.binding_failure_conditions is not None
            or d.node_name is not None or d.node_selector is not None or d.all_nodes is not None
            or not f.is_dns_label(d.name)):
        return False
    attrs, caps, cons = d.attributes, d.capacity, d.consumes_counters
    values = _CLEAN_MAPS.get(attrs) if attrs else 0
    if values is None or values > MAX_ATTRIBUTE_VALUES:
        return False
    if len(attrs or ()) + len(caps or ()) > MAX_ATTRIBUTES_AND_CAPACITIES:
        return False
    if caps and _CLEAN_CAPACITY_MAPS[bool(d.allow_multiple_allocations)].get(caps) is None:
        return False
    return not cons or _CLEAN_MAPS.get(cons) is not None


def check_slice(c: Collector, s: ResourceSlice) -> None:
    _spec_header(c, s)
    _counter_sets(c, s.spec.shared_counters or [])
    _devices(c, s)
