"""What the API server enforces for one ResourceSlice (resource.k8s.io/v1,
Kubernetes 1.36: pkg/apis/resource/validation).

Slices are checked as dralloc holds them: converted to v1 and with KEP-5234
mixins already flattened, so the per-device limits apply to the flattened
device as the KEP requires. The devices' parts (attributes, capacities,
counter consumptions) are checked in :mod:`.parts`, each shared part once."""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from dralloc.models import Device, DeviceTaint, NodeSelector, ResourceSlice
from dralloc.models.resource import CounterSet
from dralloc.validation import formats as f
from dralloc.validation import parts
from dralloc.validation.finding import Collector
from dralloc.validation.nodealloc import node_allocatable

MAX_DEVICES = 128
MAX_DEVICES_WITH_TAINTS_OR_COUNTERS = 64
MAX_ATTRIBUTES_AND_CAPACITIES = 32
MAX_ATTRIBUTE_VALUES = 48
MAX_COUNTER_SETS = 8
MAX_COUNTERS_PER_SET = 32
MAX_TAINTS = 16
MAX_BINDING_CONDITIONS = 4
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
        check_taint(c, f"{path}.taints[{t}]", taint)


def check_taint(c: Collector, tp: str, taint: DeviceTaint) -> None:
    """A device taint (in a slice or a DeviceTaintRule): a label key, a label
    value, one of the known effects."""
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


def _device(c: Collector, i: int, d: Device, per_device: bool) -> None:
    path = f"spec.devices[{i}]"
    if not f.is_dns_label(d.name):
        f.dns_label(c, f"{path}.name", d.name, "device name")
    attrs, caps = d.attributes or {}, d.capacity or {}
    if len(attrs) + len(caps) > MAX_ATTRIBUTES_AND_CAPACITIES:
        c.add(path, "device.attributes.max", f"{len(attrs)} attributes + {len(caps)} capacities "
              f"(after mixins), at most {MAX_ATTRIBUTES_AND_CAPACITIES} together are allowed")
    values = parts.attributes(c, path, attrs)
    if values > MAX_ATTRIBUTE_VALUES:
        c.add(path, "device.attributes.max", f"{values} attribute values (list items counted), "
              f"at most {MAX_ATTRIBUTE_VALUES} are allowed")
    parts.capacities(c, path, caps, bool(d.allow_multiple_allocations))
    if d.consumes_counters:
        parts.consumptions(c, f"{path}.consumesCounters", d.consumes_counters)
    if per_device or d.node_name is not None or d.node_selector is not None or d.all_nodes is not None:
        _device_selection(c, path, d, bool(per_device))
    if d.taints:
        _taints(c, path, d)
    if d.binding_conditions is not None or d.binding_failure_conditions is not None:
        binding_conditions(c, path, d.binding_conditions, d.binding_failure_conditions)
    if d.node_allocatable_resources is not None or d.node_allocatable_resource_mappings is not None:
        node_allocatable(c, path, d)


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
            before = len(c.findings)
            _device(c, i, d, per_device)
            if not per_device and len(c.findings) == before:
                _CLEAN_DEVICES.put(d, 1)   # (its checks do not depend on the slice, without per-device selection)


# what a device beyond name, attributes, capacity and consumption may set (read in one C-level pass)
_EXTRAS = attrgetter("taints", "binding_conditions", "binding_failure_conditions", "node_name", "node_selector",
                     "all_nodes", "node_allocatable_resources", "node_allocatable_resource_mappings")
_NO_EXTRAS = (None,) * 8
_NAME = attrgetter("name")
_ATTRIBUTES = attrgetter("attributes")
_CLEAN_DEVICES = parts.Clean()   # whole devices found clean (the loader shares them between slices)
_DEVICES_SEEN, _MAPS_SEEN = _CLEAN_DEVICES.seen, parts.CLEAN_MAPS.seen   # (a full table is cleared, not replaced)
_CAPACITY_MAPS_SEEN = {multi: t.seen for multi, t in parts.CLEAN_CAPACITY_MAPS.items()}


