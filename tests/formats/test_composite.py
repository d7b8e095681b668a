"""Composite devices of the first KEP-4815 draft: the DGX A100 example, the
translation's shape, and every input error."""

from __future__ import annotations

from pathlib import Path

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

from dralloc.errors import InputError
from dralloc.formats import convert_documents, load_any, translate
from dralloc.io import ObjectSet
from dralloc.models import ResourceSlice
from dralloc.solver import allocate
from dralloc.validation import ERROR, validate

EXAMPLE = Path(__file__).parents[2] / "examples" / "formats" / "composite-dgx-a100"
INPUTS = [EXAMPLE / "dgx-a100-fragment.yaml", EXAMPLE / "claim.yaml"]
FEATURES = ["DRAPartitionableDevices"]


def _mem_slices(slices: list[ResourceSlice], device: str) -> set[str]:
    for s in slices:
        for d in s.spec.devices or []:
            if d.name == device:
                return {k for k in d.capacity or {} if k.startswith("memorySlice")}
    raise AssertionError(device)


def test_dgx_a100_kep_claim_gets_non_overlapping_partitions() -> None:
    objs, _ = load_any(INPUTS)
    assert not objs.errors
    out = allocate(objs, NODE, objs.claims, features=FEATURES)
    assert out.ok, out
    assert out.allocations is not None and out.allocations[0].devices is not None
    got = {r.request: r.device for r in out.allocations[0].devices.results or []}
    assert got == {"mig-1g-5gb-0": "gpu-0-mig-1g-5gb-0", "mig-1g-5gb-1": "gpu-0-mig-1g-5gb-1",
                   "mig-2g-10gb": "gpu-0-mig-2g-10gb-2-3", "mig-3g-20gb": "gpu-0-mig-3g-20gb-4-7"}
    used = [_mem_slices(objs.slices, d) for d in got.values()]
    assert sum(len(u) for u in used) == len(set().union(*used)) == 8


def test_dgx_a100_whole_gpu_blocks_its_partitions_only() -> None:
    objs, _ = load_any(INPUTS)
    objs.add(any_class())
    attrs = "device.attributes['gpu.nvidia.com']"
    gpu0 = f"{attrs}.type == 'gpu' && {attrs}.index == 0"
    def mig_on(parent: int) -> str:
        return f"{attrs}.type == 'mig' && {attrs}.parentIndex == {parent}"
    assert not allocate(objs, NODE, [claim_where([gpu0, mig_on(0)])], features=FEATURES).ok
    assert allocate(objs, NODE, [claim_where([gpu0, mig_on(1)])], features=FEATURES).ok


def test_dgx_a100_translation_passes_v1_validation() -> None:
    objs, tr = load_any(INPUTS)
    found = [f for f in validate(objs) if f.severity == ERROR]
    assert found == []
    assert len(objs.slices) == 2 and objs.slices[0].spec.shared_counters
    assert any("'gpu-0-mig-1g.5gb-0' is 'gpu-0-mig-1g-5gb-0'" in n for n in tr.notes)


def test_fragment_takes_driver_pool_and_node_from_options() -> None:
    frag = {"devices": [composite_device("gpu-0", caps={"mem": 2}), composite_device("p-0", "gpu-0", {"mem": 1})]}
    objs = convert_documents([frag], driver="tpu.example.com", pool="rack-1", node="n7")
    slices = [o for o in objs if isinstance(o, ResourceSlice)]
    assert {(s.spec.driver, s.spec.pool.name, s.spec.node_name) for s in slices} == {("tpu.example.com", "rack-1", "n7")}
    assert all(s.spec.pool.resource_slice_count == 2 for s in slices)


