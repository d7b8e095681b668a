"""A scenario's ``expect`` of the wrong type is an input error naming the
field (the fuzzer's find: ``expect: {allocations: 5}`` made ``check`` and
``allocate`` exit 3 with a TypeError)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from dralloc.cli.main import main
from dralloc.errors import InputError
from dralloc.io.scenario import load_scenarios, parse_scenario

SCENARIO = """name: typed-expect
features: [DRAPrioritizedList]
node: {name: node-1}
objects:
- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata: {name: gpu}
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: gpus}
  spec:
    driver: gpu.example.com
    nodeName: node-1
    pool: {name: node-1, generation: 1, resourceSliceCount: 1}
    devices: [{name: gpu-0}]
claims:
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {name: claim-0, namespace: default}
  spec: {devices: {requests: [{name: req-0, exactly: {deviceClassName: gpu}}]}}
"""

BAD = [
    # (expect, field named, words of the message)
    ("{allocations: 5}", "expect.allocations", "must be a list of allocation results"),
    ("{allocations: null}", "expect.allocations", "not null"),
    ("{allocations: {devices: {}}}", "expect.allocations", "not a mapping"),
    ("{allocations: [5]}", "expect.allocations[0]", "must be an allocation result"),
    ("{allocations: [[]]}", "expect.allocations[0]", "not a list"),
    ("{allocations: [{devices: 3}]}", "expect.allocations[0].devices", "valid dictionary"),
    ("{unsatisfiable: yes-please}", "expect.unsatisfiable", "must be true, not a string"),
    ("{unsatisfiable: false}", "expect.unsatisfiable", "must be true, not a boolean"),
    ("{unsatisfiable: 1}", "expect.unsatisfiable", "must be true, not a number"),
    ("{error: 5}", "expect.error", "must be a non-empty string"),
    ("{error: null}", "expect.error", "not null"),
    ("{error: ''}", "expect.error", "must be a non-empty string"),
    ("{error: [a]}", "expect.error", "not a list"),
    ("{error: x, unsatisfiable: true}", "expect", "exactly one of"),
    ("{allocation: []}", "expect", "unknown field(s) allocation"),
    ("{error: x, why: y}", "expect", "unknown field(s) why"),
    ("[unsatisfiable]", "expect", "must be a mapping, not a list"),
]


@pytest.mark.parametrize(("expect", "field", "words"), BAD, ids=[b[0] for b in BAD])
def test_a_wrong_typed_expect_names_the_field(expect: str, field: str, words: str) -> None:

    doc = yaml.safe_load(SCENARIO + f"expect: {expect}\n")
    with pytest.raises(InputError) as e:
        parse_scenario(doc, "s.yaml")
    assert e.value.field == field
    assert words in e.value.message


@pytest.mark.parametrize("expect", ["{unsatisfiable: true}", "{error: 'no such'}", "{allocations: []}",
                                    "{allocations: [{devices: {results: []}}]}"])
def test_well_typed_expectations_are_read(expect: str) -> None:

    sc = parse_scenario(yaml.safe_load(SCENARIO + f"expect: {expect}\n"), "s.yaml")
    assert sc.expect is not None


@pytest.mark.parametrize("command", ["check", "allocate", "explain"])
def test_the_commands_refuse_it_with_exit_2(tmp_path: Path, command: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO + "expect: {allocations: 5}\n")
    assert load_scenarios([path])[1][0].field == "expect.allocations"
    assert main([command, str(path)]) == 2
    out = capsys.readouterr()
    said = out.out + out.err
    assert "expect.allocations: must be a list of allocation results" in said
    assert "internal error" not in said
