"""CN-2: what a pool's committed devices leave of its counters, and whether a
counter is overdrawn (T-14's trigger), exactly as the rule words it -- the
pool's values minus the consumption of every held device, in Fractions --
whatever states ask about one pool object one after another (the cluster
object keeps pools across calls, and the pool keeps the last answer), with
fractional, whole and negative values, counters a device names but the pool
lacks, and counters held back beyond the committed devices'."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import pytest

from dralloc.features import Features, Variant
from dralloc.inventory.pools import CounterMap, Pool
from dralloc.inventory.problem import build_problem
from dralloc.inventory.state import AllocatedState
from dralloc.io import parse_object
from dralloc.models import Node, ObjectMeta, ResourceClaim

DRIVER = "d.example.com"
VALUES = ["1", "2", "3", "500m", "1500m", "0.25", "7", "0"]
FEATURES = Features.from_gates(["DRAPartitionableDevices"])


def _slices(rng: random.Random) -> list[Any]:
    ref = {"name": "p", "generation": 1, "resourceSliceCount": 2}
    counters = {c: {"value": rng.choice(VALUES)} for c in ("a", "b", "c")}
    devices = [{"name": f"dev-{i}", "consumesCounters": [{"counterSet": "cs", "counters": {
        c: {"value": rng.choice(VALUES)} for c in rng.sample(["a", "b", "c", "missing"], rng.randint(1, 3))}}]}
        for i in range(8)]
    docs = [{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "devs"},
             "spec": {"driver": DRIVER, "nodeName": "node-1", "pool": ref, "devices": devices}},
            {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "counters"},
             "spec": {"driver": DRIVER, "nodeName": "node-1", "pool": ref,
                      "sharedCounters": [{"name": "cs", "counters": counters}]}}]
    return [parse_object(d) for d in docs]


def _held(devices: list[str]) -> list[ResourceClaim]:
    out = []
    for d in devices:
        obj = parse_object({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                            "metadata": {"name": f"held-{d}", "namespace": "default"},
                            "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "c"}}]}},
                            "status": {"allocation": {"devices": {"results": [
                                {"request": "r", "driver": DRIVER, "pool": "p", "device": d}]}}}})
        assert isinstance(obj, ResourceClaim)
        out.append(obj)
    return out


def _rule(pool: Pool, held: list[str], back: CounterMap) -> CounterMap:
    """CN-2 in Fractions: the pool's values minus each held device's
    consumption of the counters the pool has, minus what is held back."""
    left = {cs: dict(cn) for cs, cn in pool.counter_sets.items()}
    for pd in pool.devices:
        if pd.device.name in held:
            for cc in pd.device.consumes_counters or []:
                for name, c in (cc.counters or {}).items():
                    if name in left.get(cc.counter_set, {}):
                        left[cc.counter_set][name] -= c.value.value
    for cs, cn in back.items():
        for name, v in cn.items():
            if name in left.get(cs, {}):
                left[cs][name] -= v
    return left


@pytest.mark.parametrize("seed", range(30))
def test_available_counters_follow_the_rule_for_every_state_asking_one_pool(seed: int) -> None:
    rng = random.Random(seed)
    problem = build_problem(_slices(rng), [], Node(metadata=ObjectMeta(name="node-1")), [], [],  # type: ignore[arg-type]
                            FEATURES)
    pool = problem.pools[0]
    names = [pd.device.name for pd in pool.devices]
    for _ in range(12):   # one pool object, states holding other device sets one after another
        held = rng.sample(names, rng.randint(0, len(names)))
        state = AllocatedState.from_claims(_held(held), FEATURES, Variant.STABLE)
        back: CounterMap = {}
        if rng.random() < 0.3:
            back = {"cs": {"a": Fraction(rng.choice([1, 3]), rng.choice([1, 4]))}}
            state.held_counters = {pool.id: back}
        want = _rule(pool, held, back)
        got = state.available_counters(pool)
        assert got == want, (seed, held)
        assert all(isinstance(v, Fraction) for cn in got.values() for v in cn.values())
        assert state.overdrawn(pool) == any(v < 0 for cn in want.values() for v in cn.values()), (seed, held)


def test_an_overdrawn_counter_is_seen_and_a_later_state_without_it_is_not() -> None:
    """T-14's trigger: two devices each consuming 2 of a counter of 3 overdraw
    it; a state on the same pool holding one of them does not."""
    ref = {"name": "p", "generation": 1, "resourceSliceCount": 2}
    devices = [{"name": f"dev-{i}", "consumesCounters": [{"counterSet": "cs", "counters": {"n": {"value": "2"}}}]}
               for i in range(2)]
    slices = [parse_object({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "d"},
                            "spec": {"driver": DRIVER, "nodeName": "node-1", "pool": ref, "devices": devices}}),
              parse_object({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "c"},
                            "spec": {"driver": DRIVER, "nodeName": "node-1", "pool": ref,
                                     "sharedCounters": [{"name": "cs", "counters": {"n": {"value": "3"}}}]}})]
    problem = build_problem(slices, [], Node(metadata=ObjectMeta(name="node-1")), [], [],  # type: ignore[arg-type]
                            FEATURES)
    pool = problem.pools[0]
    both = AllocatedState.from_claims(_held(["dev-0", "dev-1"]), FEATURES, Variant.STABLE)
    assert both.overdrawn(pool) and both.available_counters(pool) == {"cs": {"n": Fraction(-1)}}
    one = AllocatedState.from_claims(_held(["dev-1"]), FEATURES, Variant.STABLE)
    assert not one.overdrawn(pool) and one.available_counters(pool) == {"cs": {"n": Fraction(1)}}
    again = AllocatedState.from_claims(_held(["dev-1", "dev-0"]), FEATURES, Variant.STABLE)
    assert again.overdrawn(pool)
