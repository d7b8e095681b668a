"""Seeded random states built by the Kubernetes search (replay, claim by
claim) verify clean; the same state with one random corruption (a device
swapped, a counter exceeded, an attribute changed) is flagged, every time."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from verify_build import DRIVER, claim, dclass, device, exact, node, rslice, state

from dralloc.audit import verify_state
from dralloc.checker import ERROR
from dralloc.features import Features
from dralloc.solver import allocate

FEATURES = Features.from_gates(["DRAPartitionableDevices", "DRAPrioritizedList", "DRAConsumableCapacity"])
NODES = ("node-1", "node-2")


def _slices(rng: random.Random) -> list[dict[str, Any]]:
    out = []
    for n in NODES:
        devs = [device(f"gpu-{i}", numa=rng.randint(0, 1), model=rng.choice("ab")) for i in range(rng.randint(3, 5))]
        out.append(rslice(f"gpu-{n}", devs, node=n, pool=f"gpu-{n}"))
        parts = []
        for i in range(4):
            p = device(f"part-{i}", numa=i % 2)
            p["consumesCounters"] = [{"counterSet": "mem", "counters": {"memory": {"value": f"{rng.choice((2, 4))}Gi"}}}]
            parts.append(p)
        out.append(rslice(f"parts-{n}", parts, node=n, pool=f"parts-{n}", count=2))
        out.append(rslice(f"parts-{n}-counters", [], node=n, pool=f"parts-{n}", count=2,
                          counters=[{"name": "mem", "counters": {"memory": {"value": "8Gi"}}}]))
    return out


def _classes() -> list[dict[str, Any]]:
    part = dclass("part")
    part["spec"]["selectors"].append({"cel": {"expression": 'device.attributes["gpu.example.com"].?model.orValue("") == ""'}})
    gpu = dclass("gpu")
    gpu["spec"]["selectors"].append({"cel": {"expression": 'has(device.attributes["gpu.example.com"].model)'}})
    return [gpu, part]


def _claim(rng: random.Random, i: int) -> dict[str, Any]:
    kind = rng.choice(("match", "distinct", "plain", "part", "part"))
    if kind == "part":
        return claim(f"c{i}", [exact(cls="part", count=rng.randint(1, 2))])
    cons = {"match": [{"matchAttribute": f"{DRIVER}/numa"}], "distinct": [{"distinctAttribute": f"{DRIVER}/numa"}],
            "plain": None}[kind]
    return claim(f"c{i}", [exact(count=2 if cons else rng.randint(1, 2))], constraints=cons)


def build(seed: int) -> list[dict[str, Any]]:
    """A state whose claims were allocated one by one by the Kubernetes search."""
    rng = random.Random(seed)
    items = [node(n) for n in NODES] + _classes() + _slices(rng)
    for i in range(rng.randint(4, 8)):
        c = _claim(rng, i)
        objs = state(items)
        target = rng.choice(NODES)
        out = allocate(objs, target, [state([c]).claims[0]], features=FEATURES, mode="replay")
        if out.ok and out.allocations is not None:
            c["status"] = {"allocation": out.allocations[0].dump()}
        items.append(c)
    return items


def errors(items: list[dict[str, Any]]) -> set[str]:
    rep = verify_state(state(items), FEATURES, compare=False, pending=False)
    return {f.rule for f in rep.findings if f.level == ERROR}


def _results(items: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(it, r) for it in items if it["kind"] == "ResourceClaim" and "status" in it
            for r in it["status"]["allocation"]["devices"]["results"]]


def _device(items: list[dict[str, Any]], pool: str, name: str) -> dict[str, Any]:
    return next(d for it in items if it["kind"] == "ResourceSlice" and it["spec"]["pool"]["name"] == pool
                for d in it["spec"].get("devices", []) if d["name"] == name)


def swap_device(items: list[dict[str, Any]], rng: random.Random) -> str | None:
    held = _results(items)
    pairs = [(a, b) for a in held for b in held if a[0] is not b[0]]
    if not pairs:
        return None
    (_, r), (_, other) = rng.choice(pairs)
    r.update(driver=other["driver"], pool=other["pool"], device=other["device"])
    return "double-allocation"


def exceed_counter(items: list[dict[str, Any]], rng: random.Random) -> str | None:
    used: dict[str, int] = {}
    for _, r in _results(items):
        if r["pool"].startswith("parts-"):
            d = _device(items, r["pool"], r["device"])
            used[r["pool"]] = used.get(r["pool"], 0) + int(d["consumesCounters"][0]["counters"]["memory"]["value"][:-2])
    if not used:
        return None
    pool = rng.choice(sorted(used))
    cs = next(it for it in items if it["kind"] == "ResourceSlice" and it["metadata"]["name"] == f"{pool}-counters")
    cs["spec"]["sharedCounters"][0]["counters"]["memory"]["value"] = f"{used[pool] - 1}Gi"
    return "counters"


def change_attribute(items: list[dict[str, Any]], rng: random.Random) -> str | None:
    constrained = [it for it in items if it["kind"] == "ResourceClaim" and "status" in it
                   and it["spec"]["devices"].get("constraints")]
    if not constrained:
        return None
    c = rng.choice(constrained)
    rs = c["status"]["allocation"]["devices"]["results"]
    first, second = (_device(items, r["pool"], r["device"]) for r in rs[:2])
    if "matchAttribute" in c["spec"]["devices"]["constraints"][0]:
        second["attributes"]["numa"] = {"int": first["attributes"]["numa"]["int"] + 7}
        return "match-attribute"
    second["attributes"]["numa"] = dict(first["attributes"]["numa"])
    return "distinct-attribute"


CORRUPTIONS = (swap_device, exceed_counter, change_attribute)
SEEDS = range(12)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_state_verifies_clean_and_every_corruption_is_flagged(seed: int) -> None:
    items = build(seed)
    assert errors(items) == set()
    applied = 0
    for corrupt in CORRUPTIONS:
        bad = copy.deepcopy(items)
        rule = corrupt(bad, random.Random(seed * 31 + applied))
        if rule is None:
            continue
        applied += 1
        assert rule in errors(bad), f"seed {seed}: {corrupt.__name__} not flagged"
    assert applied >= 1


def test_the_generator_exercises_every_corruption() -> None:
    seen = set()
    for seed in SEEDS:
        items = build(seed)
        for corrupt in CORRUPTIONS:
            if corrupt(copy.deepcopy(items), random.Random(seed)) is not None:
                seen.add(corrupt.__name__)
    assert seen == {c.__name__ for c in CORRUPTIONS}
