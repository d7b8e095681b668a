"""Mutated conformance scenarios (counts changed, claims reordered or dropped,
allocated claims dropped, a feature gate flipped, another allocator variant):
no crash, every first-fit answer verifies clean, and first-fit equals the
replay of the Kubernetes search unless a named defect (or a comparison replay
that ran out of time) explains the difference."""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from dralloc.check import run_scenario
from dralloc.errors import DrallocError
from dralloc.io.scenario import parse_scenario
from dralloc.solver.limits import NO_LIMIT

CORPUS = sorted((Path(__file__).resolve().parents[1] / "scenarios" / "conformance").glob("*/*.yaml"))
GATES = ["DRAPartitionableDevices", "DRAPrioritizedList", "DRAConsumableCapacity", "DRADeviceTaints",
         "DRAAdminAccess", "DRADeviceBindingConditions", "DRAListTypeAttributes"]
N, CHUNKS = 120, 4


def _counts(d: dict[str, Any], rng: random.Random) -> None:
    for c in d.get("claims", []):
        for r in c.get("spec", {}).get("devices", {}).get("requests") or []:
            ex = r.get("exactly")
            if ex and ex.get("allocationMode", "ExactCount") == "ExactCount":
                ex["count"] = max(0, ex.get("count", 1) + rng.choice([-1, 1, 2]))


def _variant(d: dict[str, Any], rng: random.Random) -> None:
    v = rng.choice(["stable", "incubating", "experimental"])
    drop = {"stable": {"DRAConsumableCapacity", "DRADeviceBindingConditions", "DRAListTypeAttributes"},
            "incubating": {"DRAListTypeAttributes"}, "experimental": set()}[v]
    d["variant"] = v
    d["features"] = [f for f in d.get("features") or [] if f not in drop]


def mutate(doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    d = copy.deepcopy(doc)
    d.pop("expect", None)
    d.pop("skip_reason", None)
    op = rng.choice(["count", "shuffle", "drop_alloc", "drop_claim", "feature", "variant"])
    if op == "count":
        _counts(d, rng)
    elif op == "shuffle":
        rng.shuffle(d.get("claims", []))
    elif op == "drop_alloc":
        d["allocated"] = []
    elif op == "drop_claim" and len(d.get("claims", [])) > 1:
        d["claims"].pop(rng.randrange(len(d["claims"])))
    elif op == "feature":
        d["features"] = sorted(set(d.get("features") or []) ^ {rng.choice(GATES)})
        d.pop("variant", None)
    elif op == "variant":
        _variant(d, rng)
    return d


def _summary(o):  # type: ignore[no-untyped-def]
    if o.allocations is None:
        return (o.status.value,)
    return tuple(tuple((r.request, r.device) for r in a.devices.results or []) if a.devices else ()
                 for a in o.allocations)


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_mutated_scenarios(chunk: int) -> None:
    rng = random.Random(1000 + chunk)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    for _ in range(N // CHUNKS):
        path = rng.choice(CORPUS)
        doc = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)  # noqa: S506 - a safe loader
        try:
            sc = parse_scenario(mutate(doc, rng), str(path))
        except DrallocError:
            continue
        # the reference must be known: the replay runs to its end (a mutation
        # can take over a million steps, past 10 s on a loaded machine)
        ref = run_scenario(sc, "replay", replay_limit=NO_LIMIT)
        got = run_scenario(sc, "first-fit")
        assert got.verified is not False, (path.name, got.findings)
        if _summary(ref) == _summary(got) or (ref.status.value == got.status.value == "error"):
            continue
        explained = got.defects and not any(d.startswith("unexplained") for d in got.defects)
        stopped = got.kubernetes is not None and got.kubernetes.how == "stopped"
        assert explained or stopped, (path.name, _summary(ref), _summary(got), got.notes)
