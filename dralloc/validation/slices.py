"""What the API server enforces for one ResourceSlice (resource.k8s.io/v1).

Slices are checked as dralloc holds them: converted to v1 and with KEP-5234
mixins already flattened, so the per-device limits apply to the flattened
device as the KEP requires."""

from __future__ import annotations

from dralloc.models import Device, DeviceAttribute, NodeSelector, ResourceSlice
from dralloc.models.resource import CounterSet, DeviceCapacity
from dralloc.validation import formats as f
from dralloc.validation.finding import Collector

MAX_DEVICES = 128
MAX_DEVICES_WITH_TAINTS_OR_COUNTERS = 64
MAX_ATTRIBUTES_AND_CAPACITIES = 32
MAX_CONSUMPTIONS_PER_DEVICE = 2
MAX_COUNTERS_PER_CONSUMPTION = 32
MAX_COUNTER_SETS = 8
MAX_COUNTERS_PER_SET = 32
MAX_CONSUMED_COUNTERS_PER_SLICE = 2048
MAX_TAINTS = 16
MAX_BINDING_CONDITIONS = 4
MAX_ATTRIBUTE_STRING = 64
TAINT_EFFECTS = ("NoSchedule", "NoExecute", "None")
SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


def node_selector(c: Collector, path: str, sel: NodeSelector) -> None:
    """A node selector in a slice or device: exactly one term, valid operators."""
    terms = sel.node_selector_terms
    if len(terms) != 1:
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


def _selection_fields(node_name: str | None, sel: NodeSelector | None, all_nodes: bool | None) -> list[str]:
    return [name for name, on in (("nodeName", bool(node_name)), ("nodeSelector", sel is not None),
                                  ("allNodes", bool(all_nodes))) if on]


def _spec_header(c: Collector, s: ResourceSlice) -> None:
    spec = s.spec
    if not s.metadata.name and not s.metadata.generate_name:
        c.add("metadata.name", "format.required", "name or generateName is required")
    elif s.metadata.name:
        f.dns_subdomain(c, "metadata.name", s.metadata.name, "slice name")
    f.dns_subdomain(c, "spec.driver", spec.driver, "driver name", most=f.MAX_LABEL)
    _pool_name(c, spec.pool.name)
    if spec.pool.generation < 0:
        c.add("spec.pool.generation", "slice.pool.generation", "must not be negative")
    if spec.pool.resource_slice_count <= 0:
        c.add("spec.pool.resourceSliceCount", "slice.pool.count", "must be greater than zero")
    chosen = _selection_fields(spec.node_name, spec.node_selector, spec.all_nodes)
    if spec.per_device_node_selection:
        chosen.append("perDeviceNodeSelection")
    if len(chosen) != 1:
        c.add("spec", "slice.node-selection", "exactly one of nodeName, nodeSelector, allNodes, "
              "perDeviceNodeSelection must be set" + (f"; found {', '.join(chosen)}" if chosen else ""))
    if spec.node_name:
        f.dns_subdomain(c, "spec.nodeName", spec.node_name, "node name")
    if spec.node_selector is not None:
        node_selector(c, "spec.nodeSelector", spec.node_selector)
    if spec.devices and spec.shared_counters:
        c.add("spec", "slice.devices-and-counters", "devices and sharedCounters must not be set in "
              "the same slice; publish counter sets in a slice of their own in the same pool")


def _pool_name(c: Collector, name: str) -> None:
    if not name:
        c.add("spec.pool.name", "format.required", "pool name is required")
        return
    if len(name) > f.MAX_SUBDOMAIN or any(not f.DNS_SUBDOMAIN.match(p) for p in name.split("/")):
        c.add("spec.pool.name", "format.pool-name", f"pool name {name!r} must be DNS subdomains "
              f"separated by '/', at most {f.MAX_SUBDOMAIN} characters")


def _counter_sets(c: Collector, sets: list[CounterSet]) -> None:
    c.limit("spec.sharedCounters", "slice.counter-sets.max", "counter sets", len(sets), MAX_COUNTER_SETS)
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


def _attribute(c: Collector, path: str, attr: DeviceAttribute) -> None:
    kinds = attr.set_fields()
    if len(kinds) != 1:
        c.add(path, "device.attribute.one-value", "exactly one of int, bool, string, version (or "
              "their list forms) must be set" + (f"; found {', '.join(kinds)}" if kinds else ""))
    for s in ([attr.string] if attr.string is not None else []) + (attr.strings or []):
        if len(s) > MAX_ATTRIBUTE_STRING:
            c.add(path, "device.attribute.string", f"string values are at most {MAX_ATTRIBUTE_STRING} characters")
    for v in ([attr.version] if attr.version is not None else []) + (attr.versions or []):
        if len(v) > MAX_ATTRIBUTE_STRING or not f.SEMVER.match(v):
            c.add(path, "device.attribute.version", f"version {v!r} must be a semantic version "
                  f"(MAJOR.MINOR.PATCH) of at most {MAX_ATTRIBUTE_STRING} characters")


