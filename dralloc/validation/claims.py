"""What the API server enforces for ResourceClaims, ResourceClaimTemplates and
DeviceClasses (resource.k8s.io/v1)."""

from __future__ import annotations

import json

from dralloc.models import (
    DeviceClass,
    DeviceSelector,
    DeviceToleration,
    ResourceClaim,
    ResourceClaimTemplate,
)
from dralloc.models.resource import DeviceClaim, DeviceRequest, DeviceSubRequest, ExactDeviceRequest
from dralloc.validation import formats as f
from dralloc.validation.finding import Collector

MAX_REQUESTS = 32
MAX_SUBREQUESTS = 8
MAX_CONSTRAINTS = 32
MAX_CONFIGS = 32
MAX_SELECTORS = 32
MAX_TOLERATIONS = 16
MAX_CEL_LENGTH = 10 * 1024
MAX_OPAQUE_PARAMETERS = 10 * 1024
ALLOCATION_MODES = ("ExactCount", "All")
TOLERATION_OPERATORS = ("Equal", "Exists")
TOLERATION_EFFECTS = ("", "NoSchedule", "NoExecute", "None")


def selectors(c: Collector, path: str, sels: list[DeviceSelector] | None) -> None:
    sels = sels or []
    c.limit(path, "selectors.max", "selectors", len(sels), MAX_SELECTORS)
    for i, sel in enumerate(sels):
        if sel.cel is None:
            c.add(f"{path}[{i}]", "selectors.cel", "a selector needs a cel expression")
            continue
        expr = sel.cel.expression
        if not expr.strip():
            c.add(f"{path}[{i}].cel.expression", "selectors.cel", "the CEL expression is empty")
        elif len(expr) > MAX_CEL_LENGTH:
            c.add(f"{path}[{i}].cel.expression", "selectors.cel.length",
                  f"CEL expression is {len(expr)} characters, at most {MAX_CEL_LENGTH} are allowed")


def _tolerations(c: Collector, path: str, tols: list[DeviceToleration] | None) -> None:
    tols = tols or []
    c.limit(path, "tolerations.max", "tolerations", len(tols), MAX_TOLERATIONS)
    for i, t in enumerate(tols):
        tp = f"{path}[{i}]"
        op = t.operator or "Equal"
        if op not in TOLERATION_OPERATORS:
            c.add(f"{tp}.operator", "tolerations.operator", f"operator {op!r} is not Equal or Exists")
        if op == "Exists" and t.value:
            c.add(f"{tp}.value", "tolerations.value", "value must be empty with operator Exists")
        if t.key:
            f.label_key(c, f"{tp}.key", t.key, "toleration key")
        elif op != "Exists":
            c.add(f"{tp}.key", "tolerations.key", "an empty key needs operator Exists")
        if (t.effect or "") not in TOLERATION_EFFECTS:
            c.add(f"{tp}.effect", "tolerations.effect", f"effect {t.effect!r} is not NoSchedule, NoExecute or None")


def _body(c: Collector, path: str, r: ExactDeviceRequest | DeviceSubRequest) -> None:
    f.dns_subdomain(c, f"{path}.deviceClassName", r.device_class_name, "deviceClassName")
    mode = r.allocation_mode or "ExactCount"
    if mode not in ALLOCATION_MODES:
        c.add(f"{path}.allocationMode", "request.allocation-mode", f"allocationMode {mode!r} is not ExactCount or All")
    elif mode == "ExactCount" and r.count is not None and r.count <= 0:
        c.add(f"{path}.count", "request.count", f"count must be greater than zero, not {r.count}")
    elif mode == "All" and r.count not in (None, 0):
        c.add(f"{path}.count", "request.count", "count must not be set with allocationMode All")
    selectors(c, f"{path}.selectors", r.selectors)
    _tolerations(c, f"{path}.tolerations", r.tolerations)
    for name, q in ((r.capacity.requests or {}) if r.capacity else {}).items():
        if q.sign() < 0:
            c.add(f"{path}.capacity.requests[{name}]", "request.capacity", "capacity requests must not be negative")


