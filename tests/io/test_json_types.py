"""JSON types are read as the API server's decoder reads them (encoding/json
into typed Go structs): an integer field takes a JSON integer only -- not a
string, a boolean, or a number with a fraction or exponent (``1.0`` included)
-- within its Go type's range; a boolean field ``true``/``false`` only; a
string field a string only. Each confusion is one input error naming the
object and the field, in every kind dralloc reads, in older API versions
converted to v1, through the fast slice builder too, and in the CLI. YAML
reaches the decoder as sigs.k8s.io/yaml's JSON: ``1.0`` there is ``1``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dralloc.cli.main import main
from dralloc.io import load
from dralloc.io.scenario import load_scenarios

RES = "resource.k8s.io/v1"


def _slice(spec_extra: dict[str, Any] | None = None, pool: dict[str, Any] | None = None,
           device: dict[str, Any] | None = None, name: str = "s") -> dict[str, Any]:
    spec: dict[str, Any] = {"driver": "gpu.example.com", "nodeName": "n1",
                            "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1, **(pool or {})},
                            "devices": [{"name": "d0", **(device or {})}]}
    return {"apiVersion": RES, "kind": "ResourceSlice", "metadata": {"name": name}, "spec": {**spec, **(spec_extra or {})}}


def _attr(value: dict[str, Any]) -> dict[str, Any]:
    return _slice(device={"attributes": {"a": value}})


def _claim(request: dict[str, Any], api: str = RES) -> dict[str, Any]:
    return {"apiVersion": api, "kind": "ResourceClaim", "metadata": {"name": "c", "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "r", **request}]}}}


def _exactly(**fields: Any) -> dict[str, Any]:
    return _claim({"exactly": {"deviceClassName": "gpu", **fields}})


SCHED = "scheduling.k8s.io"
# (case, object, object named, field named, what the message says the document held)
REFUSED: list[tuple[str, dict[str, Any], str, str, str]] = [
    ("string for int64", _slice(pool={"resourceSliceCount": "1"}), "ResourceSlice s",
     "spec.pool.resourceSliceCount", 'the string "1"'),
    ("bool for int64", _slice(pool={"generation": True}), "ResourceSlice s", "spec.pool.generation",
     "a boolean (true)"),
    ("1.0 for int64", _slice(pool={"generation": 1.0}), "ResourceSlice s", "spec.pool.generation", "the number 1.0"),
    ("string for bool", _slice({"allNodes": "true", "nodeName": None}), "ResourceSlice s", "spec.allNodes",
     'the string "true"'),
    ("number for bool", _slice(device={"allowMultipleAllocations": 1}), "ResourceSlice s",
     "spec.devices[0].allowMultipleAllocations", "the number 1"),
    ("number for string", _slice({"driver": 5}), "ResourceSlice s", "spec.driver", "the number 5"),
    ("attribute int as string", _attr({"int": "5"}), "ResourceSlice s", "spec.devices[0].attributes.a.int",
     'the string "5"'),
    ("attribute int as bool", _attr({"int": True}), "ResourceSlice s", "spec.devices[0].attributes.a.int",
     "a boolean (true)"),
    ("attribute int 1.0", _attr({"int": 1.0}), "ResourceSlice s", "spec.devices[0].attributes.a.int",
     "the number 1.0"),
    ("attribute int 1.5", _attr({"int": 1.5}), "ResourceSlice s", "spec.devices[0].attributes.a.int",
     "the number 1.5"),
    ("attribute bool as string", _attr({"bool": "true"}), "ResourceSlice s", "spec.devices[0].attributes.a.bool",
     'the string "true"'),
    ("attribute bool as number", _attr({"bool": 1}), "ResourceSlice s", "spec.devices[0].attributes.a.bool",
     "the number 1"),
    ("attribute string as number", _attr({"string": 5}), "ResourceSlice s",
     "spec.devices[0].attributes.a.string", "the number 5"),
    ("attribute version as number", _attr({"version": 1}), "ResourceSlice s",
     "spec.devices[0].attributes.a.version", "the number 1"),
    ("ints holding a bool", _attr({"ints": [True, 2]}), "ResourceSlice s",
     "spec.devices[0].attributes.a.ints[0]", "a boolean (true)"),
    ("bools holding a number", _attr({"bools": [True, 0]}), "ResourceSlice s",
     "spec.devices[0].attributes.a.bools[1]", "the number 0"),
    ("strings holding a number", _attr({"strings": ["x", 1]}), "ResourceSlice s",
     "spec.devices[0].attributes.a.strings[1]", "the number 1"),
    ("count as string", _exactly(count="2", allocationMode="ExactCount"), "ResourceClaim c",
     "spec.devices.requests[0].exactly.count", 'the string "2"'),
    ("count 2.0", _exactly(count=2.0, allocationMode="ExactCount"), "ResourceClaim c",
     "spec.devices.requests[0].exactly.count", "the number 2.0"),
    ("adminAccess as string", _exactly(adminAccess="false"), "ResourceClaim c",
     "spec.devices.requests[0].exactly.adminAccess", 'the string "false"'),
    ("tolerationSeconds as string", _exactly(tolerations=[{"key": "k", "operator": "Exists", "effect": "NoExecute",
                                                           "tolerationSeconds": "5"}]),
     "ResourceClaim c", "spec.devices.requests[0].exactly.tolerations[0].tolerationSeconds", 'the string "5"'),
    ("v1beta1 count as bool (converted)", _claim({"deviceClassName": "gpu", "count": True},
                                                 api="resource.k8s.io/v1beta1"),
     "ResourceClaim c", "spec.devices.requests[0].exactly.count", "a boolean (true)"),
    ("v1beta1 attribute int as string (converted)",
     {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceSlice", "metadata": {"name": "s"},
      "spec": {"driver": "d", "nodeName": "n1", "pool": {"name": "p", "resourceSliceCount": 1},
               "devices": [{"name": "d0", "basic": {"attributes": {"a": {"int": "5"}}}}]}},
     "ResourceSlice s", "spec.devices[0].attributes.a.int", 'the string "5"'),
    ("template count 1.0",
     {"apiVersion": RES, "kind": "ResourceClaimTemplate", "metadata": {"name": "t", "namespace": "default"},
      "spec": {"spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu",
                                                                              "count": 1.0}}]}}}},
     "ResourceClaimTemplate t", "spec.spec.devices.requests[0].exactly.count", "the number 1.0"),
    ("class expression as number",
     {"apiVersion": RES, "kind": "DeviceClass", "metadata": {"name": "gpu"},
      "spec": {"selectors": [{"cel": {"expression": 1}}]}},
     "DeviceClass gpu", "spec.selectors[0].cel.expression", "the number 1"),
    ("node unschedulable as string",
     {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "spec": {"unschedulable": "true"}},
     "Node n1", "spec.unschedulable", 'the string "true"'),
    ("label value as number",
     {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"gpus": 8}}},
     "Node n1", "metadata.labels.gpus", "the number 8"),
    ("metadata generation 1.0",
     {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "generation": 1.0}},
     "Node n1", "metadata.generation", "the number 1.0"),
    ("pod priority as string",
     {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
      "spec": {"priority": "100", "containers": [{"name": "c"}]}},
     "Pod p", "spec.priority", 'the string "100"'),
    ("owner controller as string",
     {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default", "ownerReferences": [
         {"apiVersion": "v1", "kind": "X", "name": "x", "uid": "u", "controller": "true"}]},
      "spec": {"containers": [{"name": "c"}]}},
     "Pod p", "metadata.ownerReferences[0].controller", 'the string "true"'),
    ("pod group minCount as string",
     {"apiVersion": f"{SCHED}/v1alpha2", "kind": "PodGroup", "metadata": {"name": "g", "namespace": "default"},
      "spec": {"schedulingPolicy": {"gang": {"minCount": "2"}}}},
     "PodGroup g", "spec.schedulingPolicy.gang.minCount", 'the string "2"'),
    ("workload minCount as bool",
     {"apiVersion": f"{SCHED}/v1alpha1", "kind": "Workload", "metadata": {"name": "w", "namespace": "default"},
      "spec": {"podGroups": [{"name": "g", "policy": {"gang": {"minCount": True}}}]}},
     "Workload w", "spec.podGroups[0].policy.gang.minCount", "a boolean (true)"),
    ("composite minGroupCount 1.0",
     {"apiVersion": f"{SCHED}/v1alpha3", "kind": "CompositePodGroup",
      "metadata": {"name": "cg", "namespace": "default"},
      "spec": {"schedulingPolicy": {"gang": {"minGroupCount": 1.0}}}},
     "CompositePodGroup cg", "spec.schedulingPolicy.gang.minGroupCount", "the number 1.0"),
    ("pdb minAvailable as bool",
     {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "b", "namespace": "default"},
      "spec": {"minAvailable": True}},
     "PodDisruptionBudget b", "spec.minAvailable", "a boolean (true)"),
    ("pdb maxUnavailable 1.5",
     {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "b", "namespace": "default"},
      "spec": {"maxUnavailable": 1.5}},
     "PodDisruptionBudget b", "spec.maxUnavailable", "the number 1.5"),
    ("priority class value as string",
     {"apiVersion": f"{SCHED}/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": "1000"},
     "PriorityClass high", "value", 'the string "1000"'),
    ("priority class globalDefault as number",
     {"apiVersion": f"{SCHED}/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000,
      "globalDefault": 1},
     "PriorityClass high", "globalDefault", "the number 1"),
    ("taint rule key as number",
     {"apiVersion": RES, "kind": "DeviceTaintRule", "metadata": {"name": "tr"},
      "spec": {"taint": {"key": 5, "effect": "NoSchedule"}}},
     "DeviceTaintRule tr", "spec.taint.key", "the number 5"),
]


def _write(path: Path, *objects: dict[str, Any]) -> Path:
    path.write_text("\n".join(json.dumps(o) for o in objects) + "\n")
    return path


@pytest.mark.parametrize(("case", "obj", "ref", "field", "held"), REFUSED, ids=[c[0] for c in REFUSED])
def test_a_json_type_the_decoder_refuses_is_an_input_error(tmp_path: Path, case: str, obj: dict[str, Any],
                                                            ref: str, field: str, held: str) -> None:
    f = _write(tmp_path / "in.json", obj)
    objs = load([f], collect=True)
    assert len(objs.errors) == 1, [str(e) for e in objs.errors]
    err = objs.errors[0]
    assert err.field == field and ref in str(err) and held in str(err), str(err)


# the same objects with the types right: read, so the refusals above are about the type alone
ACCEPTED: list[tuple[str, dict[str, Any]]] = [
    ("attribute values", _slice(device={"attributes": {
        "i": {"int": -(2**63)}, "j": {"int": 2**63 - 1}, "b": {"bool": False}, "s": {"string": "5"},
        "v": {"version": "1.0.0"}, "is": {"ints": [1, 2]}, "bs": {"bools": [True, False]}}})),
    ("quantities as numbers or strings", _slice(device={"capacity": {
        "a": {"value": 1.5}, "b": {"value": 4}, "c": {"value": "40Gi"}, "d": {"value": 1.0}}})),
    ("count", _exactly(count=2, allocationMode="ExactCount")),
    ("pdb integer", {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                     "metadata": {"name": "b", "namespace": "default"}, "spec": {"minAvailable": 2}}),
    ("pdb percentage", {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                        "metadata": {"name": "b", "namespace": "default"}, "spec": {"maxUnavailable": "50%"}}),
    ("priority bounds", {"apiVersion": f"{SCHED}/v1", "kind": "PriorityClass", "metadata": {"name": "x"},
                         "value": -(2**31), "globalDefault": False}),
]


@pytest.mark.parametrize(("case", "obj"), ACCEPTED, ids=[c[0] for c in ACCEPTED])
def test_the_right_json_types_are_read(tmp_path: Path, case: str, obj: dict[str, Any]) -> None:
    objs = load([_write(tmp_path / "in.json", obj)], collect=True)
    assert not objs.errors, [str(e) for e in objs.errors]
    assert len(list(objs.all())) == 1


def test_quantities_and_int_or_string_keep_their_values(tmp_path: Path) -> None:
    objs = load([_write(tmp_path / "in.json", ACCEPTED[1][1], ACCEPTED[3][1])])
    caps = objs.slices[0].spec.devices[0].capacity  # type: ignore[index]
    assert caps is not None and str(caps["a"].value.value) == "3/2" and caps["b"].value.value == 4
    assert objs.budgets[0].spec.min_available == 2 and type(objs.budgets[0].spec.min_available) is int


YAML_HEAD = "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n" \
            "  driver: d\n  nodeName: n1\n"


@pytest.mark.parametrize(("pool", "field", "held"), [
    ('{name: p, resourceSliceCount: "1"}', "spec.pool.resourceSliceCount", 'the string "1"'),
    ("{name: p, resourceSliceCount: '1'}", "spec.pool.resourceSliceCount", 'the string "1"'),
    ("{name: p, generation: true}", "spec.pool.generation", "a boolean (true)"),
    ("{name: p, generation: yes}", "spec.pool.generation", "a boolean (true)"),   # YAML 1.1: yes is true
    ("{name: p, generation: 1.5}", "spec.pool.generation", "the number 1.5"),
    ("{name: 7}", "spec.pool.name", "the number 7"),
    ("{name: 1.0}", "spec.pool.name", "the number 1"),   # sigs.k8s.io/yaml writes the JSON 1
])
def test_yaml_types_are_what_kubernetes_converts_them_to(tmp_path: Path, pool: str, field: str, held: str) -> None:
    f = tmp_path / "in.yaml"
    f.write_text(YAML_HEAD + f"  pool: {pool}\n")
    objs = load([f], collect=True)
    assert [(e.field, held in str(e)) for e in objs.errors] == [(field, True)], [str(e) for e in objs.errors]


@pytest.mark.parametrize(("pool", "want"), [
    ("{name: p, resourceSliceCount: 1, generation: 3}", 3),
    ("{name: p, resourceSliceCount: 1.0, generation: 3.0}", 3),   # JSON 1 and 3 to the API server
    ("{name: p, resourceSliceCount: 1e0, generation: 0x3}", 3),
    ("{name: p, resourceSliceCount: !!float 1, generation: 03}", 3),
])
def test_yaml_whole_floats_are_integers_as_in_kubernetes(tmp_path: Path, pool: str, want: int) -> None:
    f = tmp_path / "in.yaml"
    f.write_text(YAML_HEAD + f"  pool: {pool}\n")
    pool_model = load([f]).slices[0].spec.pool
    assert (pool_model.resource_slice_count, pool_model.generation) == (1, want)
    assert type(pool_model.generation) is int


def _device(attrs: dict[str, Any], i: int) -> dict[str, Any]:
    return {"name": f"gpu-{i}", "attributes": {"uuid": {"string": f"GPU-{i}"}, **attrs},
            "capacity": {"memory": {"value": "40Gi"}}}


@pytest.mark.parametrize(("good", "bad", "field"), [
    ({"int": 1}, {"int": True}, "attributes.a.int"),
    ({"int": 1}, {"int": 1.0}, "attributes.a.int"),
    ({"bool": True}, {"bool": 1}, "attributes.a.bool"),
    ({"ints": [1, 2]}, {"ints": [True, 2]}, "attributes.a.ints[0]"),
    ({"ints": [1, 2]}, {"ints": [1, 2.0]}, "attributes.a.ints[1]"),
    ({"bools": [True, False]}, {"bools": [1, 0]}, "attributes.a.bools[0]"),
])
def test_the_fast_slice_builder_refuses_what_validation_refuses(tmp_path: Path, good: dict[str, Any],
                                                                bad: dict[str, Any], field: str) -> None:
    """A List of two slices of one node type (the builder reuses the first
    one's attribute maps for the second): the second differs only by a type
    Python finds equal (``True == 1``, ``[True, 2] == [1, 2]``) and is refused."""
    items = [{"apiVersion": RES, "kind": "ResourceSlice", "metadata": {"name": f"node-{n}"},
              "spec": {"driver": "gpu.example.com", "nodeName": f"node-{n}",
                       "pool": {"name": f"node-{n}", "resourceSliceCount": 1},
                       "devices": [_device({"a": a}, 8 * n + i) for i in range(8)]}}
             for n, a in enumerate((good, bad))]
    f = _write(tmp_path / "list.json", {"apiVersion": "v1", "kind": "List", "items": items})
    objs = load([f], collect=True)
    assert [s.name for s in objs.slices] == ["node-0"]
    assert [(e.obj, e.field) for e in objs.errors] == [("ResourceSlice node-1", f"spec.devices[0].{field}")]


@pytest.mark.parametrize("value", [{"int": 1}, {"ints": [1, 2]}, {"bools": [True, False]}])
def test_the_fast_slice_builder_still_shares_what_is_the_same(tmp_path: Path, value: dict[str, Any]) -> None:
    items = [{"apiVersion": RES, "kind": "ResourceSlice", "metadata": {"name": f"node-{n}"},
              "spec": {"driver": "gpu.example.com", "nodeName": f"node-{n}",
                       "pool": {"name": f"node-{n}", "resourceSliceCount": 1},
                       "devices": [_device({"a": value}, 8 * n + i) for i in range(8)]}} for n in range(2)]
    objs = load([_write(tmp_path / "list.json", {"apiVersion": "v1", "kind": "List", "items": items})])
    first, second = (s.spec.devices[0].attributes for s in objs.slices)  # type: ignore[index]
    assert first is not None and second is not None
    assert second["a"] is first["a"] and second["uuid"] is not first["uuid"]


def test_validate_and_allocate_name_object_and_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = _write(tmp_path / "in.json", _attr({"int": "5"}), _exactly(count=True))
    assert main(["validate", str(f)]) == 1   # validate: findings on stdout, exit 1
    out = capsys.readouterr().out
    assert "ResourceSlice s: spec.devices[0].attributes.a.int: error: Input should be a valid integer, " \
           'not the string "5"' in out
    assert "ResourceClaim c: spec.devices.requests[0].exactly.count: error: Input should be a valid integer, " \
           "not a boolean (true)" in out
    assert main(["allocate", str(f), "--claim", "default/c"]) == 2   # every other command: exit 2
    err = capsys.readouterr().err
    assert "spec.devices[0].attributes.a.int" in err and "spec.devices.requests[0].exactly.count" in err
    assert "Traceback" not in err


SCENARIO = """name: s
node: {name: node-1, labels: {region: r1}}
objects:
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: slice-1}
  spec:
    driver: driver-a
    pool: {name: pool-1, generation: 1, resourceSliceCount: COUNT}
    nodeName: node-1
    devices:
    - {name: device-1}
claims: []
"""


@pytest.mark.parametrize(("count", "error"), [
    ("1", ""), ("1.0", ""), ('"1"', 'the string "1"'), ("on", "a boolean (true)"),
])
def test_scenario_files_read_json_types_as_kubernetes_does(tmp_path: Path, count: str, error: str) -> None:
    f = tmp_path / "s.yaml"
    f.write_text(SCENARIO.replace("COUNT", count))
    scenarios, errors = load_scenarios([f])
    if not error:
        assert not errors and scenarios[0].objects.slices[0].spec.pool.resource_slice_count == 1
        return
    assert [(e.obj, e.field) for e in errors] == [("ResourceSlice slice-1", "spec.pool.resourceSliceCount")]
    assert error in str(errors[0]) and "objects[0]" in str(errors[0])
