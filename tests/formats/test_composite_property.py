"""Property tests: the counter translation of composite devices allows
exactly the device sets the first KEP-4815 draft allows, and allocation on a
translated one-level tree equals allocation on the same devices written by
hand with a counter set."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations
from typing import Any

from formats_helpers import (
    NODE,
    any_class,
    claim_for,
    claim_where,
    composite_device,
    composite_slice,
)
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from dralloc.formats import convert_documents
from dralloc.io import ObjectSet, parse_object
from dralloc.models import ResourceSlice
from dralloc.solver import allocate

FEATURES = ["DRAPartitionableDevices"]
CAPS = ("mem", "sm")
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def forests(draw: Any) -> tuple[list[int | None], list[dict[str, int]]]:
    """parents[i] < i (or None: a root) and each device's capacities."""
    n = draw(st.integers(1, 6))
    parents = [None] + [draw(st.one_of(st.none(), st.integers(0, i - 1))) for i in range(1, n)]
    caps = [draw(st.dictionaries(st.sampled_from(CAPS), st.integers(0, 3), max_size=2)) for _ in range(n)]
    return parents, caps


def _ancestors(parents: list[int | None], i: int) -> list[int]:
    out, p = [], parents[i]
    while p is not None:
        out.append(p)
        p = parents[p]
    return out


def draft_allows(parents: list[int | None], caps: list[dict[str, int]], chosen: tuple[int, ...]) -> bool:
    """The draft's rule, read from the KEP text: no chosen device is a source
    (on the path to the root) of another, and below every device the chosen
    devices pull at most its capacity."""
    if any(a in chosen for i in chosen for a in _ancestors(parents, i)):
        return False
    for a in range(len(parents)):
        for c, have in caps[a].items():
            pulled = sum(caps[d].get(c, 0) for d in chosen if a in _ancestors(parents, d))
            if pulled > have:
                return False
    return True


def counters_allow(slices: list[ResourceSlice], chosen: set[str]) -> bool:
    have = {(cs.name, k): v.value.value for s in slices for cs in s.spec.shared_counters or []
            for k, v in (cs.counters or {}).items()}
    used: dict[tuple[str, str], Fraction] = {}
    for s in slices:
        for d in s.spec.devices or []:
            if d.name not in chosen:
                continue
            for cc in d.consumes_counters or []:
                for k, v in (cc.counters or {}).items():
                    used[(cc.counter_set, k)] = used.get((cc.counter_set, k), Fraction(0)) + v.value.value
    return all(v <= have[k] for k, v in used.items())


def _translated(parents: list[int | None], caps: list[dict[str, int]]) -> list[ResourceSlice]:
    devs = [composite_device(f"d{i}", None if p is None else f"d{p}", caps[i]) for i, p in enumerate(parents)]
    return [o for o in convert_documents([composite_slice(devs)]) if isinstance(o, ResourceSlice)]


@SETTINGS
@given(forests())
@example(([None, 0, None, None, 2], [{"mem": 0, "sm": 0}, {"mem": 0, "sm": 1}, {"mem": 0, "sm": 1}, {},
                                      {"mem": 0, "sm": 1}]))  # two trees with a same-named root counter
def test_counters_allow_exactly_the_sets_the_draft_allows(forest: Any) -> None:
    parents, caps = forest
    slices = _translated(parents, caps)
    n = len(parents)
    for k in range(1, n + 1):
        for chosen in combinations(range(n), k):
            assert counters_allow(slices, {f"d{i}" for i in chosen}) == draft_allows(parents, caps, chosen), chosen


@SETTINGS
@given(forests(), st.data())
def test_allocate_on_translation_follows_the_draft(forest: Any, data: Any) -> None:
    parents, caps = forest
    chosen = tuple(sorted(data.draw(st.sets(st.integers(0, len(parents) - 1), min_size=1))))
    objs = ObjectSet()
    for o in [*_translated(parents, caps), any_class()]:
        objs.add(o)
    out = allocate(objs, NODE, [claim_for([f"d{i}" for i in chosen])], features=FEATURES)
    assert out.ok == draft_allows(parents, caps, chosen), out


@st.composite
def one_level(draw: Any) -> tuple[dict[str, int], list[dict[str, int]]]:
    root = {c: draw(st.integers(1, 4)) for c in CAPS}
    parts = []
    for _ in range(draw(st.integers(1, 5))):
        p = {c: draw(st.integers(0, 3)) for c in CAPS}
        if not any(p.values()):
            p["mem"] = 1  # a partition always takes something from the whole device
        parts.append(p)
    return root, parts


def _by_hand(root: dict[str, int], parts: list[dict[str, int]]) -> list[Any]:
    """The same devices as a person writes them in v1: the whole device
    consumes every counter, each partition its share."""
    def dev(name: str, size: int, cons: dict[str, int]) -> dict[str, Any]:
        return {"name": name, "attributes": {"id": {"string": name}, "size": {"int": size}},
                "capacity": {c: {"value": str(v)} for c, v in cons.items()},
                "consumesCounters": [{"counterSet": "gpu", "counters": {
                    c: {"value": str(v)} for c, v in cons.items() if v}}]}
    pool = {"name": "pool-1", "generation": 1, "resourceSliceCount": 2}
    head = {"driver": "gpu.example.com", "nodeName": NODE, "pool": pool}
    counters = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "counters"},
                "spec": {**head, "sharedCounters": [{"name": "gpu", "counters": {
                    c: {"value": str(v)} for c, v in root.items()}}]}}
    devices = [dev("whole", 100, root)] + [dev(f"part-{i}", sum(p.values()), p) for i, p in enumerate(parts)]
    return [parse_object(counters), parse_object({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                                                  "metadata": {"name": "devices"}, "spec": {**head,
                                                                                            "devices": devices}})]


def _composite(root: dict[str, int], parts: list[dict[str, int]]) -> list[Any]:
    def dev(name: str, size: int, source: str | None, cons: dict[str, int]) -> dict[str, Any]:
        d = composite_device(name, source, cons)
        d["composite"]["attributes"]["size"] = {"int": size}
        return d
    devs = [dev("whole", 100, None, root)] + [dev(f"part-{i}", sum(p.values()), "whole", p)
                                              for i, p in enumerate(parts)]
    return list(convert_documents([composite_slice(devs)]))


@SETTINGS
@given(one_level(), st.lists(st.integers(0, 4), min_size=1, max_size=3))
def test_translation_allocates_like_hand_written_counters(tree: Any, sizes: list[int]) -> None:
    root, parts = tree
    claim = claim_where([f'device.attributes["gpu.example.com"].size >= {s}' for s in sizes])
    answers = []
    for objects in (_composite(root, parts), _by_hand(root, parts)):
        objs = ObjectSet()
        for o in [*objects, any_class()]:
            objs.add(o)
        out = allocate(objs, NODE, [claim], features=FEATURES)
        devs = [r.device for r in out.allocations[0].devices.results or []] if out.ok and out.allocations and \
            out.allocations[0].devices else None
        answers.append((out.status, devs))
    assert answers[0] == answers[1]
