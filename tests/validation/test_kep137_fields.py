"""The API server's rules for 1.37's alpha fields: derived attributes
(KEP-6080) on requests and sub-requests, bare constraint names that name one,
and the counter-set keys of a result's recorded compatibility groups
(KEP-5963)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from dralloc.validation import ERROR
from tests.validation.test_rules import claim, run

Obj = dict[str, Any]


def derived_claim(*items: tuple[str, str], constraint: str = "numa") -> Obj:
    c = claim()
    c["spec"]["devices"]["requests"][0]["exactly"]["derivedAttributes"] = [
        {"name": n, "expression": e} for n, e in items]
    c["spec"]["devices"]["constraints"] = [{"requests": ["gpu"], "matchAttribute": constraint}]
    return c


def errors(doc: Obj) -> list[tuple[str, str]]:
    return [(f.rule, f.field) for f in run(doc) if f.severity == ERROR]


def test_a_valid_derived_attribute_and_its_bare_name_pass() -> None:
    assert errors(derived_claim(("numa", "device.attributes['gpu.example.com'].topology.split('-')[0]"))) == []


def test_a_bare_constraint_name_needs_a_derived_attribute_of_that_name() -> None:
    found = run(derived_claim(("numa", "device.attributes['gpu.example.com'].numa"), constraint="pcie"))
    bad = [f for f in found if f.severity == ERROR]
    assert [(f.rule, f.field) for f in bad] == [("format.qualified-name", "spec.devices.constraints[0].matchAttribute")]
    assert "derived attribute" in bad[0].message


@pytest.mark.parametrize(("items", "rule", "field"), [
    ([("numa", "1.5")], "derived-attributes.cel.compile", "expression"),                   # a double
    ([("numa", "{'a': 1}")], "derived-attributes.cel.compile", "expression"),               # a map
    ([("numa", "")], "derived-attributes.cel", "expression"),
    ([("numa", "device.attributes[")], "derived-attributes.cel.compile", "expression"),
    ([("numa", "1"), ("numa", "2")], "derived-attributes.unique", "name"),
    ([("numa", "1"), ("bad name", "2")], "format.qualified-name", "name"),
])
def test_derived_attribute_rules(items: list[tuple[str, str]], rule: str, field: str) -> None:
    got = errors(derived_claim(*items))
    assert any(r == rule and f.endswith(field) and ".derivedAttributes[" in f for r, f in got), got


def test_at_most_eight_derived_attributes() -> None:
    got = errors(derived_claim(*[(f"a{i}", str(i)) for i in range(9)]))
    assert ("derived-attributes.max", "spec.devices.requests[0].exactly.derivedAttributes") in got


def test_list_and_semver_values_compile() -> None:
    ok = derived_claim(("numa", "[device.attributes['gpu.example.com'].a, 'x']"),
                       ("v", "semver('1.2.3')"), ("flag", "true"))
    assert errors(ok) == []


def test_sub_requests_carry_derived_attributes_too() -> None:
    c = claim()
    c["spec"]["devices"]["requests"] = [{"name": "gpu", "firstAvailable": [
        {"name": "a", "deviceClassName": "gpu.example.com",
         "derivedAttributes": [{"name": "numa", "expression": "device.attributes['x'].y + 1.0"}]}]}]
    c["spec"]["devices"]["constraints"] = [{"matchAttribute": "numa"}]
    got = errors(c)
    assert ("derived-attributes.cel.compile",
            "spec.devices.requests[0].firstAvailable[0].derivedAttributes[0].expression") in got


def test_recorded_compatibility_groups_name_counter_sets() -> None:
    c = copy.deepcopy(claim())
    c["status"] = {"allocation": {"devices": {"results": [
        {"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0",
         "compatibilityGroups": {"gpu-0-counters": ["mig"], "Not_A_Label": ["x"]}}]}}}
    got = errors(c)
    assert [f for r, f in got if "compatibilityGroups" in f] == [
        "status.allocation.devices.results[0].compatibilityGroups[Not_A_Label]"]


@pytest.mark.parametrize("value", [{"string": "é" * 33}, {"strings": ["ok", "é" * 33]}])
def test_string_attributes_are_limited_in_bytes(value: dict[str, Any]) -> None:
    """Go's len counts UTF-8 bytes: 33 two-byte characters are 66 bytes, over
    the limit of 64 (list elements: 1.37's eachVal maxBytes=64)."""
    from tests.validation.test_rules import slice_

    s = slice_()
    s["spec"]["devices"][0]["attributes"]["model"] = value
    assert any(r == "device.attribute.string" for r, _ in errors(s))
    s["spec"]["devices"][0]["attributes"]["model"] = {"string": "é" * 32}
    assert not any(r == "device.attribute.string" for r, _ in errors(s))