def test_mixins_apply_in_order_and_the_device_wins() -> None:
    mixins = [{"name": "a", "composite": {"attributes": {"x": {"int": 1}, "y": {"int": 1}}}},
              {"name": "b", "composite": {"attributes": {"y": {"int": 2}, "z": {"int": 2}},
                                          "capacity": {"mem": {"quantity": "1Gi"}}}}]
    dev = composite_device("d", includes=["a", "b"])
    dev["composite"]["attributes"] = {"z": {"int": 3}}
    (s,) = convert_documents([composite_slice([dev], mixins)])
    assert isinstance(s, ResourceSlice) and s.spec.devices
    d = s.spec.devices[0]
    assert {k: v.int_ for k, v in (d.attributes or {}).items() if k != "id"} == {"x": 1, "y": 2, "z": 3}
    assert d.capacity is not None and str(d.capacity["mem"].value) == "1Gi"


def test_self_reference_ends_the_chain() -> None:
    docs = [composite_slice([composite_device("a", "a", {"m": 1})])]
    (s,) = convert_documents(docs)
    assert isinstance(s, ResourceSlice) and s.spec.devices and s.spec.devices[0].consumes_counters is None


def test_nested_chain_pulls_from_every_source() -> None:
    docs = [composite_slice([composite_device("root", caps={"m": 4}), composite_device("mid", "root", {"m": 3}),
                             composite_device("l1", "mid", {"m": 2}), composite_device("l2", "mid", {"m": 2}),
                             composite_device("side", "root", {"m": 2})])]
    objs = ObjectSet()
    for o in [*convert_documents(docs), any_class()]:
        objs.add(o)
    def ok(*names: str) -> bool:
        return allocate(objs, NODE, [claim_for(list(names))], features=FEATURES).ok
    assert ok("l1", "side") and ok("mid") and ok("root")
    assert not ok("l1", "l2")        # 2 + 2 > mid's 3
    assert not ok("mid", "l1")       # a source and its consumer
    assert not ok("root", "l1")      # grandparent too
    assert not ok("mid", "side")     # 3 + 2 > root's 4


@pytest.mark.parametrize(("docs", "field", "message"), [
    ([composite_slice([composite_device("a", "b"), composite_device("b", "a")])],
     "spec.devices[0].composite.consumesCapacityFrom", "cycle: a -> b -> a"),
    ([composite_slice([composite_device("a", "ghost")])],
     "spec.devices[0].composite.consumesCapacityFrom[0]", "'ghost', which is not a device of this slice"),
    ([composite_slice([composite_device("a", includes=["m"])]),
      composite_slice([composite_device("b")], [{"name": "m", "composite": {}}], name="slice-2")],
     "spec.devices[0].composite.includes[0]", "a mixin of another slice cannot be referenced"),
    ([composite_slice([composite_device("a", "x")]), composite_slice([composite_device("x")], name="slice-2")],
     "spec.devices[0].composite.consumesCapacityFrom[0]", "a device of another slice cannot be referenced"),
    ([composite_slice([{"name": "a", "composite": {"consumesCapacityFrom": [{"name": "b"}, {"name": "c"}]}}])],
     "spec.devices[0].composite.consumesCapacityFrom", "only a single entry is allowed"),
    ([composite_slice([composite_device("a"), composite_device("a")])], "spec.devices[1].name", "duplicate device"),
    ([composite_slice([{"name": "a", "composite": {"capacity": {"m": {"quantity": "lots"}}}}])],
     "spec.devices[0].composite.capacity[m]", "quantity"),
    ([{"deviceMixins": [{"name": "m"}], "devices": [composite_device("a")]}],
     "deviceMixins[0].composite", "only 'composite'"),
])
def test_bad_input_names_object_and_field(docs: list[dict[str, object]], field: str, message: str) -> None:
    with pytest.raises(InputError) as err:
        translate(docs)
    assert err.value.field == field
    assert message in str(err.value)
    assert err.value.obj in ("ResourceSlice slice-1", "fragment")


def test_basic_devices_and_v1_objects_pass_through() -> None:
    doc = composite_slice([{"name": "plain", "basic": {"attributes": {"k": {"string": "v"}}}},
                           composite_device("c")])
    v1 = yaml.safe_load("""
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: any}
spec: {}
""")
    objs = convert_documents([doc, v1])
    assert [o.kind for o in objs] == ["DeviceClass", "ResourceSlice"]
