"""What the API server enforces for ResourceClaims, ResourceClaimTemplates and
DeviceClasses (resource.k8s.io/v1, Kubernetes 1.36: pkg/apis/resource/validation).

Checked on the defaulted object (allocation modes, counts and toleration
operators filled in), as the API server validates after defaulting."""

from __future__ import annotations

from dataclasses import replace

from dralloc.cel import CELCompileError, compile_derived, compile_selector
from dralloc.models import (
    DeviceClass,
    DeviceSelector,
    DeviceToleration,
    ResourceClaim,
    ResourceClaimTemplate,
)
from dralloc.models.resource import (
    DerivedAttribute,
    DeviceClaim,
    DeviceRequest,
    DeviceSubRequest,
    ExactDeviceRequest,
    OpaqueDeviceConfiguration,
)
from dralloc.validation import formats as f
from dralloc.validation.finding import WARNING, Collector
from dralloc.validation.params import json_size

MAX_REQUESTS = 32
MAX_SUBREQUESTS = 8
MAX_CONSTRAINTS = 32
MAX_CONFIGS = 32
MAX_SELECTORS = 32
MAX_TOLERATIONS = 16
MAX_CEL_LENGTH = 10 * 1024
MAX_DERIVED = 8  # KEP-6080: derivedAttributes per request
MAX_OPAQUE_PARAMETERS = 10 * 1024
ALLOCATOR_RESULT_LIMIT = 32  # the allocator refuses a claim asking for more devices
ALLOCATION_MODES = ("ExactCount", "All")
TOLERATION_OPERATORS = ("Equal", "Exists")
TOLERATION_EFFECTS = ("", "NoSchedule", "NoExecute", "None")

RequestNames = dict[str, set[str]]  # request name -> its subrequest names


def selectors(c: Collector, path: str, sels: list[DeviceSelector] | None) -> None:
    sels = sels or []
    if c.limit(path, "selectors.max", "selectors", len(sels), MAX_SELECTORS):
        return
    for i, sel in enumerate(sels):
        if sel.cel is None:
            c.add(f"{path}[{i}].cel", "selectors.cel", "a selector needs a cel expression")
            continue
        cel_expression(c, f"{path}[{i}].cel.expression", sel.cel.expression)


def cel_expression(c: Collector, path: str, expr: str, derived: bool = False) -> None:
    """Length, then compilation in the DRA CEL environment (as the API server
    compiles every new selector; a derived attribute's expression must
    return a value a constraint can compare)."""
    rule = "derived-attributes.cel" if derived else "selectors.cel"
    if not expr.strip():
        c.add(path, rule, "the CEL expression is empty")
    elif len(expr) > MAX_CEL_LENGTH:
        c.add(path, f"{rule}.length",
              f"CEL expression is {len(expr)} characters, at most {MAX_CEL_LENGTH} are allowed")
    else:
        try:
            (compile_derived if derived else compile_selector)(expr)
        except CELCompileError as e:
            c.add(path, f"{rule}.compile", "the CEL expression does not compile: " + " ".join(str(e).split()))


def derived_attributes(c: Collector, path: str, items: list[DerivedAttribute] | None) -> None:
    """KEP-6080: at most 8, names unique and in the format of a slice's
    attribute names, each expression a CEL expression returning a string,
    int, bool or semver, or a list of one of them."""
    items = items or []
    if c.limit(path, "derived-attributes.max", "derived attributes", len(items), MAX_DERIVED):
        return
    seen: set[str] = set()
    for i, d in enumerate(items):
        if d.name in seen:
            c.add(f"{path}[{i}].name", "derived-attributes.unique", f"duplicate derived attribute name {d.name!r}")
        seen.add(d.name)
        f.qualified_name(c, f"{path}[{i}].name", d.name, "derived attribute name")
        cel_expression(c, f"{path}[{i}].expression", d.expression, derived=True)


def tolerations(c: Collector, path: str, tols: list[DeviceToleration] | None) -> None:
    tols = tols or []
    if c.limit(path, "tolerations.max", "tolerations", len(tols), MAX_TOLERATIONS):
        return
    for i, t in enumerate(tols):
        tp = f"{path}[{i}]"
        if t.key:
            f.label_key(c, f"{tp}.key", t.key, "toleration key")
        op = t.operator or ""
        if op == "Exists" and t.value:
            c.add(f"{tp}.value", "tolerations.value", "value must be empty with operator Exists")
        elif op == "Equal":
            f.label_value(c, f"{tp}.value", t.value or "", "toleration value")
        elif op not in TOLERATION_OPERATORS:
            c.add(f"{tp}.operator", "tolerations.operator", f"operator {op!r} is not Equal or Exists")
        if (t.effect or "") not in TOLERATION_EFFECTS:
            c.add(f"{tp}.effect", "tolerations.effect", f"effect {t.effect!r} is not NoSchedule, NoExecute or None")
        f.int64(c, f"{tp}.tolerationSeconds", t.toleration_seconds, "tolerationSeconds")


