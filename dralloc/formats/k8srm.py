"""The k8srm prototype (kubernetes-sigs/wg-device-management) to v1: classes,
claims and pods; pools are in :mod:`dralloc.formats.k8srm_pools`, claim
specs in :mod:`dralloc.formats.k8srm_claims`.

* A leaf DeviceClass (``driver`` and optional ``constraints``) selects
  ``device.driver == <driver> && <constraints>``.
* A meta DeviceClass (a label ``selector`` over classes) selects what any of
  the leaf classes whose labels match selects: the OR of their selectors.
* A DeviceClaim named by a pod's ``deviceClaims.template`` becomes a
  ResourceClaimTemplate; one named by ``deviceClaims.claimName`` (shared by
  pods), or not named by any pod, a ResourceClaim.
* A pod's ``deviceClaims.devices`` list (name/class pairs) becomes one
  ResourceClaimTemplate ``<pod>-<name>`` per entry; ``containers[].devices``
  become ``resources.claims``.

Objects that cannot be translated are left out, with the reason in
``Translation.explanations`` under their reference (e.g. ``DeviceClaim default/x``)."""

from __future__ import annotations

import copy
from typing import Any

from dralloc.errors import InputError
from dralloc.formats.common import Translation, as_list, as_mapping, dns_label
from dralloc.formats.k8srm_claims import NotTranslatable, translate_cel, translate_claim_spec
from dralloc.formats.k8srm_pools import translate_pool, v1_driver
from dralloc.io.loader import RawDocument, parse_object
from dralloc.models import Pod, ResourceClaim, ResourceClaimTemplate, ResourceSlice

V1 = "resource.k8s.io/v1"


def is_prototype_pod(doc: Any) -> bool:
    return (isinstance(doc, dict) and doc.get("kind") == "Pod" and isinstance(doc.get("spec"), dict)
            and "deviceClaims" in doc["spec"])


def _meta(doc: dict[str, Any]) -> dict[str, Any]:
    m = doc.get("metadata")
    return dict(m) if isinstance(m, dict) else {}


def _ref(doc: dict[str, Any]) -> str:
    m = _meta(doc)
    ns = m.get("namespace")
    return f"{doc.get('kind')} {ns + '/' if ns else ''}{m.get('name', '')}"


def _leaf_expr(spec: dict[str, Any]) -> str | None:
    body: dict[str, Any] = spec["definition"] if isinstance(spec.get("definition"), dict) else spec
    driver = body.get("driver")
    if not isinstance(driver, str) or not driver:
        return None
    expr = f'device.driver == "{v1_driver(driver)}"'
    if isinstance(body.get("constraints"), str) and body["constraints"].strip():
        expr += f" && ({translate_cel(body['constraints'])})"
    return expr


def _labels_match(labels: dict[str, str], selector: dict[str, Any]) -> bool:
    for k, v in (selector.get("matchLabels") or {}).items():
        if labels.get(k) != v:
            return False
    for req in selector.get("matchExpressions") or []:
        key, op, values = req.get("key"), req.get("operator"), req.get("values") or []
        has = key in labels
        ok = {"In": has and labels.get(key) in values, "NotIn": not has or labels.get(key) not in values,
              "Exists": has, "DoesNotExist": not has}.get(op)
        if not ok:
            return False
    return True


def _classes(docs: list[RawDocument], tr: Translation) -> list[tuple[str, dict[str, Any]]]:
    leaves: dict[str, tuple[str, dict[str, str]]] = {}
    for d in docs:
        spec = as_mapping(d.data.get("spec"), d.where, _ref(d.data), "spec")
        expr = _leaf_expr(spec)
        if expr is not None:
            leaves[_meta(d.data).get("name", "")] = (expr, _meta(d.data).get("labels") or {})
    out = []
    for d in docs:
        name, spec = _meta(d.data).get("name", ""), d.data.get("spec") or {}
        expr = leaves.get(name, (None, {}))[0]
        if expr is None and isinstance(spec.get("selector"), dict):
            members = [n for n, (_, labels) in leaves.items() if _labels_match(labels, spec["selector"])]
            expr = " || ".join(f"({leaves[n][0]})" for n in members) or "false"
            tr.notes.append(f"{d.where}: {_ref(d.data)}: selects the classes {', '.join(members) or '(none)'}")
        if expr is None:
            tr.explanations[_ref(d.data)] = ("neither a driver nor a class selector: the prototype's API "
                                             f"has no other way to define a class (found {', '.join(spec)})")
            continue
        if spec.get("configs") or (isinstance(spec.get("definition"), dict) and spec["definition"].get("configs")):
            tr.notes.append(f"{d.where}: {_ref(d.data)}: configuration references are not carried over")
        out.append((d.where, {"apiVersion": V1, "kind": "DeviceClass", "metadata": {"name": name},
                              "spec": {"selectors": [{"cel": {"expression": expr}}]}}))
    return out


