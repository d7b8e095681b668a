"""A seeded generator of small allocation questions (slices, classes, claims)
that exercise counters, constraints, prioritized lists and admin access."""

from __future__ import annotations

import random
from typing import Any

from dralloc.io import parse_object
from dralloc.models import ResourceClaim, TypedObject

DRIVER = "gpu.example.com"
FEATURES = ["DRAPartitionableDevices", "DRAPrioritizedList", "DRAConsumableCapacity"]


def _device(rng: random.Random, i: int, counters: bool) -> dict[str, Any]:
    d: dict[str, Any] = {
        "name": f"dev-{i}",
        "attributes": {"model": {"string": rng.choice(["a", "b"])}, "numa": {"int": rng.randint(0, 2)}},
        "capacity": {"memory": {"value": f"{rng.choice([1, 2, 4])}Gi"}},
    }
    if counters:
        d["consumesCounters"] = [{"counterSet": "gpu", "counters": {"mem": {"value": str(rng.randint(1, 4))}}}]
    return d


def _request(rng: random.Random, name: str) -> dict[str, Any]:
    body: dict[str, Any] = {"deviceClassName": "gpu", "count": rng.randint(1, 3)}
    if rng.random() < 0.4:
        body["selectors"] = [{"cel": {"expression": f'device.attributes["{DRIVER}"].model == "{rng.choice("ab")}"'}}]
    if rng.random() < 0.25:
        alts = [{"name": f"alt-{k}", **{**body, "count": rng.randint(1, 3)}} for k in range(2)]
        return {"name": name, "firstAvailable": alts}
    return {"name": name, "exactly": body}


def scenario(seed: int) -> tuple[list[TypedObject], list[ResourceClaim]]:
    rng = random.Random(seed)
    counters = rng.random() < 0.5
    n = rng.randint(3, 7)
    spec: dict[str, Any] = {"driver": DRIVER, "nodeName": "node-1",
                            "pool": {"name": "pool-1", "generation": 1, "resourceSliceCount": 2 if counters else 1},
                            "devices": [_device(rng, i, counters) for i in range(n)]}
    objs: list[dict[str, Any]] = [
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
         "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s-devices"}, "spec": spec},
    ]
    if counters:
        objs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s-counters"},
                     "spec": {"driver": DRIVER, "nodeName": "node-1", "pool": spec["pool"],
                              "sharedCounters": [{"name": "gpu", "counters": {"mem": {"value": str(rng.randint(3, 9))}}}]}})
    claims = []
    for c in range(rng.randint(1, 2)):
        reqs = [_request(rng, f"req-{r}") for r in range(rng.randint(1, 2))]
        cons = []
        if rng.random() < 0.5:
            key = rng.choice(["matchAttribute", "distinctAttribute"])
            cons.append({key: f"{DRIVER}/{rng.choice(['model', 'numa'])}"})
        claims.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                       "metadata": {"name": f"claim-{c}", "namespace": "default"},
                       "spec": {"devices": {"requests": reqs, "constraints": cons}}})
    parsed = [parse_object(o) for o in objs]
    return [o for o in parsed if o is not None], [parse_object(c) for c in claims]  # type: ignore[misc]
