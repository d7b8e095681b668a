"""Kubernetes 1.37's alpha allocator features in the engines beyond
``allocate()``: every KEP scenario of tests/scenarios/kep137 gives the KEP's
answer through a :class:`dralloc.Cluster` holding the scenario's objects, and
``plan fit`` of one pod using the scenario's claims places the pod exactly
when Kubernetes allocates them (derived attributes, compatibility groups and
the list-type intersection are the allocator's rules, so the planner, which
keeps only what the allocator realises, must agree)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dralloc import Cluster
from dralloc.check import compare_answer
from dralloc.errors import InputErrors
from dralloc.io import ObjectSet
from dralloc.io.loader import parse_object
from dralloc.io.scenario import Scenario, load_scenarios
from dralloc.models import ResourceClaim
from dralloc.planner.api import Options, answer
from dralloc.solver.outcome import Status

FILES = sorted((Path(__file__).parent / "kep137").glob("*.yaml"))


def _load(path: Path) -> Scenario:
    scenarios, errors = load_scenarios([path])
    assert not errors, [str(e) for e in errors]
    return scenarios[0]


def _objects(sc: Scenario, *extra: object) -> ObjectSet:
    assert sc.node is not None
    objs = ObjectSet()
    for o in [*sc.objects.all(), sc.node, *sc.allocated, *extra]:
        objs.add(o)  # type: ignore[arg-type]
    return objs


@pytest.mark.parametrize("mode", ["replay", "first-fit"])
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_cluster_gives_the_kep_answer(path: Path, mode: str) -> None:
    sc = _load(path)
    assert sc.node is not None and sc.expect is not None
    cluster = Cluster(_objects(sc), features=sc.features, variant=sc.variant, admission=False,
                      kubernetes_version=sc.kubernetes_version)
    got = cluster.allocate(sc.node.name, sc.claims, mode=mode)
    if mode == "first-fit" and sc.kubernetes_version == "1.36" and got.status is Status.ALLOCATED:
        # 1.36's stale intersection: the rules allow what its allocator refuses (named, test_kep137)
        k8s = got.kubernetes
        assert k8s is not None and k8s.known and k8s.same is False and k8s.outcome is not None
        assert not compare_answer(sc, k8s.outcome), compare_answer(sc, k8s.outcome)
        return
    assert not compare_answer(sc, got), compare_answer(sc, got)
    if got.status is Status.ALLOCATED:
        assert got.verified and not got.findings


def _admissible(claim: ResourceClaim) -> ResourceClaim:
    """The claim with its derived attributes' names as the API server takes
    them: the KEP's examples spell them ``shared-numa-node``, which its own
    type (the format of a slice's attribute names, a C identifier) refuses,
    and the planner admits its input (docs/inputs.md)."""
    doc = claim.dump()
    for r in doc["spec"]["devices"].get("requests", []):
        for body in [r.get("exactly") or {}, *r.get("firstAvailable", [])]:
            for d in body.get("derivedAttributes", []):
                d["name"] = d["name"].replace("-", "_")
    for c in doc["spec"]["devices"].get("constraints", []):
        for key in ("matchAttribute", "distinctAttribute"):
            if key in c and "/" not in c[key]:
                c[key] = c[key].replace("-", "_")
    return ResourceClaim.model_validate(doc)


def _pod(sc: Scenario) -> object:
    doc = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "kep-pod", "namespace": "default"},
           "spec": {"containers": [{"name": "c"}],
                    "resourceClaims": [{"name": f"c{i}", "resourceClaimName": c.metadata.name}
                                       for i, c in enumerate(sc.claims)]}}
    pod = parse_object(doc, "test")
    assert pod is not None
    return pod


def _plannable(path: Path) -> bool:
    """A scenario whose answer is an allocation or a refusal (an error, such
    as a CEL runtime error, is allocate's answer, not a placement)."""
    exp = _load(path).expect
    return exp is not None and exp.error is None


PLANNABLE = [p for p in FILES if _plannable(p)]


@pytest.mark.parametrize("path", PLANNABLE, ids=lambda p: p.stem)
def test_plan_fit_places_the_pod_exactly_when_kubernetes_allocates(path: Path) -> None:
    sc = _load(path)
    assert sc.expect is not None
    objs = _objects(sc, *[_admissible(c) for c in sc.claims], _pod(sc))
    ans = answer("fit", objs, Options(gates=tuple(sorted(sc.features)), kubernetes_version=sc.kubernetes_version,
                                      workers=1))
    want = 0 if sc.expect.unsatisfiable else 1
    assert ans.first_fit["pods"] == want, ans.first_fit
    if sc.kubernetes_version == "1.36":
        # the rules admit the pod (the bound), 1.36's allocator cannot realise it: not proven either way
        assert (ans.optimal["pods"], ans.optimal["bound"], ans.optimal["proven"]) == (0, 1, False), ans.optimal
        return
    assert ans.optimal["pods"] == want and ans.optimal["proven"], ans.optimal


def test_the_keps_derived_attribute_names_are_refused_on_admission() -> None:
    """The KEP's example name ``shared-numa-node`` is not in the format its
    type gives derived attribute names; where dralloc admits input (the
    planner, ``validate``), the claim is refused naming the field."""
    sc = _load(Path(__file__).parent / "kep137" / "derived-gpu-nic-numa-alignment.yaml")
    with pytest.raises(InputErrors) as err:
        answer("fit", _objects(sc, *sc.claims, _pod(sc)), Options(gates=tuple(sc.features)))
    assert "spec.devices.requests[0].exactly.derivedAttributes[0].name" in str(err.value)
    assert "C identifier" in str(err.value)