def _capacity(c: Collector, path: str, cap: DeviceCapacity) -> None:
    if cap.value.sign() < 0:
        c.add(f"{path}.value", "device.capacity.value", "capacity must not be negative")
    pol = cap.request_policy
    if pol is not None and pol.valid_values is not None and pol.valid_range is not None:
        c.add(f"{path}.requestPolicy", "device.capacity.policy", "validValues and validRange are mutually exclusive")


def _device_selection(c: Collector, path: str, d: Device, per_device: bool) -> None:
    chosen = _selection_fields(d.node_name, d.node_selector, d.all_nodes)
    if per_device and len(chosen) != 1:
        c.add(path, "device.node-selection", "with perDeviceNodeSelection every device sets exactly one of "
              "nodeName, nodeSelector, allNodes" + (f"; found {', '.join(chosen)}" if chosen else ""))
    elif not per_device and chosen:
        c.add(f"{path}.{chosen[0]}", "device.node-selection",
              f"{chosen[0]} on a device needs perDeviceNodeSelection: true on the slice")
    if d.node_selector is not None:
        node_selector(c, f"{path}.nodeSelector", d.node_selector)


def _taints_and_bindings(c: Collector, path: str, d: Device) -> None:
    taints = d.taints or []
    c.limit(f"{path}.taints", "device.taints.max", "taints", len(taints), MAX_TAINTS)
    for t, taint in enumerate(taints):
        f.label_key(c, f"{path}.taints[{t}].key", taint.key, "taint key")
        f.label_value(c, f"{path}.taints[{t}].value", taint.value or "", "taint value")
        if taint.effect not in TAINT_EFFECTS:
            c.add(f"{path}.taints[{t}].effect", "device.taints.effect",
                  f"effect {taint.effect!r} is not one of {', '.join(TAINT_EFFECTS)}")
    for name, conds in (("bindingConditions", d.binding_conditions),
                        ("bindingFailureConditions", d.binding_failure_conditions)):
        c.limit(f"{path}.{name}", "device.binding-conditions.max", name, len(conds or []), MAX_BINDING_CONDITIONS)
    if bool(d.binding_conditions) != bool(d.binding_failure_conditions):
        c.add(path, "device.binding-conditions.pair", "bindingConditions and bindingFailureConditions "
              "must be set together")


def _device(c: Collector, i: int, d: Device, per_device: bool) -> int:
    """Check one device; returns how many counters it consumes."""
    path = f"spec.devices[{i}]"
    f.dns_label(c, f"{path}.name", d.name, "device name")
    attrs, caps = d.attributes or {}, d.capacity or {}
    if len(attrs) + len(caps) > MAX_ATTRIBUTES_AND_CAPACITIES:
        c.add(path, "device.attributes.max", f"{len(attrs)} attributes + {len(caps)} capacities "
              f"(after mixins), at most {MAX_ATTRIBUTES_AND_CAPACITIES} together are allowed")
    for name, attr in attrs.items():
        f.qualified_name(c, f"{path}.attributes[{name}]", name, "attribute name")
        _attribute(c, f"{path}.attributes[{name}]", attr)
    for name, cap in caps.items():
        f.qualified_name(c, f"{path}.capacity[{name}]", name, "capacity name")
        _capacity(c, f"{path}.capacity[{name}]", cap)
    consumed = 0
    cons = d.consumes_counters or []
    c.limit(f"{path}.consumesCounters", "device.consumes-counters.max", "counter consumptions",
            len(cons), MAX_CONSUMPTIONS_PER_DEVICE)
    for k, cc in enumerate(cons):
        cpath = f"{path}.consumesCounters[{k}]"
        f.dns_label(c, f"{cpath}.counterSet", cc.counter_set, "counter set name")
        counters = cc.counters or {}
        c.limit(f"{cpath}.counters", "device.consumes-counters.counters", "counters", len(counters),
                MAX_COUNTERS_PER_CONSUMPTION)
        consumed += len(counters)
    _device_selection(c, path, d, per_device)
    _taints_and_bindings(c, path, d)
    return consumed


def _devices(c: Collector, s: ResourceSlice) -> None:
    devices = s.spec.devices or []
    heavy = any(d.taints or d.consumes_counters for d in devices)
    most = MAX_DEVICES_WITH_TAINTS_OR_COUNTERS if heavy else MAX_DEVICES
    if len(devices) > most:
        why = " (a device has taints or consumes counters)" if heavy else ""
        c.add("spec.devices", "slice.devices.max", f"{len(devices)} devices, at most {most} are allowed{why}")
    seen: set[str] = set()
    consumed = 0
    for i, d in enumerate(devices):
        if d.name in seen:
            c.add(f"spec.devices[{i}].name", "slice.devices.unique", f"duplicate device name {d.name!r}")
        seen.add(d.name)
        consumed += _device(c, i, d, bool(s.spec.per_device_node_selection))
    if consumed > MAX_CONSUMED_COUNTERS_PER_SLICE:
        c.add("spec.devices", "slice.consumed-counters.max", f"devices consume {consumed} counters in "
              f"total, at most {MAX_CONSUMED_COUNTERS_PER_SLICE} are allowed per slice")


def check_slice(c: Collector, s: ResourceSlice) -> None:
    _spec_header(c, s)
    _counter_sets(c, s.spec.shared_counters or [])
    _devices(c, s)
