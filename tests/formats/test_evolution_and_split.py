"""dra-evolution ResourcePools to v1, and composite trees too large for one
v1 counter set split over several (allocation unchanged, property test)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import yaml
from formats_helpers import (
    NODE,
    any_class,
    claim_for,
    claim_where,
    composite_device,
    composite_slice,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_composite_property import counters_allow, draft_allows, forests

from dralloc.errors import InputError
from dralloc.formats import load_any, translate
from dralloc.io import ObjectSet
from dralloc.models import ResourceSlice
from dralloc.solver import allocate

DATA = Path(__file__).parent / "data" / "dra-evolution"


def test_dgx_pool_becomes_one_counter_set_per_gpu() -> None:
    objs, tr = load_any([DATA / "dgxa100-two-gpus.yaml"])
    assert not objs.errors
    sets = {cs.name: len(cs.counters or {}) for s in objs.slices for cs in s.spec.shared_counters or []}
    assert sets == {"gpu-0": 14, "gpu-1": 14}
    mig = next(d for s in objs.slices for d in s.spec.devices or [] if d.name == "gpu-0-mig-1g-5gb-0")
    assert [(c.counter_set, sorted(c.counters)) for c in mig.consumes_counters or []] == [
        ("gpu-0", ["copy-engines", "memory", "memory-slices-0", "multiprocessors"])]
    assert (mig.attributes or {})["mig_profile"].string == "1g.5gb"
    assert {s.spec.driver for s in objs.slices} == {"gpu.nvidia.com.dra"}


@pytest.mark.parametrize(("profiles", "ok"), [(["7g.40gb"], True), (["7g.40gb", "1g.5gb"], True),
                                              (["7g.40gb", "7g.40gb", "1g.5gb"], False),
                                              (["3g.20gb", "3g.20gb", "1g.5gb"], True)])
def test_dgx_migs_share_their_gpu(profiles: list[str], ok: bool) -> None:
    objs, _ = load_any([DATA / "dgxa100-two-gpus.yaml"])
    objs.add(any_class())
    attrs = 'device.attributes["gpu.nvidia.com.dra"]'
    claim = claim_where([f'"mig_profile" in {attrs} && {attrs}.mig_profile == "{p}"' for p in profiles])
    out = allocate(objs, "nvidia-00", [claim], features=["DRAPartitionableDevices"])
    assert out.ok == ok, out


def test_prototype_classes_and_pods_are_reported_not_translated() -> None:
    objs, tr = load_any([DATA / "pod-one-container-one-gpu.yaml", DATA / "pools-one-node-sriov-0.yaml"])
    assert set(tr.explanations) == {"ResourceClaimTemplate default/template-foozer", "Pod default/foozer"}
    assert len(objs.slices) == 2 and not objs.errors
    assert any("distributedAllocation" in n for n in tr.notes)


def test_unknown_shared_capacity_names_the_device() -> None:
    doc = yaml.safe_load((DATA / "dgxa100-two-gpus.yaml").read_text())[0]
    doc["spec"]["devices"][3]["sharedCapacityConsumed"][0]["name"] = "gpu-9-memory"
    with pytest.raises(InputError) as e:
        translate([doc])
    assert "spec.devices[3].sharedCapacityConsumed" in str(e.value) and "gpu-9-memory" in str(e.value)


def _wide_tree(children: int) -> list[dict[str, Any]]:
    devs = [composite_device("root", None, {"mem": 100})]
    for i in range(children):
        devs.append(composite_device(f"c{i}", "root", {"mem": 4}))
        devs += [composite_device(f"c{i}-{j}", f"c{i}", {"mem": 2}) for j in range(2)]
    return devs


def test_a_wide_tree_is_split_and_every_device_uses_at_most_two_sets() -> None:
    tr = translate([composite_slice(_wide_tree(20))])
    slices = [o for o in tr.objects if isinstance(o, ResourceSlice)]
    sets = [len(cs.counters or {}) for s in slices for cs in s.spec.shared_counters or []]
    assert len(sets) >= 2 and max(sets) <= 32 and sum(sets) == 2 + 20 * 2
    assert all(len(d.consumes_counters or []) <= 2 for s in slices for d in s.spec.devices or [])
    assert any("split over counter sets" in n for n in tr.notes)


def test_a_chain_needing_three_sets_is_an_error_naming_the_device() -> None:
    devs = [composite_device("d0", None, {"a": 9, "b": 9, "c": 9})]
    devs += [composite_device(f"d{i}", f"d{i - 1}", {"a": 1, "b": 1, "c": 1}) for i in range(1, 20)]
    with pytest.raises(InputError) as e:
        translate([composite_slice(devs)])
    assert "device 'd19' consumes 76 counters" in str(e.value)
    assert "spec.devices[19].composite.consumesCapacityFrom" in str(e.value)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(forests(), st.data())
def test_split_counters_allow_exactly_what_the_draft_allows(forest: Any, data: Any) -> None:
    """With a limit of 3 counters per set, most trees are split; the split
    sets still allow exactly the draft's device sets, or the translation
    says which device cannot be expressed."""
    parents, caps = forest
    devs = [composite_device(f"d{i}", None if p is None else f"d{p}", caps[i]) for i, p in enumerate(parents)]
    with mock.patch("dralloc.formats.composite.MAX_COUNTERS", 3):
        try:
            objs = [o for o in translate([composite_slice(devs)]).objects if isinstance(o, ResourceSlice)]
        except InputError as e:
            assert "a v1 device consumes from at most 2 counter sets" in str(e)
            return
    assert all(len(cs.counters or {}) <= 3 for s in objs for cs in s.spec.shared_counters or [])
    chosen = tuple(sorted(data.draw(st.sets(st.integers(0, len(parents) - 1), min_size=1))))
    assert counters_allow(objs, {f"d{i}" for i in chosen}) == draft_allows(parents, caps, chosen)
    every = ObjectSet()
    for o in [*objs, any_class()]:
        every.add(o)
    out = allocate(every, NODE, [claim_for([f"d{i}" for i in chosen])], features=["DRAPartitionableDevices"])
    assert out.ok == draft_allows(parents, caps, chosen), out
