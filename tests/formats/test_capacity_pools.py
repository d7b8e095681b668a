"""The 2025-03 revision of KEP-4815 (capacity pools) translated to v1: the
KEP's fragments, mixin rules, errors naming the field, and allocation on the
translation equal to the capacity-pool rule (property test)."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
import yaml
from formats_helpers import NODE, any_class, claim_for
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dralloc.errors import InputError
from dralloc.formats import detect_format, translate
from dralloc.io import ObjectSet, parse_object
from dralloc.models import ResourceSlice
from dralloc.solver import allocate

DATA = Path(__file__).parent / "data" / "kep-2025-03"
FEATURES = ["DRAPartitionableDevices"]


def _slices(doc: Any) -> list[ResourceSlice]:
    return [o for o in translate([doc]).objects if isinstance(o, ResourceSlice)]


def _load(name: str) -> Any:
    return yaml.safe_load((DATA / name).read_text())


def test_the_kep_fragments_are_detected_as_capacity_pools() -> None:
    assert detect_format(_load("four-gpus.yaml")) == "capacity-pools"
    assert detect_format({"devices": [{"name": "a", "composite": {"consumesCapacityFrom": []}}]}) == "composite"


def test_four_gpus_become_four_counter_sets_with_mixins_applied() -> None:
    slices = _slices(_load("four-gpus.yaml"))
    sets = {cs.name: {k: v.value.canonical() for k, v in (cs.counters or {}).items()}
            for s in slices for cs in s.spec.shared_counters or []}
    assert sets == {f"gpu-{i}-pool": {"memory": "40Gi"} for i in range(4)}
    devs = {d.name: d for s in slices for d in s.spec.devices or []}
    gpu1 = devs["gpu-1"]
    assert [(c.counter_set, {k: v.value.canonical() for k, v in c.counters.items()})
            for c in gpu1.consumes_counters or []] == [("gpu-1-pool", {"memory": "40Gi"})]
    attrs = gpu1.attributes or {}
    assert attrs["productName"].string == "NVIDIA A100-SXM4-40GB"     # from a device mixin
    assert attrs["index"].int_ == 1                                   # the device's own attribute
    assert gpu1.capacity and gpu1.capacity["memory"].value.canonical() == "40Gi"   # capacity-only mixin


def test_the_kep_partition_fragment_is_refused_naming_the_mixin_it_confuses_with_a_pool() -> None:
    with pytest.raises(InputError) as e:
        translate([_load("partitions-as-written.yaml")])
    msg = str(e.value)
    assert "devices[1].composite.consumesCapacity[0].capacityPool" in msg
    assert "'gpu-pool-mixin'" in msg and "gpu-0-pool" in msg


def _fixed_partitions() -> Any:
    """The same fragment as the KEP means it: partitions consume from gpu-0-pool."""
    doc = _load("partitions-as-written.yaml")
    for d in doc["devices"]:
        d["composite"].setdefault("attributes", {})["id"] = {"string": d["name"]}
    for d in doc["devices"][1:]:
        d["composite"]["consumesCapacity"] = [{"capacityPool": "gpu-0-pool",
                                               "includes": [{"name": "gpu-partition-consumption"}]}]
    return doc


@pytest.mark.parametrize(("wanted", "ok"), [(["gpu-0-partition-0", "gpu-0-partition-3"], True),
                                            (["gpu-0", "gpu-0-partition-1"], False),
                                            ([f"gpu-0-partition-{i}" for i in range(4)], True)])
def test_partitions_share_the_pool(wanted: list[str], ok: bool) -> None:
    objs = ObjectSet()
    for o in [*translate([_fixed_partitions()]).objects, any_class()]:
        objs.add(o)
    reqs = [{"name": f"r{i}", "exactly": {"deviceClassName": "any", "selectors": [
        {"cel": {"expression": f'device.attributes["gpu.nvidia.com"].id == "{n}"'}}]}} for i, n in enumerate(wanted)]
    claim = parse_object({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                          "metadata": {"name": "c", "namespace": "default"},
                          "spec": {"devices": {"requests": reqs}}})
    out = allocate(objs, NODE, [claim], features=FEATURES)
    assert out.ok == ok, out


@pytest.mark.parametrize(("change", "field"), [
    ({"capacityPool": None}, "consumesCapacity[0].capacityPool"),
    ({"capacity": {"nosuch": {"value": "1"}}}, "consumesCapacity[0].capacity[nosuch]"),
    ({"includes": [{"name": "gpu-pool-mixin"}]}, "consumesCapacity[0].includes[0]"),
])
def test_bad_consumption_names_the_field(change: dict[str, Any], field: str) -> None:
    doc = _load("four-gpus.yaml")
    entry = doc["devices"][0]["composite"]["consumesCapacity"][0]
    entry.update(change)
    with pytest.raises(InputError) as e:
        translate([doc])
    assert f"devices[0].composite.{field}" in str(e.value)


def test_a_pool_with_more_than_32_capacities_is_split() -> None:
    caps = {f"c{i}": {"value": "1"} for i in range(40)}
    doc = {"capacityPools": [{"name": "big", "capacity": caps}], "devices": [
        {"name": "low", "composite": {"consumesCapacity": [{"capacityPool": "big", "capacity": {
            f"c{i}": {"value": "1"} for i in range(20)}}]}},
        {"name": "high", "composite": {"consumesCapacity": [{"capacityPool": "big", "capacity": {
            f"c{i}": {"value": "1"} for i in range(20, 40)}}]}}]}
    slices = _slices(doc)
    sizes = [len(cs.counters or {}) for s in slices for cs in s.spec.shared_counters or []]
    assert sorted(sizes) == [20, 20]


# Property: allocation on the translation = the capacity-pool rule.

@st.composite
def pools(draw: Any) -> tuple[dict[str, int], list[dict[str, int]]]:
    pool = {c: draw(st.integers(0, 4)) for c in ("a", "b")}
    devs = [draw(st.dictionaries(st.sampled_from(["a", "b"]), st.integers(0, 3), max_size=2))
            for _ in range(draw(st.integers(1, 5)))]
    return pool, devs


def _pool_doc(pool: dict[str, int], devs: list[dict[str, int]]) -> dict[str, Any]:
    return {"capacityPools": [{"name": "p", "capacity": {k: {"value": str(v)} for k, v in pool.items()}}],
            "devices": [{"name": f"d{i}", "composite": {
                "attributes": {"id": {"string": f"d{i}"}},
                "consumesCapacity": [{"capacityPool": "p", "capacity": {
                    k: {"value": str(v)} for k, v in use.items()}}]}} for i, use in enumerate(devs)]}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pools())
def test_allocation_follows_the_pool_rule(case: Any) -> None:
    pool, devs = case
    objs = ObjectSet()
    for o in [*translate([_pool_doc(pool, devs)], driver="gpu.example.com").objects, any_class()]:
        objs.add(o)
    for k in range(1, len(devs) + 1):
        for chosen in combinations(range(len(devs)), k):
            fits = all(sum(devs[i].get(c, 0) for i in chosen) <= pool[c] for c in pool)
            out = allocate(objs, NODE, [claim_for([f"d{i}" for i in chosen])], features=FEATURES)
            assert out.ok == fits, (chosen, out)