def _request(c: Collector, path: str, req: DeviceRequest) -> set[str]:
    """Check one request; returns the names it can be referred to by."""
    f.dns_label(c, f"{path}.name", req.name, "request name")
    names = {req.name}
    if (req.exactly is None) == (req.first_available is None):
        c.add(path, "request.one-of", "exactly one of exactly and firstAvailable must be set")
    if req.exactly is not None:
        _body(c, f"{path}.exactly", req.exactly)
    if req.first_available is not None:
        subs = req.first_available
        if not subs or len(subs) > MAX_SUBREQUESTS:
            c.add(f"{path}.firstAvailable", "request.subrequests.max",
                  f"{len(subs)} subrequests; 1 to {MAX_SUBREQUESTS} are allowed")
        seen: set[str] = set()
        for k, sub in enumerate(subs):
            sp = f"{path}.firstAvailable[{k}]"
            f.dns_label(c, f"{sp}.name", sub.name, "subrequest name")
            if sub.name in seen:
                c.add(f"{sp}.name", "request.subrequests.unique", f"duplicate subrequest name {sub.name!r}")
            seen.add(sub.name)
            names.add(f"{req.name}/{sub.name}")
            _body(c, sp, sub)
    return names


def _references(c: Collector, path: str, refs: list[str] | None, known: set[str], rule: str) -> None:
    for i, ref in enumerate(refs or []):
        if ref not in known:
            c.add(f"{path}[{i}]", rule, f"{ref!r} is not a request of this claim")


def _opaque(c: Collector, path: str, driver: str, params: object) -> None:
    f.dns_subdomain(c, f"{path}.driver", driver, "driver name", most=f.MAX_LABEL)
    if params is None:
        c.add(f"{path}.parameters", "config.parameters", "parameters are required")
        return
    size = len(json.dumps(params, separators=(",", ":"), default=str))
    if size > MAX_OPAQUE_PARAMETERS:
        c.add(f"{path}.parameters", "config.parameters.size",
              f"parameters are {size} bytes as JSON, at most {MAX_OPAQUE_PARAMETERS} are allowed")


def device_claim(c: Collector, path: str, dc: DeviceClaim) -> None:
    reqs = dc.requests or []
    c.limit(f"{path}.requests", "claim.requests.max", "requests", len(reqs), MAX_REQUESTS)
    known: set[str] = set()
    for i, req in enumerate(reqs):
        if req.name in known:
            c.add(f"{path}.requests[{i}].name", "claim.requests.unique", f"duplicate request name {req.name!r}")
        known |= _request(c, f"{path}.requests[{i}]", req)
    cons = dc.constraints or []
    c.limit(f"{path}.constraints", "claim.constraints.max", "constraints", len(cons), MAX_CONSTRAINTS)
    for i, con in enumerate(cons):
        cp = f"{path}.constraints[{i}]"
        if (con.match_attribute is None) == (con.distinct_attribute is None):
            c.add(cp, "constraint.one-of", "exactly one of matchAttribute and distinctAttribute must be set")
        for name in (con.match_attribute, con.distinct_attribute):
            if name is not None:
                f.qualified_name(c, cp, name, "constraint attribute", need_domain=True)
        _references(c, f"{cp}.requests", con.requests, known, "constraint.requests")
    configs = dc.config or []
    c.limit(f"{path}.config", "claim.config.max", "config entries", len(configs), MAX_CONFIGS)
    for i, cfg in enumerate(configs):
        _references(c, f"{path}.config[{i}].requests", cfg.requests, known, "config.requests")
        if cfg.opaque is None:
            c.add(f"{path}.config[{i}]", "config.opaque", "a config entry needs opaque")
        else:
            _opaque(c, f"{path}.config[{i}].opaque", cfg.opaque.driver, cfg.opaque.parameters)


def check_claim(c: Collector, claim: ResourceClaim) -> None:
    device_claim(c, "spec.devices", claim.spec.devices)


def check_template(c: Collector, t: ResourceClaimTemplate) -> None:
    device_claim(c, "spec.spec.devices", t.spec.spec.devices)


def check_class(c: Collector, dc: DeviceClass) -> None:
    selectors(c, "spec.selectors", dc.spec.selectors)
    configs = dc.spec.config or []
    c.limit("spec.config", "class.config.max", "config entries", len(configs), MAX_CONFIGS)
    for i, cfg in enumerate(configs):
        if cfg.opaque is None:
            c.add(f"spec.config[{i}]", "config.opaque", "a config entry needs opaque")
        else:
            _opaque(c, f"spec.config[{i}].opaque", cfg.opaque.driver, cfg.opaque.parameters)
