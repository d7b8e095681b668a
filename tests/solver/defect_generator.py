"""A seeded generator of small allocation questions aimed at Kubernetes'
documented defects: partitions whose counters can leak (taints, constraints),
list attributes under set-mode constraints, distinct attributes over
multi-device requests, shared devices that consume counters, capacity
requests Go holds as inf.Dec, same-named pools of two drivers, counters
overdrawn by allocated devices, All requests, prioritized lists, admin access.
Used to check that the static defect triggers and the solver-side proofs are
sound (tests/solver/test_triggers.py, benchmarks/bench_triggers.py)."""

from __future__ import annotations

import random
from typing import Any

from dralloc.io import parse_object
from dralloc.models import ResourceClaim, TypedObject

GATES = ["DRAPartitionableDevices", "DRAPrioritizedList", "DRAConsumableCapacity", "DRADeviceTaints",
         "DRAAdminAccess", "DRAListTypeAttributes"]
RV = "resource.k8s.io/v1"


def _device(rng: random.Random, name: str, counters: list[str], shared_ok: bool) -> dict[str, Any]:
    attrs: dict[str, Any] = {}
    if rng.random() < 0.9:
        attrs["numa"] = {"int": rng.randint(0, 2)}
    if rng.random() < 0.7:
        attrs["model"] = {"string": rng.choice("ab")}
    if rng.random() < 0.6:
        attrs["ls"] = {"ints": sorted(rng.sample(range(4), rng.randint(1, 3)))}
    d: dict[str, Any] = {"name": name, "attributes": attrs}
    if counters and rng.random() < 0.8:
        d["consumesCounters"] = [{"counterSet": "cs", "counters": {
            c: {"value": rng.choice(["1", "2", "500m"])} for c in rng.sample(counters, rng.randint(1, len(counters)))}}]
    if rng.random() < 0.2:
        d["taints"] = [{"key": rng.choice(["k1", "k2"]), "value": "v", "effect": rng.choice(["NoSchedule", "NoExecute"])}]
    if shared_ok and rng.random() < 0.3:
        d["allowMultipleAllocations"] = True
        if rng.random() < 0.7:
            cap: dict[str, Any] = {"value": rng.choice(["2Gi", "4Gi"])}
            if rng.random() < 0.5:
                cap["requestPolicy"] = {"default": "1Gi", "validRange": {"min": "512Mi"}}
            d["capacity"] = {"mem": cap}
    return d


def _pools(rng: random.Random, shared_ok: bool) -> list[dict[str, Any]]:
    out = []
    names = ["p1", "p2"]
    for i in range(rng.randint(1, 3)):
        driver = rng.choice(["d1.example.com", "d2.example.com"])
        pool = rng.choice(names) if i else names[0]
        if any(s["spec"]["driver"] == driver and s["spec"]["pool"]["name"] == pool for s in out):
            continue
        counters = ["c1", "c2"][: rng.randint(0, 2)]
        slices = 2 if counters else 1
        spec: dict[str, Any] = {"driver": driver, "nodeName": "node-1",
                                "pool": {"name": pool, "generation": 1, "resourceSliceCount": slices},
                                "devices": [_device(rng, f"{pool}-{driver[:2]}-{k}", counters, shared_ok)
                                            for k in range(rng.randint(2, 5))]}
        out.append({"apiVersion": RV, "kind": "ResourceSlice", "metadata": {"name": f"{driver[:2]}-{pool}"},
                    "spec": spec})
        if counters:
            out.append({"apiVersion": RV, "kind": "ResourceSlice", "metadata": {"name": f"{driver[:2]}-{pool}-c"},
                        "spec": {"driver": driver, "nodeName": "node-1", "pool": spec["pool"],
                                 "sharedCounters": [{"name": "cs", "counters": {
                                     c: {"value": rng.choice(["1", "2", "3", "1500m"])} for c in counters}}]}})
    return out


def _body(rng: random.Random, gates: set[str]) -> dict[str, Any]:
    body: dict[str, Any] = {"deviceClassName": "any"}
    if rng.random() < 0.12:
        body["allocationMode"] = "All"
        body["selectors"] = [{"cel": {"expression": 'device.attributes["d1.example.com"].?model.orValue("") == "a"'}}]
    else:
        body["allocationMode"], body["count"] = "ExactCount", rng.randint(1, 3)
    if rng.random() < 0.3:
        body["tolerations"] = [{"key": rng.choice(["k1", "k2"]), "operator": "Exists"}]
    if "DRAConsumableCapacity" in gates and rng.random() < 0.3:
        body["capacity"] = {"requests": {"mem": rng.choice(["1Gi", "0.5Gi", "512Mi"])}}
    return body


