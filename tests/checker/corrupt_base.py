"""Valid cluster states for the corruption suite: the replay's answer to a
conformance scenario, written into the claims as ``status.allocation``, with
the node, a twin of it (same labels, another name), the slices and classes,
the claims allocated before, and one pod per namespace using the new claims.

A state is a list of documents (dicts) so that a corruption is a plain edit;
``Base.check`` parses it and runs the cluster audit's rule checks."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from dralloc.audit import verify_state
from dralloc.check import run_scenario
from dralloc.checker import ERROR, Finding
from dralloc.errors import InputErrors
from dralloc.features import KUBERNETES_RELEASE, Features, Variant
from dralloc.io.loader import ObjectSet, parse_object
from dralloc.io.scenario import Scenario
from dralloc.validation import apply_defaults
from dralloc.validation.admission import admit

Doc = dict[str, Any]


@dataclass
class Base:
    """One valid state and what a corruption needs to know about it."""

    name: str
    items: list[Doc]
    features: Features
    variant: Variant | None
    node: str = ""                      # the node the pods run on ("" for a node-less call)
    twin: str = ""                      # another Node with the same labels
    targets: list[str] = field(default_factory=list)   # keys of the claims the replay allocated
    baseline: frozenset[str] = frozenset()  # findings the state has before any corruption (on other claims)
    admissible: bool = True                  # the front door accepts the valid state

    def copy(self) -> list[Doc]:
        return copy.deepcopy(self.items)

    @property
    def effective_variant(self) -> Variant:
        return self.variant or self.features.variant()

    def errors(self, items: list[Doc]) -> list[str]:
        """The rule violations the checker finds in ``items`` that the valid
        state does not have (rule: message)."""
        return [_key(f) for f in self.findings(items) if _key(f) not in self.baseline]

    def findings(self, items: list[Doc]) -> list[Finding]:
        """What the rule checker finds (the audit's part 1). The state goes
        through the API server's defaults but not its validation: scenario
        objects are the allocator's own input (docs/inputs.md), and the
        checker must catch a broken allocation whether or not the front door
        would also refuse it (:func:`door_refuses` tells)."""
        objs = _parse(self.name, items)
        apply_defaults(objs)
        objs.admitted = True
        rep = verify_state(objs, self.features, self.variant, compare=False, pending=False)
        return [f for f in rep.findings if f.level == ERROR]

    def door_refuses(self, items: list[Doc]) -> str:
        """The first reason the front door (admission) refuses ``items``, or ""."""
        try:
            admit(_parse(self.name, items))
        except InputErrors as e:
            return str(e.errors[0]) if e.errors else str(e)
        return ""


def _parse(name: str, items: list[Doc]) -> ObjectSet:
    objs = ObjectSet()
    for i, it in enumerate(items):
        obj = parse_object(it, f"{name}#{i}")
        assert obj is not None
        objs.add(obj)
    return objs


def _key(f: Finding) -> str:
    return f"{f.rule}: {f.claim}: {f.message}"


def key_of(doc: Doc) -> str:
    ns = doc["metadata"].get("namespace")
    return f"{ns}/{doc['metadata']['name']}" if ns else str(doc["metadata"]["name"])


def _typed(obj: Any, api: str, kind: str) -> Doc:
    d: Doc = obj.dump()
    d["apiVersion"], d["kind"] = api, kind
    return d


def _nodes(sc: Scenario) -> tuple[list[Doc], str, str]:
    if sc.node is None or not sc.node.name:
        return [], "", ""
    name, twin = sc.node.name, f"{sc.node.name}-twin"
    labels = dict(sc.node.metadata.labels or {})
    twin_labels = {k: (twin if v == name else v) for k, v in labels.items()}
    docs = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": n, "labels": lab}}
            for n, lab in ((name, labels), (twin, twin_labels))]
    return docs, name, twin


def _pods(claims: list[Doc], node: str) -> list[Doc]:
    by_ns: dict[str, list[Doc]] = {}
    for c in claims:
        by_ns.setdefault(c["metadata"].get("namespace") or "", []).append(c)
    pods = []
    for i, (ns, cs) in enumerate(sorted(by_ns.items())):
        meta: Doc = {"name": f"pod-{i}", **({"namespace": ns} if ns else {})}
        pods.append({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": {
            "nodeName": node, "containers": [{"name": "main"}],
            "resourceClaims": [{"name": f"c{j}", "resourceClaimName": c["metadata"]["name"]}
                               for j, c in enumerate(cs)]}})
    return pods


def base_from_scenario(sc: Scenario) -> Base | str:
    """The valid state built from ``sc``'s replay answer, or why there is none."""
    if sc.skip_reason:
        return "skipped scenario"
    out = run_scenario(sc)
    if not out.ok or out.allocations is None:
        return "Kubernetes does not allocate"
    nodes, node, twin = _nodes(sc)
    items = nodes + [_typed(s, "resource.k8s.io/v1", "ResourceSlice") for s in sc.objects.slices]
    items += [_typed(c, "resource.k8s.io/v1", "DeviceClass") for c in sc.objects.classes]
    items += [_typed(c, "resource.k8s.io/v1", "ResourceClaim") for c in sc.allocated]
    new = []
    for c, a in zip(sc.claims, out.allocations, strict=True):
        d = _typed(c, "resource.k8s.io/v1", "ResourceClaim")
        d["status"] = {"allocation": a.dump()}
        new.append(d)
    items += new + (_pods(new, node) if node else [])
    keys = [key_of(c) for c in new]
    if len(set(keys)) < len(keys):
        return "claims share a name (not one cluster state)"
    var = None if sc.variant is None else Variant(sc.variant)
    version = sc.kubernetes_version or KUBERNETES_RELEASE
    base = Base(sc.name, items, Features.from_gates(sc.features, kubernetes_version=version), var, node, twin, keys)
    if out.defects:
        return "the replay's answer reproduces a Kubernetes defect: " + "; ".join(out.defects)
    found = base.findings(items)
    mine = [f for f in found if f.claim in base.targets]
    if mine:
        return f"not clean: {mine[0].rule}: {mine[0].message}"
    # The claims allocated before are the scenario's (often synthetic: a request
    # named "allocated", no node selector): what they break is the baseline.
    base.baseline = frozenset(_key(f) for f in found)
    base.admissible = not base.door_refuses(items)
    return base


# ------------------------------------------------------------------ lookups

def claims(items: list[Doc], allocated: bool = True) -> list[Doc]:
    return [it for it in items if it["kind"] == "ResourceClaim"
            and (not allocated or (it.get("status") or {}).get("allocation"))]


def target_claims(base: Base, items: list[Doc]) -> list[Doc]:
    keys = set(base.targets)
    return [c for c in claims(items) if key_of(c) in keys]


def results(c: Doc) -> list[Doc]:
    out: list[Doc] = ((c["status"]["allocation"].get("devices") or {}).get("results")) or []
    return out


def all_results(items: list[Doc]) -> Iterator[tuple[Doc, Doc]]:
    for c in claims(items):
        for r in results(c):
            yield c, r


def slices(items: list[Doc]) -> list[Doc]:
    return [it for it in items if it["kind"] == "ResourceSlice"]


def newest(items: list[Doc], driver: str, pool: str) -> list[Doc]:
    """The slices of the pool's newest generation."""
    mine = [s for s in slices(items) if s["spec"]["driver"] == driver and s["spec"]["pool"]["name"] == pool]
    if not mine:
        return []
    gen = max(s["spec"]["pool"].get("generation", 0) for s in mine)
    return [s for s in mine if s["spec"]["pool"].get("generation", 0) == gen]


def device_doc(items: list[Doc], r: Doc) -> tuple[Doc, Doc] | None:
    """(slice, device) a result names, in the pool's newest generation."""
    for s in newest(items, r["driver"], r["pool"]):
        for d in s["spec"].get("devices") or []:
            if d["name"] == r["device"]:
                return s, d
    return None


def plain_pool(items: list[Doc], r: Doc) -> bool:
    """The result's pool has slices of one generation only, as many as each
    says. With several generations, or counts that disagree with the slices,
    which copy of a device a node sees depends on completeness (PG-6..PG-10):
    the classes that edit or move a device leave such pools alone, so that
    their verdict is the spec's, not a guess."""
    mine = [s["spec"]["pool"] for s in slices(items)
            if (s["spec"]["driver"], s["spec"]["pool"]["name"]) == (r["driver"], r["pool"])]
    return len({p.get("generation", 0) for p in mine}) == 1 and all(
        p.get("resourceSliceCount") == len(mine) for p in mine)


def request_spec(c: Doc, name: str) -> Doc | None:
    """The (sub-)request a result's request name refers to (with defaults)."""
    base, _, sub = name.partition("/")
    for req in c["spec"]["devices"].get("requests") or []:
        if req["name"] != base:
            continue
        if not sub:
            spec: Doc | None = req.get("exactly")
            return spec
        for s in req.get("firstAvailable") or []:
            if s["name"] == sub:
                found: Doc = s
                return found
    return None


def node_doc(items: list[Doc], name: str) -> Doc | None:
    return next((it for it in items if it["kind"] == "Node" and it["metadata"]["name"] == name), None)


def pods(items: list[Doc]) -> list[Doc]:
    return [it for it in items if it["kind"] == "Pod"]