def _claim_uses(pods: list[RawDocument]) -> dict[tuple[str, str], set[str]]:
    """(namespace, claim) -> {"template", "claim"}: how pods name each DeviceClaim."""
    uses: dict[tuple[str, str], set[str]] = {}
    for p in pods:
        ns = _meta(p.data).get("namespace") or "default"
        dc = p.data["spec"].get("deviceClaims") or {}
        if isinstance(dc.get("template"), dict) and dc["template"].get("claimName"):
            uses.setdefault((ns, str(dc["template"]["claimName"])), set()).add("template")
        if isinstance(dc.get("claimName"), str):
            uses.setdefault((ns, dc["claimName"]), set()).add("claim")
    return uses


def _claims(docs: list[RawDocument], pods: list[RawDocument], tr: Translation,
            requests: dict[tuple[str, str], dict[str, list[str]]]) -> list[tuple[str, dict[str, Any]]]:
    uses = _claim_uses(pods)
    out = []
    for d in docs:
        meta = _meta(d.data)
        ns, name = meta.get("namespace") or "default", meta.get("name", "")
        try:
            spec, by_inst = translate_claim_spec(d.data.get("spec"), d.where, _ref(d.data), tr)
        except NotTranslatable as e:
            tr.explanations[_ref(d.data)] = f"{e.field}: {e.message}"
            continue
        requests[(ns, name)] = by_inst
        m = {"name": name, "namespace": ns}
        for use in sorted(uses.get((ns, name), {"claim"})):
            if use == "template":
                out.append((d.where, {"apiVersion": V1, "kind": "ResourceClaimTemplate", "metadata": m,
                                      "spec": {"spec": spec}}))
            else:
                out.append((d.where, {"apiVersion": V1, "kind": "ResourceClaim", "metadata": m, "spec": spec}))
    return out


def _pod(d: RawDocument, requests: dict[tuple[str, str], dict[str, list[str]]],
         tr: Translation) -> list[tuple[str, dict[str, Any]]]:
    """The v1 pod, plus the templates its ``deviceClaims.devices`` entries make."""
    pod = copy.deepcopy(d.data)
    meta, spec = _meta(pod), pod["spec"]
    ns, name = meta.get("namespace") or "default", meta.get("name", "")
    dc = as_mapping(spec.pop("deviceClaims"), d.where, _ref(d.data), "spec.deviceClaims")
    out: list[tuple[str, dict[str, Any]]] = []
    claims: list[dict[str, Any]] = []
    refs: dict[str, list[dict[str, str]]] = {}  # container device name -> resources.claims entries
    for i, e in enumerate(as_list(dc.get("devices"), d.where, _ref(d.data), "spec.deviceClaims.devices")):
        e = as_mapping(e, d.where, _ref(d.data), f"spec.deviceClaims.devices[{i}]")
        ename, cls = str(e.get("name", "")), e.get("class")
        if not ename or not isinstance(cls, str):
            raise InputError("each entry needs name and class", source=d.where, obj=_ref(d.data),
                             field=f"spec.deviceClaims.devices[{i}]")
        tname = dns_label(f"{name}-{ename}")
        out.append((d.where, {"apiVersion": V1, "kind": "ResourceClaimTemplate",
                              "metadata": {"name": tname, "namespace": ns}, "spec": {"spec": {"devices": {
                                  "requests": [{"name": dns_label(ename), "exactly": {"deviceClassName": cls}}]}}}}))
        claims.append({"name": dns_label(ename), "resourceClaimTemplateName": tname})
        refs[ename] = [{"name": dns_label(ename)}]
    for key, field in (("template", "resourceClaimTemplateName"), ("claimName", "resourceClaimName")):
        target = dc.get(key)
        cname = target.get("claimName") if isinstance(target, dict) else target
        if not isinstance(cname, str) or not cname:
            continue
        pname = dns_label(cname)
        claims.append({"name": pname, field: cname})
        by_inst = requests.get((ns, cname))
        if by_inst is None:
            tr.explanations[_ref(d.data)] = f"names DeviceClaim {ns}/{cname}, which was not translated"
            return out
        for inst, reqs in by_inst.items():
            refs[inst] = [{"name": pname, "request": r} for r in reqs]
    for c in spec.get("containers") or []:
        devs = c.pop("devices", None) or []
        entries = [x for dv in devs if isinstance(dv, dict) for x in refs.get(str(dv.get("name")), [])]
        if entries:
            c.setdefault("resources", {})["claims"] = entries
    spec["resourceClaims"] = claims
    out.append((d.where, pod))
    return out