def _claim(rng: random.Random, c: int, gates: set[str]) -> dict[str, Any]:
    reqs = []
    for r in range(rng.randint(1, 2)):
        body = _body(rng, gates)
        if "DRAPrioritizedList" in gates and rng.random() < 0.25:
            alts = [{"name": f"s{k}", **_body(rng, gates)} for k in range(2)]
            reqs.append({"name": f"r{r}", "firstAvailable": alts})
            continue
        if "DRAAdminAccess" in gates and rng.random() < 0.1:
            body["adminAccess"] = True
        reqs.append({"name": f"r{r}", "exactly": body})
    cons = []
    for _ in range(rng.choice([0, 0, 1, 1, 2])):
        key = rng.choice(["matchAttribute", "distinctAttribute"])
        con: dict[str, Any] = {key: f"d1.example.com/{rng.choice(['numa', 'model', 'ls'])}"}
        if len(reqs) > 1 and rng.random() < 0.3:
            con["requests"] = [reqs[0]["name"]]
        cons.append(con)
    return {"apiVersion": RV, "kind": "ResourceClaim", "metadata": {"name": f"claim-{c}", "namespace": "default"},
            "spec": {"devices": {"requests": reqs, "constraints": cons}}}


def _allocated(rng: random.Random, slices: list[dict[str, Any]]) -> list[dict[str, Any]]:
    devs = [(s["spec"]["driver"], s["spec"]["pool"]["name"], d["name"])
            for s in slices for d in s["spec"].get("devices", [])]
    out = []
    for i, (drv, pool, name) in enumerate(rng.sample(devs, min(len(devs), rng.choice([0, 0, 1, 2])))):
        out.append({"apiVersion": RV, "kind": "ResourceClaim",
                    "metadata": {"name": f"held-{i}", "namespace": "default"},
                    "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "any"}}]}},
                    "status": {"allocation": {"devices": {"results": [
                        {"request": "r", "driver": drv, "pool": pool, "device": name}]}}}})
    return out


def question(seed: int) -> tuple[list[TypedObject], list[ResourceClaim], list[ResourceClaim], list[str]]:
    """(objects, claims to allocate, allocated claims, feature gates) on node ``node-1``."""
    rng = random.Random(seed)
    gates = {g for g in GATES if rng.random() < 0.6}
    slices = _pools(rng, "DRAConsumableCapacity" in gates)
    objs = [{"apiVersion": RV, "kind": "DeviceClass", "metadata": {"name": "any"}, "spec": {}}, *slices]
    claims = [_claim(rng, c, gates) for c in range(rng.randint(1, 3))]
    held = _allocated(rng, slices)
    parsed = [parse_object(o) for o in objs]
    return ([o for o in parsed if o is not None], [parse_object(c) for c in claims],  # type: ignore[misc]
            [parse_object(c) for c in held], sorted(gates))  # type: ignore[misc]


def _answer(o: Any) -> tuple[object, ...]:
    if o.status.value != "allocated" or o.allocations is None:
        return (o.status.value,)
    return tuple(tuple((r.request, r.driver, r.pool, r.device,
                        tuple(sorted((k, q.value) for k, q in (r.consumed_capacity or {}).items())))
                       for r in a.devices.results or []) for a in o.allocations)


def _same(a: Any, b: Any) -> bool:
    return _answer(a) == _answer(b) or (a.status.value == b.status.value == "error")


def check_question(seed: int) -> tuple[str, list[str]]:
    """Run one question through the replay and first-fit (compare never and
    auto). Returns (how first-fit knew Kubernetes' answer, problems found):
    a defect event without its trigger, different answers where no trigger
    holds, a Kubernetes answer (proof or replay) that is not the replay's."""
    from dralloc.defects import EVENT_DEFECT
    from dralloc.solver import allocate

    objs, claims, held, gates = question(seed)

    def run(mode: str, compare: str = "auto") -> Any:
        return allocate(objs, "node-1", claims, allocated=held, features=gates, mode=mode, compare=compare,
                        compare_time_limit=5.0)

    ref = run("replay")
    if any(n.startswith("replay stopped") for n in ref.notes):
        return "replay stopped", []
    never, auto = run("first-fit", "never"), run("first-fit")
    ka = auto.kubernetes
    if ka is None:  # refused before any search (validation): the same error in every mode
        return "error before the search", [] if _same(ref, auto) else [
            f"seed {seed}: replay {_answer(ref)} ({ref.error}), first-fit {_answer(auto)} ({auto.error})"]
    problems = []
    fired = {EVENT_DEFECT[e] for e in ref.notes if e in EVENT_DEFECT}
    triggered = {t.split(":", 1)[0] for t in ka.triggers}
    if fired - triggered:
        problems.append(f"seed {seed}: defect(s) {sorted(fired - triggered)} fired without a trigger")
    if ka.how == "no trigger" and not _same(ref, never):
        problems.append(f"seed {seed}: no trigger, but Kubernetes {_answer(ref)} != first-fit {_answer(never)}")
    if ka.known:
        theirs = ka.outcome if ka.same is False and ka.outcome is not None else auto
        if not _same(ref, theirs):
            problems.append(f"seed {seed}: Kubernetes' answer known by {ka.how} is {_answer(theirs)}, "
                            f"the replay gives {_answer(ref)}")
    if auto.verified is False:
        problems.append(f"seed {seed}: first-fit's answer does not verify: {auto.findings}")
    return ka.how, problems
