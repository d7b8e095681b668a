"""The replay's counter ledger (exact integers, only the touched counters
compared) decides every counter check exactly as Kubernetes' CN-3 does (every
counter of the pool name's cached counter sets, in exact arithmetic): random
sequences of checks and releases over fractional counters, counters
overdrawn by allocated devices (T-14), and two drivers' pools of one name
(T-13)."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import pytest

from dralloc.features import Features
from dralloc.inventory.pools import CounterMap, Pool, PoolDevice
from dralloc.inventory.problem import build_problem
from dralloc.io import parse_object
from dralloc.models import Node, ObjectMeta
from dralloc.solver.ledger import CounterLedger

VALUES = ["1", "2", "500m", "1500m", "0.25", "3"]


def _pool_slices(rng: random.Random, driver: str, name: str) -> list[dict[str, Any]]:
    ref = {"name": name, "generation": 1, "resourceSliceCount": 2}
    counters = {c: {"value": rng.choice(VALUES)} for c in ("a", "b")}
    devices = [{"name": f"{name}-{i}", "consumesCounters": [{"counterSet": "cs", "counters": {
        c: {"value": rng.choice(VALUES)} for c in rng.sample(["a", "b"], rng.randint(1, 2))}}]} for i in range(5)]
    return [{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{driver}-{name}"},
             "spec": {"driver": driver, "nodeName": "node-1", "pool": ref, "devices": devices}},
            {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{driver}-{name}-c"},
             "spec": {"driver": driver, "nodeName": "node-1", "pool": ref,
                      "sharedCounters": [{"name": "cs", "counters": counters}]}}]


def _held(driver: str, pool: str, device: str) -> Any:
    return parse_object({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                         "metadata": {"name": f"held-{device}", "namespace": "default"},
                         "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "c"}}]}},
                         "status": {"allocation": {"devices": {"results": [
                             {"request": "r", "driver": driver, "pool": pool, "device": device}]}}}})


class Reference:
    """CN-1..CN-4 as the specification words them, in Fractions."""

    def __init__(self, ledger: CounterLedger) -> None:
        self.state = ledger.state
        self.available: dict[str, CounterMap] = {}
        self.consumed: dict[str, dict[tuple[str, str], Fraction]] = {}

    def try_add(self, pd: PoolDevice) -> bool:
        avail = self.available.setdefault(pd.pool.name, self.state.available_counters(pd.pool))
        used = self.consumed.setdefault(pd.pool.name, {})
        use = [((cs, n), v) for cs, m in pd.consumption().items() for n, v in m.items()]
        for k, v in use:
            used[k] = used.get(k, Fraction(0)) + v
        if any(value < used.get((cs, n), Fraction(0)) for cs, m in avail.items() for n, value in m.items()):
            for k, v in use:
                used[k] -= v
            return False
        return True

    def release(self, pd: PoolDevice) -> None:
        used = self.consumed[pd.pool.name]
        for cs, m in pd.consumption().items():
            for n, v in m.items():
                used[(cs, n)] -= v


@pytest.mark.parametrize("seed", range(40))
def test_ledger_decides_like_the_specification(seed: int) -> None:
    rng = random.Random(seed)
    raw = _pool_slices(rng, "d1.example.com", "p") + _pool_slices(rng, "d1.example.com", "q")
    if rng.random() < 0.5:  # T-13: another driver's pool of the same name
        raw += _pool_slices(rng, "d2.example.com", "p")
    slices = [parse_object(o) for o in raw]
    held = [_held("d1.example.com", "p", f"p-{i}") for i in rng.sample(range(5), rng.randint(0, 3))]
    problem = build_problem(slices, [], Node(metadata=ObjectMeta(name="node-1")), [], held,  # type: ignore[arg-type]
                            Features.from_gates(["DRAPartitionableDevices"]))
    pools: list[Pool] = problem.pools
    devices = [pd for pool in pools for pd in pool.devices]
    ledger = CounterLedger(problem.state, pools)
    ref = Reference(ledger)
    taken: list[PoolDevice] = []
    for _ in range(60):
        if taken and rng.random() < 0.4:
            pd = taken.pop(rng.randrange(len(taken)))
            ledger.release(pd)
            ref.release(pd)
            continue
        pd = rng.choice(devices)
        got, want = ledger.try_add(pd), ref.try_add(pd)
        assert got == want, (seed, pd.label)
        if got:
            taken.append(pd)
    for name in {p.name for p in pools}:
        want: CounterMap = {}
        for (cs, n), v in ref.consumed.get(name, {}).items():
            if v:
                want.setdefault(cs, {})[n] = v
        assert ledger.consumed_counters(name) == want
