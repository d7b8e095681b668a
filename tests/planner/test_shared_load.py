"""Sharing never changes an answer. A load stores the parts nodes of one type
have in common once (dralloc.io.share), and the planner's fingerprints and
admission's checks remember shared parts by identity; on a mixed cluster
(whole GPUs with NICs, DynamicMIG, one node holding an allocated device) the
shared load must answer exactly as the same documents validated one object
at a time, with nothing shared."""

from __future__ import annotations

from typing import Any

import pytest

from dralloc.cluster import Cluster
from dralloc.io import ObjectSet, parse_object
from dralloc.models import ResourceClaim, ResourceSlice, TypedObject
from dralloc.planner.api import Options, answer
from dralloc.planner.generate import clusters as gen
from dralloc.planner.generate.profiles import gpu_model
from tests.planner.aicluster import ai_cluster, aligned, pod

Doc = dict[str, Any]
A100 = gpu_model("a100-40gb")
PROFILES = ("1g.5gb", "3g.20gb")


def _held(docs: list[Doc]) -> Doc:
    """A claim holding the first GPU of gpu-0000 (allocated in the input)."""
    s = next(d for d in docs if d["kind"] == "ResourceSlice" and d["spec"].get("nodeName") == "gpu-0000"
             and d["spec"]["driver"] == gen.GPU_DRIVER)
    result = {"request": "gpu", "driver": gen.GPU_DRIVER, "pool": s["spec"]["pool"]["name"],
              "device": s["spec"]["devices"][0]["name"]}
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": "held", "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}}]}},
            "status": {"allocation": {"devices": {"results": [result]}}}}


@pytest.fixture(scope="module")
def docs() -> list[Doc]:
    out = ai_cluster(3, 3, gpus=2, seed=5)
    out += [aligned("pair", 1), aligned("two", 2), *(gen.mig_template(A100.profile(p)) for p in PROFILES)]
    out += [pod("pair", ["pair"], replicas=3), pod("two", ["two"], replicas=2, priority=1, gang="g"),
            *(pod(f"m-{p}", [f"mig-{A100.profile(p).label}"], replicas=9) for p in PROFILES)]
    return [*out, _held(out)]


def _unshared(docs: list[Doc]) -> ObjectSet:
    """Every object on its own: slices validated whole, nothing shared."""
    objs: list[TypedObject] = []
    for d in docs:
        obj = ResourceSlice.model_validate(d) if d["kind"] == "ResourceSlice" else parse_object(d)
        assert obj is not None
        objs.append(obj)
    return ObjectSet.of(objs)


def _no_times(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _no_times(x) for k, x in v.items() if not k.endswith(("Seconds", "seconds"))}
    if isinstance(v, list):
        return [_no_times(x) for x in v]
    return v


def _mig_caps(objs: ObjectSet) -> list[object]:
    return [s.spec.devices[0].capacity for s in objs.slices
            if s.spec.node_name in ("mig-0000", "mig-0001") and s.spec.devices]


def test_the_two_loads_differ_only_in_sharing(docs: list[Doc]) -> None:
    shared, unshared = gen.objects(docs), _unshared(docs)
    assert shared.slices == unshared.slices
    a, b = _mig_caps(shared), _mig_caps(unshared)
    assert a[0] is a[len(a) // 2] and b[0] is not b[len(b) // 2]   # the twin nodes' parts: one object or two


def test_plan_fit_answers_alike(docs: list[Doc]) -> None:
    opts = Options(workers=1, time_limit=30)
    got = answer("fit", gen.objects(docs), opts).as_dict()
    want = answer("fit", _unshared(docs), opts).as_dict()
    assert got["firstFit"]["pods"] > 0 and got["optimal"]["pods"] > 0
    assert _no_times(got) == _no_times(want)


def test_the_allocator_answers_alike_on_every_node(docs: list[Doc]) -> None:
    templates = {d["metadata"]["name"]: d for d in docs if d["kind"] == "ResourceClaimTemplate"}
    answers = []
    for objs in (gen.objects(docs), _unshared(docs)):
        cl, got = Cluster(objs), []
        for node in sorted(n.name for n in objs.nodes):
            for name, t in sorted(templates.items()):
                claim = ResourceClaim.model_validate({"metadata": {"name": name, "namespace": "default"},
                                                      "spec": t["spec"]["spec"]})
                r = cl.allocate(node, [claim])
                got.append((node, name, r.ok, [a.model_dump() for a in r.allocations or []]))
        answers.append(got)
    assert answers[0] == answers[1]
    assert any(ok for _, _, ok, _ in answers[0]) and not all(ok for _, _, ok, _ in answers[0])