def translate_prototype(docs: list[RawDocument]) -> Translation:
    """Translate every prototype document together (classes refer to each
    other, pods to claims)."""
    tr = Translation()
    kinds: dict[str, list[RawDocument]] = {}
    for d in docs:
        kinds.setdefault("Pod" if is_prototype_pod(d.data) else str(d.data.get("kind")), []).append(d)
    produced: list[tuple[str, dict[str, Any]]] = _classes(kinds.pop("DeviceClass", []), tr)
    for d in kinds.pop("DevicePool", []):
        produced += [(d.where, x) for x in translate_pool(d.data, d.where, tr)]
    requests: dict[tuple[str, str], dict[str, list[str]]] = {}
    pods = kinds.pop("Pod", [])
    produced += _claims(kinds.pop("DeviceClaim", []), pods, tr, requests)
    for p in pods:
        produced += _pod(p, requests, tr)
    for kind, rest in kinds.items():
        for d in rest:
            tr.notes.append(f"{d.where}: {_ref(d.data)}: {kind} of the prototype is not used for allocation; skipped")
    for where, doc in produced:
        obj = parse_object(doc, where)
        if obj is not None:
            tr.objects.append(obj)
    _explain_constraints(tr)
    return tr


def _values(tr: Translation) -> dict[str, set[str]]:
    """Attribute name -> every value some translated device has for it."""
    out: dict[str, set[str]] = {}
    for s in (o for o in tr.objects if isinstance(o, ResourceSlice)):
        for d in s.spec.devices or []:
            for k, v in (d.attributes or {}).items():
                out.setdefault(k, set()).add(repr(v.dump()))
    return out


def _explain_constraints(tr: Translation) -> None:
    """Explain up front what no allocation can satisfy on the translated
    pools: an attribute to match or keep distinct that no device has, or
    fewer distinct values than devices requested."""
    values = _values(tr)
    if not values:
        return
    for o in tr.objects:
        spec = o.spec if isinstance(o, ResourceClaim) else o.spec.spec if isinstance(o, ResourceClaimTemplate) else None
        if spec is None:
            continue
        counts = {r.name: (r.exactly.count or 1) if r.exactly else 1 for r in spec.devices.requests or []}
        for c in spec.devices.constraints or []:
            attr = c.match_attribute or c.distinct_attribute or ""
            short = attr.rpartition("/")[2]
            if attr not in values:
                tr.cannot_allocate[o.ref] = (f"{'matchAttributes' if c.match_attribute else 'distinctAttributes'} "
                                          f"{short}: no device in the given pools has this attribute")
                continue
            want = sum(counts.get(r.partition("/")[0], 1) for r in c.requests or counts)
            if c.distinct_attribute and len(values[attr]) < want:
                tr.cannot_allocate[o.ref] = (f"distinctAttributes {short}: {want} devices need distinct values, "
                                          f"the given pools have only {len(values[attr])}")


def pod_claims(pod: Pod, templates: list[ResourceClaimTemplate], claims: list[ResourceClaim]) -> list[ResourceClaim]:
    """The claims the pod's allocation is asked for, templates instantiated
    as ``<pod>-<claim name>`` (Kubernetes adds a random suffix instead)."""
    out = []
    ns = pod.namespace or "default"
    for pc in pod.spec.resource_claims or []:
        if pc.resource_claim_name:
            found = [c for c in claims if c.name == pc.resource_claim_name and (c.namespace or "default") == ns]
        else:
            found = [ResourceClaim.model_validate({
                "metadata": {"name": f"{pod.name}-{pc.name}", "namespace": ns}, "spec": t.spec.spec.dump()})
                for t in templates if t.name == pc.resource_claim_template_name and (t.namespace or "default") == ns]
        if not found:
            raise InputError(f"pod {ns}/{pod.name}: claim {pc.name} refers to an object that is not loaded",
                             obj=f"Pod {ns}/{pod.name}", field="spec.resourceClaims")
        out.append(found[0])
    return out