def _known_clean(d: Device) -> bool:
    """A device of a name and parts already found clean (what drivers
    publish, as the loader shares it): nothing to check, no path to build.
    (The tables of :mod:`.parts` read directly: this runs once per device.)"""
    hit = _DEVICES_SEEN.get(id(d))
    if hit is not None and hit[0] is d:
        return True
    if _EXTRAS(d) != _NO_EXTRAS or not f.is_dns_label(d.name):
        return False
    attrs, caps, cons = d.attributes, d.capacity, d.consumes_counters
    if attrs:
        hit = _MAPS_SEEN.get(id(attrs))
        values = hit[1] if hit is not None and hit[0] is attrs else parts.known_map(attrs)
        if values is None or values > MAX_ATTRIBUTE_VALUES:
            return False
    if len(attrs or ()) + len(caps or ()) > MAX_ATTRIBUTES_AND_CAPACITIES:
        return False
    if caps:
        hit = _CAPACITY_MAPS_SEEN[bool(d.allow_multiple_allocations)].get(id(caps))
        if hit is None or hit[0] is not caps:
            return False
    if cons:
        hit = _MAPS_SEEN.get(id(cons))
        if hit is None or hit[0] is not cons:
            return False
    _CLEAN_DEVICES.put(d, 1)
    return True


def check_slice(c: Collector, s: ResourceSlice, derived: dict[int, Any] | None = None) -> None:
    _spec_header(c, s)
    _counter_sets(c, s.spec.shared_counters or [])
    got = derived.get(id(s)) if derived else None
    how = got[1] if got is not None and got[0] is s else None
    counts = _derived_clean(s, how) if how is not None else None
    if how is not None and counts is not None:
        _CLEAN_LISTS.put(how.built, counts)   # (slices built from this one are checked against it)
        return
    before = len(c.findings)
    _devices(c, s)
    if how is not None and len(c.findings) == before and not s.spec.per_device_node_selection:
        _clean_list(how.built)


# device lists (as the loader built them) whose devices are all clean, names unique, at most 64:
# the values each device's attribute map holds (kept here: the tables of single parts are bounded)
_CLEAN_LISTS = parts.Clean(1 << 18)


def _clean_list(devices: list[Device]) -> tuple[int, ...] | None:
    """The values each device's attribute map holds, when every device of a
    template slice is known clean and their names are unique (and the slice
    within every device count); else None."""
    got = _CLEAN_LISTS.get(devices)
    if got is not None:
        return got   # type: ignore[no-any-return]
    if len(devices) > MAX_DEVICES_WITH_TAINTS_OR_COUNTERS or len(set(map(_NAME, devices))) != len(devices):
        return None
    seen, counts = _DEVICES_SEEN, []
    for d in devices:
        held = seen.get(id(d))
        if held is None or held[0] is not d:
            return None
        n = parts.CLEAN_MAPS.get(d.attributes) if d.attributes else 0
        if n is None:
            return None
        counts.append(n)
    out = tuple(counts)
    _CLEAN_LISTS.put(devices, out)
    return out


def _derived_clean(s: ResourceSlice, how: Any) -> tuple[int, ...] | None:
    """The values each device's attribute map holds, when the devices of
    ``s``, built by the loader from an earlier slice's
    (:class:`dralloc.io.template.Derived`), are clean: the earlier slice's
    are (names unique), and each device is its device or it with some
    attribute values replaced by other scalars (names, counts and every other
    part are the clean device's), and those values are clean -- each
    distinct map checked once. None: not known so (the whole check then runs
    and says what is wrong)."""
    devices = s.spec.devices or []
    template: list[Device] = how.template
    changes: list[tuple[str, ...] | None] = how.changes
    if len(devices) != len(template) or s.spec.per_device_node_selection or None in changes:
        return None
    counts = _clean_list(template)
    if counts is None:
        return None
    maps = _MAPS_SEEN
    one = Collector("", "")   # (a bad value: the whole check then reports it under its path)
    # each distinct map once, through one device that holds it: every value of the map is that
    # device's template map's (clean) but the changed ones checked here
    for i in dict(zip(map(id, map(_ATTRIBUTES, devices)), range(len(devices)), strict=True)).values():
        names = changes[i]
        if not names:
            continue   # the template's device itself
        attrs = devices[i].attributes
        clean = maps.get(id(attrs))
        if clean is not None and clean[0] is attrs:
            continue
        if type(attrs) is not dict:
            return None
        for name in names:
            value = attrs[name]
            if value.ints is not None or value.bools is not None or value.strings is not None \
                    or value.versions is not None:
                return None
            if parts.attribute_value(one, "", value) != 1 or one.findings:
                return None
        parts.CLEAN_MAPS.put(attrs, counts[i])   # (at most as many values: a scalar replaced each)
    return counts
