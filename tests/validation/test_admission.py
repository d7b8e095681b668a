"""Admission for the library: objects built in Python get the API server's
defaults and validation like objects read from files, ``allocate()`` has the
command line's defaults, ``load()`` raises unless asked to collect."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from dralloc.errors import InputErrors
from dralloc.features import DEFAULT_GATES, Features
from dralloc.io import ObjectSet, load
from dralloc.models import (
    DeviceClaim,
    DeviceClass,
    DeviceRequest,
    ExactDeviceRequest,
    Node,
    ObjectMeta,
    ResourceClaim,
    ResourceClaimSpec,
    ResourceSlice,
)
from dralloc.solver.api import allocate
from dralloc.solver.outcome import Status
from dralloc.validation.admission import admit, admit_object

QUICKSTART = Path(__file__).resolve().parents[2] / "examples" / "quickstart" / "mig-a100.yaml"


def _claim(name: str = "c", count: int | None = None, namespace: str | None = None) -> ResourceClaim:
    req = DeviceRequest(name="gpu", exactly=ExactDeviceRequest(device_class_name="gpu", count=count))
    return ResourceClaim(metadata=ObjectMeta(name=name, namespace=namespace),
                         spec=ResourceClaimSpec(devices=DeviceClaim(requests=[req])))


def _objects() -> list[object]:
    slice_ = ResourceSlice.model_validate({
        "metadata": {"name": "s"},
        "spec": {"driver": "gpu.example.com", "nodeName": "node-1",
                 "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
                 "devices": [{"name": "gpu-0"}, {"name": "gpu-1"}]}})
    cls = DeviceClass.model_validate({"metadata": {"name": "gpu"}, "spec": {"selectors": [
        {"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}})
    return [Node(metadata=ObjectMeta(name="node-1")), cls, slice_]


def test_hand_built_claims_get_the_api_servers_defaults() -> None:
    # no allocationMode, no count, no namespace: "unsupported count mode " before
    out = allocate([*_objects(), _claim()], "node-1", ["c"])  # type: ignore[list-item]
    assert out.status is Status.ALLOCATED, out
    assert out.claims == ["default/c"]
    claim = admit_object(_claim())
    assert claim.namespace == "default" and claim.spec.devices.requests is not None
    body = claim.spec.devices.requests[0].exactly
    assert body is not None and (body.allocation_mode, body.count) == ("ExactCount", 1)


def test_hand_built_objects_the_api_server_refuses_are_input_errors() -> None:
    with pytest.raises(InputErrors) as e:
        allocate(_objects(), "node-1", [_claim(count=-1)])  # type: ignore[arg-type]
    assert "count must be greater than zero, not -1 [request.count]" in str(e.value)
    assert e.value.errors[0].field == "spec.devices.requests[0].exactly.count"
    with pytest.raises(InputErrors, match="object #4: ResourceClaim default/c: duplicate ResourceClaim default/c: also defined at object #3"):
        admit([*_objects(), _claim(), _claim(namespace="default")])  # type: ignore[list-item]


def test_allocate_has_the_command_lines_defaults() -> None:
    objs = load([QUICKSTART])
    out = allocate(objs, "gpu-node-1", ["default/training"])
    assert out.status is Status.ALLOCATED and out.mode == "first-fit"
    assert Features.default() == Features.from_gates(DEFAULT_GATES)
    assert Features.default().partitionable_devices and not Features.default().list_type_attributes


def test_the_node_must_be_one_of_the_input_nodes() -> None:
    objs = load([QUICKSTART])
    with pytest.raises(Exception, match="node nope not found among the 1 Node"):
        allocate(objs, "nope", ["default/training"])


def test_admission_is_done_once_and_keeps_admitted_objects() -> None:
    objs = load([QUICKSTART])
    before = list(objs.all())
    assert admit(objs) is objs and objs.admitted
    assert list(objs.all()) == before and all(a is b for a, b in zip(objs.all(), before, strict=True))
    assert admit(objs) is objs


def test_load_raises_unless_asked_to_collect(tmp_path: Path) -> None:
    f = tmp_path / "bad.yaml"
    again = list(yaml.safe_load_all(QUICKSTART.read_text()))
    for doc in again:  # another object of each kind and name (the very same one twice is read once)
        doc["metadata"].setdefault("annotations", {})["copy"] = "again"
    f.write_text(QUICKSTART.read_text() + "---\n" + yaml.safe_dump_all(again))
    with pytest.raises(InputErrors) as e:
        load([f])
    assert len(e.value.errors) == 5 and "duplicate Node gpu-node-1" in e.value.lines()[0]
    objs = load([f], collect=True)
    assert len(objs.errors) == 5 and len(objs.nodes) == 1
    last = load([f], last_wins=True)
    assert len(last.replaced) == 5 and last.where(last.nodes[0]) == f"{f}#5"


def test_scenario_style_input_skips_admission_on_request() -> None:
    # the allocator takes a claim without a namespace and with count 0 (no devices)
    objs = ObjectSet.of(_objects())  # type: ignore[arg-type]
    claim = admit_object(_claim()).model_copy(update={"metadata": ObjectMeta(name="c")})
    body = claim.spec.devices.requests[0].exactly  # type: ignore[index]
    assert body is not None
    zero = claim.model_copy(update={"spec": ResourceClaimSpec(devices=DeviceClaim(requests=[
        DeviceRequest(name="gpu", exactly=body.model_copy(update={"count": 0}))]))})
    out = allocate(objs, "node-1", [zero], mode="replay", admission=False)
    assert out.status is Status.ALLOCATED and out.claims == ["c"]
    with pytest.raises(InputErrors):
        allocate(objs, "node-1", [zero], mode="replay")


def _corpus_sets() -> list[tuple[str, ObjectSet]]:
    """The upstream corpus's objects (many the API server refuses), each
    scenario as one input."""
    import yaml

    from dralloc.io.scenario import parse_scenario

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    root = Path(__file__).resolve().parents[1] / "scenarios" / "conformance" / "upstream"
    out = []
    for f in sorted(root.glob("*.yaml")):
        sc = parse_scenario(yaml.load(f.read_text(encoding="utf-8"), Loader=loader), str(f))  # noqa: S506
        objs = ObjectSet()
        for i, o in enumerate([*sc.objects.all(), *sc.allocated, *sc.claims]):
            objs.add(o, f"{f.name}#{i}")
        out.append((f.name, objs))
    return out


def test_validate_and_admission_agree_on_the_corpus() -> None:
    """One rule set: the errors ``dralloc validate`` reports are exactly those
    admission raises, object by object, field by field."""
    from dralloc.validation import ERROR, validate

    refused = 0
    for name, objs in _corpus_sets():
        found = {(f.source, f.object, f.field, f.rule) for f in validate(objs)
                 if f.severity == ERROR and f.rule != "load"}
        try:
            admit(objs)
            raised: set[tuple[str, str, str, str]] = set()
        except InputErrors as e:
            raised = {(x.source, x.obj, x.field, x.message.rsplit("[", 1)[-1].rstrip("]")) for x in e.errors
                      if "also defined at" not in x.message}  # duplicates: the loader's, in validate
        assert raised == found, name
        refused += bool(raised)
    assert refused > 50  # the corpus is full of objects the API server refuses


def test_a_shared_bad_part_is_reported_on_every_device(tmp_path: Path) -> None:
    """Parts shared between devices are checked once when clean; a bad one is
    reported wherever it is used (the loader shares equal attribute values)."""
    devices = "".join(f"  - name: gpu-{i}\n    attributes:\n      driverVersion: {{version: '1.0'}}\n"
                      f"      ok: {{version: 1.0.0}}\n" for i in range(3))
    f = tmp_path / "s.yaml"
    f.write_text("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n"
                 "  driver: d.example.com\n  nodeName: node-1\n  pool: {name: p, resourceSliceCount: 1}\n  devices:\n" + devices)
    objs = load([f])
    a, b, _ = objs.slices[0].spec.devices or []
    assert a.attributes and b.attributes and a.attributes["driverVersion"] is b.attributes["driverVersion"]
    with pytest.raises(InputErrors) as e:
        admit(objs)
    fields = [err.field for err in e.value.errors]
    assert fields == [f"spec.devices[{i}].attributes[driverVersion]" for i in range(3)]


def _gpu_slice(node: str, uuid: str, model: str) -> str:
    devices = "".join(f"  - name: gpu-{i}\n    attributes:\n      uuid: {{string: {uuid}-{i}}}\n"
                      f"      model: {{string: {model}}}\n      index: {{int: {i}}}\n"
                      f"    capacity:\n      memory: {{value: 40Gi}}\n" for i in range(2))
    return (f"apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {{name: {node}-gpus}}\nspec:\n"
            f"  driver: d.example.com\n  nodeName: {node}\n  pool: {{name: {node}, resourceSliceCount: 1}}\n"
            f"  devices:\n" + devices)


def test_parts_shared_across_nodes_are_reported_on_each_node(tmp_path: Path) -> None:
    """Nodes of one type share everything but their UUIDs: a clean shared
    entry is checked once, yet a bad value is reported on every device and
    node holding it, and a bad UUID on one node only on that node's devices."""
    long = "x" * 65
    f = tmp_path / "nodes.yaml"
    f.write_text("---\n".join([_gpu_slice("a", "GPU-a", "A100"), _gpu_slice("b", "GPU-b", "A100"),
                               _gpu_slice("c", long, "A100"), _gpu_slice("d", "GPU-d", long),
                               _gpu_slice("e", "GPU-e", long)]))
    objs = load([f])
    a, b = (s.spec.devices or [] for s in objs.slices[:2])
    assert a[0].capacity is b[0].capacity and a[0].attributes["model"] is b[0].attributes["model"]  # type: ignore[index]
    assert a[0].attributes is not b[0].attributes
    with pytest.raises(InputErrors) as e:
        admit(objs)
    got = sorted((err.obj or "", err.field or "") for err in e.value.errors)
    want = sorted([("ResourceSlice c-gpus", f"spec.devices[{i}].attributes[uuid]") for i in range(2)]
                  + [(f"ResourceSlice {n}-gpus", f"spec.devices[{i}].attributes[model]") for n in "de" for i in range(2)])
    assert got == want
    with pytest.raises(InputErrors) as again:   # what was found clean before hides nothing the next time
        admit(load([f]))
    assert sorted((err.obj or "", err.field or "") for err in again.value.errors) == want