def _mode_and_count(c: Collector, path: str, mode: str, count: int | None) -> None:
    if mode not in ALLOCATION_MODES:
        c.add(f"{path}.allocationMode", "request.allocation-mode",
              f"allocationMode {mode!r} is not ExactCount or All")
    elif not f.int64(c, f"{path}.count", count, "count"):
        return
    elif mode == "ExactCount" and (count or 0) <= 0:
        c.add(f"{path}.count", "request.count", f"count must be greater than zero, not {count or 0}")
    elif mode == "All" and count not in (None, 0):
        c.add(f"{path}.count", "request.count", "count must not be set with allocationMode All")
    elif mode == "ExactCount" and (count or 0) > ALLOCATOR_RESULT_LIMIT:
        c.add(f"{path}.count", "request.count.allocator-limit",
              f"count {count} is accepted by the API server, but the allocator refuses a claim asking "
              f"for more than {ALLOCATOR_RESULT_LIMIT} devices", WARNING)


def _body(c: Collector, path: str, r: ExactDeviceRequest | DeviceSubRequest) -> None:
    f.dns_subdomain(c, f"{path}.deviceClassName", r.device_class_name, "deviceClassName")
    selectors(c, f"{path}.selectors", r.selectors)
    _mode_and_count(c, path, r.allocation_mode or "", r.count)
    tolerations(c, f"{path}.tolerations", r.tolerations)
    derived_attributes(c, f"{path}.derivedAttributes", r.derived_attributes)
    for name, q in ((r.capacity.requests or {}) if r.capacity else {}).items():
        if q.sign() < 0:
            c.add(f"{path}.capacity.requests[{name}]", "request.capacity",
                  "a negative capacity request is accepted by the API server but can never be satisfied "
                  "as meant", WARNING)


def _request(c: Collector, path: str, req: DeviceRequest) -> None:
    f.dns_label(c, f"{path}.name", req.name, "request name")
    has_first, has_exactly = bool(req.first_available), req.exactly is not None
    if has_first == has_exactly:
        c.add(path, "request.one-of", "exactly one of exactly and firstAvailable must be set"
              + (", not both" if has_first else ""))
    elif req.exactly is not None:
        _body(c, f"{path}.exactly", req.exactly)
    else:
        subs = req.first_available or []
        if c.limit(f"{path}.firstAvailable", "request.subrequests.max", "subrequests", len(subs), MAX_SUBREQUESTS):
            return
        seen: set[str] = set()
        for k, sub in enumerate(subs):
            sp = f"{path}.firstAvailable[{k}]"
            f.dns_label(c, f"{sp}.name", sub.name, "subrequest name")
            if sub.name in seen:
                c.add(f"{sp}.name", "request.subrequests.unique", f"duplicate subrequest name {sub.name!r}")
            seen.add(sub.name)
            _body(c, sp, sub)


def request_names(dc: DeviceClaim) -> RequestNames:
    return {r.name: {s.name for s in r.first_available or ()} for r in dc.requests or ()}


def references(c: Collector, path: str, refs: list[str] | None, known: RequestNames, rule: str) -> None:
    """``requests`` of a constraint, config or result: each a request, or a
    request and one of its subrequests joined by '/'; no repeats."""
    refs = refs or []
    if c.limit(path, rule, "request references", len(refs), MAX_REQUESTS):
        return
    seen: set[str] = set()
    for i, ref in enumerate(refs):
        parts = ref.split("/")
        if ref in seen:
            c.add(f"{path}[{i}]", rule, f"duplicate request reference {ref!r}")
        seen.add(ref)
        ok = len(parts) <= 2 and parts[0] in known and (len(parts) == 1 or parts[1] in known[parts[0]])
        if not ok:
            c.add(f"{path}[{i}]", rule, f"{ref!r} is not a request of this claim (nor request/subrequest)")


