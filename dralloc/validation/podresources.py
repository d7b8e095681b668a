"""What the API server checks of a pod's extended resources (KEP-5004 reads
them): in every container's ``resources``, an extended resource (a domain
name outside kubernetes.io) is a whole number and cannot be overcommitted --
a request needs a limit, and equals it (a DeviceClass's implicit
``deviceclass.resource.kubernetes.io/<class>`` is in the kubernetes.io
domain: these rules are not applied to it here); and the pod's
``status.extendedResourceClaimStatus``: a claim name, and a request mapping
whose container is one of the pod's, whose resource that container asks for
and whose request name is a DNS label."""

from __future__ import annotations

from typing import Any

from dralloc.models import Container, Pod
from dralloc.quantity import Quantity, QuantityError
from dralloc.validation import formats as f
from dralloc.validation.finding import Collector

DEVICE_CLASS_PREFIX = "deviceclass.resource.kubernetes.io/"


def is_extended(name: str) -> bool:
    """An extended resource name, or a class's implicit one."""
    return f.extended_resource_name(name) or name.startswith(DEVICE_CLASS_PREFIX)


def _amount(c: Collector, path: str, value: Any) -> Quantity | None:
    try:
        q = Quantity.parse(value)
    except QuantityError as e:
        c.add(path, "format.quantity", str(e))
        return None
    if q.value.denominator != 1 or q.value < 0:
        c.add(path, "pod.extended-resource.integer", f"{q} must be a non-negative whole number "
              "(an extended resource is counted in units)")
        return None
    return q


def _container(c: Collector, path: str, ct: Container) -> None:
    res = ct.resources
    if res is None:
        return
    reqs = {k: v for k, v in (res.requests or {}).items() if f.extended_resource_name(k)}
    lims = {k: v for k, v in (res.limits or {}).items() if f.extended_resource_name(k)}
    got = {k: _amount(c, f"{path}.resources.limits[{k}]", v) for k, v in lims.items()}
    for k, v in reqs.items():
        rp = f"{path}.resources.requests[{k}]"
        q = _amount(c, rp, v)
        if k not in lims:
            c.add(rp, "pod.extended-resource.overcommit", f"{k}: a limit must be set (extended resources cannot "
                  "be overcommitted)")
        elif q is not None and got[k] is not None and q != got[k]:
            c.add(rp, "pod.extended-resource.overcommit", f"{k}: the request {q} must equal the limit {got[k]}")


def _status(c: Collector, pod: Pod) -> None:
    st = pod.status.extended_resource_claim_status if pod.status else None
    if st is None:
        return
    path = "status.extendedResourceClaimStatus"
    f.dns_subdomain(c, f"{path}.resourceClaimName", st.resource_claim_name, "resource claim name")
    containers = {ct.name: ct for ct in [*(pod.spec.init_containers or []), *pod.spec.containers]}
    for i, m in enumerate(st.request_mappings or []):
        mp = f"{path}.requestMappings[{i}]"
        f.dns_label(c, f"{mp}.requestName", m.request_name, "request name")
        ct = containers.get(m.container_name)
        if ct is None:
            c.add(f"{mp}.containerName", "pod.extended-resource.status", f"{m.container_name!r} is not a container "
                  "of the pod")
            continue
        res = ct.resources
        asked = set(res.requests or {}) | set(res.limits or {}) if res is not None else set()
        if m.resource_name not in asked:
            c.add(f"{mp}.resourceName", "pod.extended-resource.status", f"container {m.container_name} does not "
                  f"ask for {m.resource_name}")


def check_extended_resources(c: Collector, pod: Pod) -> None:
    for kind, containers in (("initContainers", pod.spec.init_containers or []), ("containers", pod.spec.containers)):
        for j, ct in enumerate(containers):
            _container(c, f"spec.{kind}[{j}]", ct)
    _status(c, pod)
