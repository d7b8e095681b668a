"""k8srm prototype DeviceClaim specs to v1 ResourceClaim specs.

* Each ``devices[]`` instance becomes requests: one per ``allOf`` entry
  (named after the instance, ``-0``, ``-1``... when there are several) and one
  ``firstAvailable`` request for ``oneOf`` (its alternatives ``alt-0``...,
  in priority order).
* ``constraints`` (CEL over a flat ``device`` map of attributes) become a v1
  CEL selector over ``device.attributes["devmgmtproto.k8s.io"]``.
* ``requests.devices`` (or a bare ``devices:``) becomes ``count``; another
  resource request on a one-device entry becomes a capacity selector.
* ``matchAttributes`` (claim level: across all requests; entry level: within
  that entry) become ``matchAttribute`` constraints, ``distinctAttributes``
  become ``distinctAttribute``.

What v1 cannot say is refused with a :class:`NotTranslatable` naming the
field: ``maxDevices`` (a range of devices), ``allowShared``, and aggregate
resource requests over several devices."""

from __future__ import annotations

import re
from typing import Any

from dralloc.errors import InputError
from dralloc.formats.common import (
    Translation,
    as_list,
    as_mapping,
    c_identifier,
    dns_label,
    quantity,
)
from dralloc.formats.k8srm_pools import DOMAIN, attr_name

_DEVICE_REF = re.compile(r"\bdevice\.([A-Za-z_][A-Za-z0-9_]*)")


class NotTranslatable(InputError):
    """A prototype construct with no resource.k8s.io/v1 equivalent."""


def translate_cel(expr: str) -> str:
    """``device.model`` -> ``device.attributes["devmgmtproto.k8s.io"].model``."""
    return _DEVICE_REF.sub(lambda m: f'device.attributes["{DOMAIN}"].{c_identifier(m.group(1))}', expr)


class _Claim:
    def __init__(self, where: str, obj: str, tr: Translation) -> None:
        self.where, self.obj, self.tr = where, obj, tr
        self.requests: list[dict[str, Any]] = []
        self.constraints: list[dict[str, Any]] = []
        self.by_instance: dict[str, list[str]] = {}  # instance name -> its v1 request names

    def refuse(self, path: str, why: str) -> NotTranslatable:
        return NotTranslatable(why, source=self.where, obj=self.obj, field=path)

    def body(self, det: dict[str, Any], path: str) -> dict[str, Any]:
        """A v1 exact request (or subrequest) body for one claim detail."""
        if not isinstance(det.get("class"), str) or not det["class"]:
            raise InputError("class is required", source=self.where, obj=self.obj, field=f"{path}.class")
        if det.get("maxDevices") is not None:
            raise self.refuse(f"{path}.maxDevices", "maxDevices asks for a range of devices (split allocation); "
                              "v1 requests an exact count or all devices")
        if det.get("allowShared"):
            raise self.refuse(f"{path}.allowShared", "allowShared (a share of a device) has no v1 equivalent "
                              "for these pools; v1 shares a device only through consumable capacity "
                              "published by the driver")
        reqs = {str(k): v for k, v in as_mapping(det.get("requests"), self.where, self.obj,
                                                 f"{path}.requests").items()}
        count = reqs.pop("devices", det.get("devices", 1))
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            count = int(quantity(count, self.where, self.obj, f"{path}.requests.devices").value)
        out: dict[str, Any] = {"deviceClassName": det["class"]}
        selectors = []
        if isinstance(det.get("constraints"), str) and det["constraints"].strip():
            selectors.append(translate_cel(det["constraints"]))
        for name, v in reqs.items():
            if count != 1:
                raise self.refuse(f"{path}.requests.{name}", f"a request for {name} summed over {count} "
                                  "devices has no v1 equivalent (v1 selects devices one by one)")
            q = quantity(v, self.where, self.obj, f"{path}.requests.{name}")
            cap = c_identifier(name)
            selectors.append(f'"{DOMAIN}" in device.capacity && "{cap}" in device.capacity["{DOMAIN}"] && '
                             f'device.capacity["{DOMAIN}"]["{cap}"].compareTo(quantity("{q.canonical()}")) >= 0')
        if selectors:
            out["selectors"] = [{"cel": {"expression": e}} for e in selectors]
        if count != 1:
            out["count"] = count
        if det.get("adminAccess"):
            out["adminAccess"] = True
        for key in ("config", "configs"):
            if det.get(key):
                self.tr.notes.append(f"{self.where}: {self.obj}: {path}.{key}: configuration references are "
                                     "not carried over (v1 has only opaque driver parameters)")
        return out

    def entry_constraints(self, det: dict[str, Any], refs: list[str]) -> None:
        for a in det.get("matchAttributes") or []:
            self.constraints.append({"requests": refs, "matchAttribute": attr_name(str(a))})
        for a in det.get("distinctAttributes") or []:
            self.constraints.append({"requests": refs, "distinctAttribute": attr_name(str(a))})

    def instance(self, inst: Any, i: int) -> None:
        path = f"spec.devices[{i}]"
        inst = as_mapping(inst, self.where, self.obj, path)
        name = inst.get("name")
        if not isinstance(name, str) or not name:
            raise InputError("name is required", source=self.where, obj=self.obj, field=f"{path}.name")
        all_of = as_list(inst.get("allOf"), self.where, self.obj, f"{path}.allOf")
        if inst.get("class") is not None:  # shorthand seen in the testdata: the detail inline
            all_of = [inst, *all_of]
        one_of = as_list(inst.get("oneOf"), self.where, self.obj, f"{path}.oneOf")
        if not all_of and not one_of:
            raise InputError("an instance needs allOf or oneOf", source=self.where, obj=self.obj, field=path)
        names: list[str] = []
        many = len(all_of) + bool(one_of) > 1
        for j, det in enumerate(all_of):
            dpath = f"{path}.allOf[{j}]" if inst.get("class") is None or j else path
            det = as_mapping(det, self.where, self.obj, dpath)
            rname = dns_label(f"{name}-{j}" if many else name)
            self.requests.append({"name": rname, "exactly": self.body(det, dpath)})
            self.entry_constraints(det, [rname])
            names.append(rname)
        if one_of:
            rname = dns_label(f"{name}-{len(all_of)}" if many else name)
            subs = []
            for j, det in enumerate(one_of):
                det = as_mapping(det, self.where, self.obj, f"{path}.oneOf[{j}]")
                subs.append({"name": f"alt-{j}", **self.body(det, f"{path}.oneOf[{j}]")})
                self.entry_constraints(det, [f"{rname}/alt-{j}"])
            self.requests.append({"name": rname, "firstAvailable": subs})
            names.append(rname)
        self.by_instance[name] = names


def translate_claim_spec(spec: Any, where: str, obj: str, tr: Translation) -> tuple[dict[str, Any],
                                                                                    dict[str, list[str]]]:
    """(v1 ResourceClaimSpec, instance name -> v1 request names)."""
    c = _Claim(where, obj, tr)
    spec = as_mapping(spec, where, obj, "spec")
    for i, inst in enumerate(as_list(spec.get("devices"), where, obj, "spec.devices")):
        c.instance(inst, i)
    for a in spec.get("matchAttributes") or []:
        c.constraints.append({"matchAttribute": attr_name(str(a))})
    devices: dict[str, Any] = {"requests": c.requests}
    if c.constraints:
        devices["constraints"] = c.constraints
    return {"devices": devices}, c.by_instance