def opaque(c: Collector, path: str, op: OpaqueDeviceConfiguration | None) -> None:
    if op is None:
        c.add(path, "config.opaque", "a config entry needs opaque")
        return
    f.driver_name(c, f"{path}.driver", op.driver)
    params = op.parameters
    if params is None:
        c.add(f"{path}.parameters", "config.parameters", "parameters are required")
        return
    size = json_size(params, MAX_OPAQUE_PARAMETERS)
    if size > MAX_OPAQUE_PARAMETERS:
        c.add(f"{path}.parameters", "config.parameters.size",
              f"parameters are more than {MAX_OPAQUE_PARAMETERS} bytes as JSON")
    elif not isinstance(params, dict):
        c.add(f"{path}.parameters", "config.parameters", "parameters must be a JSON object")


def derived_names(dc: DeviceClaim) -> set[str]:
    """The names the claim's requests derive (KEP-6080)."""
    bodies = [b for r in dc.requests or () for b in ([r.exactly] if r.exactly else []) + list(r.first_available or ())]
    return {d.name for b in bodies for d in b.derived_attributes or ()}


def _attribute_ref(c: Collector, path: str, name: str, what: str, derived: set[str]) -> None:
    """A constraint's attribute: fully qualified, or (KEP-6080) a bare name
    one of the claim's requests derives."""
    if "/" not in name and name in derived:
        f.qualified_name(c, path, name, what)
        return
    before = len(c.findings)
    f.qualified_name(c, path, name, what, need_domain=True)
    if len(c.findings) > before and "/" not in name:
        last = c.findings[-1]
        c.findings[-1] = replace(last, message=last.message + " (a bare name must be a derived attribute of one of "
                                 "the claim's requests, KEP-6080)")


def _constraints(c: Collector, path: str, dc: DeviceClaim, known: RequestNames) -> None:
    cons = dc.constraints or []
    if c.limit(path, "claim.constraints.max", "constraints", len(cons), MAX_CONSTRAINTS):
        return
    derived = derived_names(dc)
    for i, con in enumerate(cons):
        cp = f"{path}[{i}]"
        references(c, f"{cp}.requests", con.requests, known, "constraint.requests")
        if con.match_attribute is not None:
            _attribute_ref(c, f"{cp}.matchAttribute", con.match_attribute, "matchAttribute", derived)
            if con.distinct_attribute is not None:
                c.add(cp, "constraint.one-of", "matchAttribute and distinctAttribute are both set: the "
                      "API server accepts it, the allocator uses matchAttribute only", WARNING)
        elif con.distinct_attribute is not None:
            _attribute_ref(c, f"{cp}.distinctAttribute", con.distinct_attribute, "distinctAttribute", derived)
        else:
            c.add(cp, "constraint.one-of", "one of matchAttribute and distinctAttribute is required")


def device_claim(c: Collector, path: str, dc: DeviceClaim) -> None:
    reqs = dc.requests or []
    if not c.limit(f"{path}.requests", "claim.requests.max", "requests", len(reqs), MAX_REQUESTS):
        seen: set[str] = set()
        for i, req in enumerate(reqs):
            if req.name in seen:
                c.add(f"{path}.requests[{i}].name", "claim.requests.unique", f"duplicate request name {req.name!r}")
            seen.add(req.name)
            _request(c, f"{path}.requests[{i}]", req)
    known = request_names(dc)
    _constraints(c, f"{path}.constraints", dc, known)
    configs = dc.config or []
    if c.limit(f"{path}.config", "claim.config.max", "config entries", len(configs), MAX_CONFIGS):
        return
    for i, cfg in enumerate(configs):
        references(c, f"{path}.config[{i}].requests", cfg.requests, known, "config.requests")
        opaque(c, f"{path}.config[{i}].opaque", cfg.opaque)


def check_claim(c: Collector, claim: ResourceClaim) -> None:
    device_claim(c, "spec.devices", claim.spec.devices)


def check_template(c: Collector, t: ResourceClaimTemplate) -> None:
    device_claim(c, "spec.spec.devices", t.spec.spec.devices)


def check_class(c: Collector, dc: DeviceClass) -> None:
    selectors(c, "spec.selectors", dc.spec.selectors)
    configs = dc.spec.config or []
    if not c.limit("spec.config", "class.config.max", "config entries", len(configs), MAX_CONFIGS):
        for i, cfg in enumerate(configs):
            opaque(c, f"spec.config[{i}].opaque", cfg.opaque)
    name = dc.spec.extended_resource_name
    if name is not None and not f.extended_resource_name(name):
        c.add("spec.extendedResourceName", "class.extended-resource-name",
              f"{name!r} is not an extended resource name (domain/name, outside kubernetes.io)")
