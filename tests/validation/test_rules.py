"""One failing input per validation rule, each a small edit of a valid object."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from dralloc.io import ObjectSet, parse_object
from dralloc.validation import ERROR, WARNING, validate

Obj = dict[str, Any]


def slice_(name: str = "s1", **spec: Any) -> Obj:
    base: Obj = {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name},
        "spec": {"driver": "gpu.example.com", "nodeName": "node-1",
                 "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
                 "devices": [{"name": "gpu-0", "attributes": {"model": {"string": "a100"}},
                              "capacity": {"memory": {"value": "40Gi"}}}]},
    }
    base["spec"].update(spec)
    return base


def claim() -> Obj:
    return {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": {"name": "c1", "namespace": "default"},
        "spec": {"devices": {
            "requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com",
                                                     "selectors": [{"cel": {"expression": "true"}}]}}],
            "constraints": [{"requests": ["gpu"], "matchAttribute": "gpu.example.com/model"}],
            "config": [{"requests": ["gpu"], "opaque": {"driver": "gpu.example.com", "parameters": {"a": 1}}}],
        }},
    }


def device_class() -> Obj:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu.example.com"},
            "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.example.com'"}}]}}


def counter_slice(**spec: Any) -> Obj:
    s = slice_("counters", sharedCounters=[{"name": "gpu-0-set", "counters": {"memory": {"value": "40Gi"}}}])
    del s["spec"]["devices"]
    s["spec"].update(spec)
    return s


def run(*docs: Obj) -> list[Any]:
    objs = ObjectSet()
    for i, d in enumerate(docs):
        obj = parse_object(d, f"test.yaml#{i}")
        assert obj is not None
        objs.add(obj, f"test.yaml#{i}")
    return validate(objs)


def dev(o: Obj, i: int = 0) -> Obj:
    return o["spec"]["devices"][i]


def req(o: Obj) -> Obj:
    return o["spec"]["devices"]["requests"][0]


def many_devices(n: int, **extra: Any) -> list[Obj]:
    return [{"name": f"d{i}", **extra} for i in range(n)]


def attrs(n: int) -> dict[str, Obj]:
    return {f"a{i}": {"int": i} for i in range(n)}


def counters(n: int) -> dict[str, Obj]:
    return {f"c{i}": {"value": "1"} for i in range(n)}


SEL = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "In", "values": ["v"]}]}]}

# rule id -> edit turning the valid slice into one that breaks exactly that rule
SLICE_RULES: list[tuple[str, Callable[[Obj], None]]] = [
    ("format.dns-subdomain", lambda o: o["metadata"].update(name="Bad_Name")),
    ("format.required", lambda o: o["metadata"].update(name="")),
    ("format.pool-name", lambda o: o["spec"]["pool"].update(name="a//b")),
    ("slice.pool.generation", lambda o: o["spec"]["pool"].update(generation=-1)),
    ("slice.pool.count", lambda o: o["spec"]["pool"].update(resourceSliceCount=0)),
    ("slice.node-selection", lambda o: o["spec"].update(allNodes=True)),
    ("slice.node-selector.terms", lambda o: (o["spec"].pop("nodeName"),
                                              o["spec"].update(nodeSelector={"nodeSelectorTerms": []}))),
    ("slice.node-selector.requirement", lambda o: (o["spec"].pop("nodeName"), o["spec"].update(
        nodeSelector={"nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "Near"}]}]}))),
    ("slice.node-selector.field", lambda o: (o["spec"].pop("nodeName"), o["spec"].update(
        nodeSelector={"nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.uid", "operator": "In", "values": ["x"]}]}]}))),
    ("format.label-key", lambda o: (o["spec"].pop("nodeName"), o["spec"].update(
        nodeSelector={"nodeSelectorTerms": [{"matchExpressions": [{"key": "-bad", "operator": "Exists"}]}]}))),
    ("slice.devices-and-counters", lambda o: o["spec"].update(
        sharedCounters=[{"name": "set", "counters": {"c": {"value": "1"}}}])),
    ("slice.devices.max", lambda o: o["spec"].update(devices=many_devices(129))),
    ("slice.devices.unique", lambda o: o["spec"]["devices"].append({"name": "gpu-0"})),
    ("format.dns-label", lambda o: dev(o).update(name="GPU_0")),
    ("device.attributes.max", lambda o: dev(o).update(attributes=attrs(32))),
    ("format.qualified-name", lambda o: dev(o)["attributes"].update({"9lives": {"int": 1}})),
    ("device.attribute.one-value", lambda o: dev(o)["attributes"].update(x={"int": 1, "string": "a"})),
    ("device.attribute.string", lambda o: dev(o)["attributes"].update(x={"string": "s" * 65})),
    ("device.attribute.version", lambda o: dev(o)["attributes"].update(x={"version": "1.2"})),
    ("device.capacity.policy", lambda o: dev(o)["capacity"].update(x={"value": "1", "requestPolicy": {
        "default": "1", "validValues": ["1"]}})),  # a policy without allowMultipleAllocations
    ("device.consumes-counters.max", lambda o: dev(o).update(consumesCounters=[
        {"counterSet": f"s{i}", "counters": {"c": {"value": "1"}}} for i in range(3)])),
    ("device.consumes-counters.counters", lambda o: dev(o).update(consumesCounters=[
        {"counterSet": "s", "counters": counters(33)}])),
    ("device.node-selection", lambda o: dev(o).update(nodeName="node-1")),
    ("device.taints.max", lambda o: dev(o).update(taints=[
        {"key": f"k{i}", "effect": "NoSchedule"} for i in range(17)])),
    ("device.taints.effect", lambda o: dev(o).update(taints=[{"key": "k", "effect": "Sometimes"}])),
    ("format.label-value", lambda o: dev(o).update(taints=[{"key": "k", "value": "bad value",
                                                           "effect": "NoSchedule"}])),
    ("device.binding-conditions.max", lambda o: dev(o).update(
        bindingConditions=[f"c{i}" for i in range(5)], bindingFailureConditions=["f"])),
    ("device.binding-conditions.pair", lambda o: dev(o).update(bindingConditions=["ready"])),
]

COUNTER_RULES: list[tuple[str, Callable[[Obj], None]]] = [
    ("slice.counter-sets.max", lambda o: o["spec"].update(sharedCounters=[
        {"name": f"s{i}", "counters": {"c": {"value": "1"}}} for i in range(9)])),
    ("slice.counter-sets.unique", lambda o: o["spec"]["sharedCounters"].append(
        {"name": "gpu-0-set", "counters": {"c": {"value": "1"}}})),
    ("slice.counters.max", lambda o: o["spec"]["sharedCounters"][0].update(counters=counters(33))),
    ("slice.counters.required", lambda o: o["spec"]["sharedCounters"][0].update(counters={})),
]

CLAIM_RULES: list[tuple[str, Callable[[Obj], None]]] = [
    ("claim.requests.max", lambda o: o["spec"]["devices"].update(requests=[
        {"name": f"r{i}", "exactly": {"deviceClassName": "c"}} for i in range(33)], constraints=[], config=[])),
    ("claim.requests.unique", lambda o: o["spec"]["devices"]["requests"].append(copy.deepcopy(req(o)))),
    ("request.one-of", lambda o: req(o).update(firstAvailable=[{"name": "a", "deviceClassName": "c"}])),
    ("request.allocation-mode", lambda o: req(o)["exactly"].update(allocationMode="Some")),
    ("request.count", lambda o: req(o)["exactly"].update(count=0)),
    ("request.subrequests.max", lambda o: (req(o).pop("exactly"), req(o).update(firstAvailable=[
        {"name": f"s{i}", "deviceClassName": "c"} for i in range(9)]))),
    ("request.subrequests.unique", lambda o: (req(o).pop("exactly"), req(o).update(firstAvailable=[
        {"name": "s", "deviceClassName": "c"}, {"name": "s", "deviceClassName": "d"}]))),
    ("selectors.max", lambda o: req(o)["exactly"].update(selectors=[{"cel": {"expression": "true"}}] * 33)),
    ("selectors.cel", lambda o: req(o)["exactly"].update(selectors=[{}])),
    ("selectors.cel.length", lambda o: req(o)["exactly"].update(
        selectors=[{"cel": {"expression": "true || " * 1400 + "true"}}])),
    ("tolerations.max", lambda o: req(o)["exactly"].update(tolerations=[{"key": "k"}] * 17)),
    ("tolerations.operator", lambda o: req(o)["exactly"].update(tolerations=[{"key": "k", "operator": "Is"}])),
    ("tolerations.value", lambda o: req(o)["exactly"].update(
        tolerations=[{"key": "k", "operator": "Exists", "value": "v"}])),
    ("format.label-key", lambda o: req(o)["exactly"].update(tolerations=[{"key": "-k", "operator": "Exists"}])),
    ("tolerations.effect", lambda o: req(o)["exactly"].update(tolerations=[{"key": "k", "effect": "Later"}])),
    ("claim.constraints.max", lambda o: o["spec"]["devices"].update(
        constraints=[{"matchAttribute": "a.b/c"}] * 33)),
    ("constraint.one-of", lambda o: o["spec"]["devices"]["constraints"][0].pop("matchAttribute")),
    ("constraint.requests", lambda o: o["spec"]["devices"]["constraints"][0].update(requests=["nic"])),
    ("claim.config.max", lambda o: o["spec"]["devices"].update(config=[
        {"opaque": {"driver": "d.example.com", "parameters": {}}}] * 33)),
    ("config.requests", lambda o: o["spec"]["devices"]["config"][0].update(requests=["gpu/small"])),
    ("config.opaque", lambda o: o["spec"]["devices"]["config"][0].pop("opaque")),
    ("config.parameters", lambda o: o["spec"]["devices"]["config"][0]["opaque"].pop("parameters")),
    ("config.parameters.size", lambda o: o["spec"]["devices"]["config"][0]["opaque"].update(
        parameters={"blob": "x" * 11000})),
]

CLASS_RULES: list[tuple[str, Callable[[Obj], None]]] = [
    ("selectors.cel.length", lambda o: o["spec"]["selectors"][0]["cel"].update(expression="a" * 10241)),
    ("class.config.max", lambda o: o["spec"].update(config=[
        {"opaque": {"driver": "d.example.com", "parameters": {}}}] * 33)),
]


def _rules(findings: list[Any]) -> set[str]:
    return {f.rule for f in findings if f.severity == ERROR}


@pytest.mark.parametrize("make", [slice_, claim, device_class, counter_slice])
def test_valid_objects_have_no_findings(make: Callable[[], Obj]) -> None:
    assert run(make()) == []


@pytest.mark.parametrize(("rule", "edit"), SLICE_RULES, ids=[r for r, _ in SLICE_RULES])
def test_slice_rule(rule: str, edit: Callable[[Obj], None]) -> None:
    o = slice_()
    edit(o)
    findings = run(o)
    assert rule in _rules(findings), [str(f) for f in findings]
    hit = next(f for f in findings if f.rule == rule)
    assert hit.source == "test.yaml#0" and hit.object == f"ResourceSlice {o['metadata']['name']}".strip()


@pytest.mark.parametrize(("rule", "edit"), COUNTER_RULES, ids=[r for r, _ in COUNTER_RULES])
def test_counter_set_rule(rule: str, edit: Callable[[Obj], None]) -> None:
    o = counter_slice()
    edit(o)
    assert rule in _rules(run(o))


@pytest.mark.parametrize(("rule", "edit"), CLAIM_RULES, ids=[r for r, _ in CLAIM_RULES])
def test_claim_rule(rule: str, edit: Callable[[Obj], None]) -> None:
    o = claim()
    edit(o)
    assert rule in _rules(run(o))
    template = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                "metadata": {"name": "t"}, "spec": {"spec": o["spec"]}}
    assert rule in _rules(run(template)), "templates follow the same rules"


@pytest.mark.parametrize(("rule", "edit"), CLASS_RULES, ids=[r for r, _ in CLASS_RULES])
def test_class_rule(rule: str, edit: Callable[[Obj], None]) -> None:
    o = device_class()
    edit(o)
    assert rule in _rules(run(o))


def test_device_limit_is_64_when_a_device_consumes_counters() -> None:
    devices = many_devices(65, consumesCounters=[{"counterSet": "gpu-0-set", "counters": {"memory": {"value": "1"}}}])
    findings = run(slice_(devices=devices, pool={"name": "p", "generation": 1, "resourceSliceCount": 2}),
                   counter_slice(pool={"name": "p", "generation": 1, "resourceSliceCount": 2}))
    hit = [f for f in findings if f.rule == "slice.devices.max"]
    assert hit and "at most 64" in hit[0].message
    assert run(slice_(devices=many_devices(64))) == []


def test_no_limit_on_counters_consumed_per_slice() -> None:
    # the 2,048 consumed counters per slice of Kubernetes 1.33 are gone (KEP-5234)
    cons = [{"counterSet": f"set-{k}", "counters": counters(32)} for k in range(2)]  # 64 * 2 * 32 = 4096
    devices = many_devices(64, consumesCounters=cons)
    assert _rules(run(slice_(devices=devices, pool={"name": "p", "generation": 1, "resourceSliceCount": 2}))) == set()


# ------------------------------------------------------------------ pools

def pool(**kw: Any) -> dict[str, Any]:
    return {"name": "p", "generation": 1, "resourceSliceCount": 2, **kw}


def test_pool_rules_valid_pool_across_two_slices() -> None:
    d = slice_("devs", pool=pool())
    dev(d)["consumesCounters"] = [{"counterSet": "gpu-0-set", "counters": {"memory": {"value": "10Gi"}}}]
    assert run(d, counter_slice(pool=pool())) == []


POOL_RULES: list[tuple[str, Callable[[], list[Obj]]]] = [
    ("pool.complete", lambda: [slice_("a", pool=pool())]),
    ("pool.slice-count-agree", lambda: [slice_("a", pool=pool()),
                                        counter_slice(pool=pool(resourceSliceCount=3))]),
    ("pool.devices.unique", lambda: [slice_("a", pool=pool()), slice_("b", pool=pool())]),
    ("pool.counter-sets.unique", lambda: [counter_slice(pool=pool()),
                                          {**counter_slice(pool=pool()), "metadata": {"name": "b"}}]),
    ("pool.counter-set.exists", lambda: [
        {**slice_("a", pool=pool(resourceSliceCount=1))} | {"spec": {**slice_()["spec"], "devices": [
            {"name": "d", "consumesCounters": [{"counterSet": "nope", "counters": {"c": {"value": "1"}}}]}]}}]),
    ("pool.counter.exists", lambda: [
        slice_("a", pool=pool(), devices=[{"name": "d", "consumesCounters": [
            {"counterSet": "gpu-0-set", "counters": {"cores": {"value": "1"}}}]}]),
        counter_slice(pool=pool())]),
]


@pytest.mark.parametrize(("rule", "make"), POOL_RULES, ids=[r for r, _ in POOL_RULES])
def test_pool_rule(rule: str, make: Callable[[], list[Obj]]) -> None:
    # the API server accepts each slice; the allocator reports the pool when a request needs it
    findings = run(*make())
    assert rule in {f.rule for f in findings if f.severity == WARNING}, [str(f) for f in findings]
    assert not _rules(findings)


def test_older_generation_is_a_warning_and_the_pool_is_judged_by_the_newest() -> None:
    old = slice_("old", pool=pool(generation=1, resourceSliceCount=1))
    new = slice_("new", pool=pool(generation=2, resourceSliceCount=1))
    findings = run(old, new)
    assert [(f.rule, f.severity, f.object) for f in findings] == [
        ("pool.stale-generation", WARNING, "ResourceSlice old")]


def test_finding_text_names_file_object_field_and_rule() -> None:
    o = slice_()
    dev(o)["name"] = "GPU"
    text = str(next(f for f in run(o) if f.rule == "format.dns-label"))
    assert text.startswith("test.yaml#0: ResourceSlice s1: spec.devices[0].name: error: ")
    assert text.endswith("[format.dns-label]")


# ------------------------------------------- what the API server adds (1.36)
# (case id, object maker with the edit applied, rule that must be an error)
def _edit(make: Callable[[], Obj], edit: Callable[[Obj], Any]) -> Callable[[], Obj]:
    def build() -> Obj:
        o = make()
        edit(o)
        return o
    return build


def _policy(**policy: Any) -> Callable[[Obj], None]:
    return lambda o: dev(o).update(allowMultipleAllocations=True, capacity={"memory": {
        "value": "40Gi", "requestPolicy": policy}})


API_RULES: list[tuple[str, Callable[[], Obj], str]] = [
    ("selector does not compile", _edit(claim, lambda o: req(o)["exactly"].update(
        selectors=[{"cel": {"expression": "device.atributes['x'].y"}}])), "selectors.cel.compile"),
    ("class selector does not compile", _edit(device_class, lambda o: o["spec"]["selectors"][0]["cel"].update(
        expression="device.driver ==")), "selectors.cel.compile"),
    ("count -1", _edit(claim, lambda o: req(o)["exactly"].update(count=-1)), "request.count"),
    ("count beyond int64", _edit(claim, lambda o: req(o)["exactly"].update(count=2**63)), "format.int64"),
    ("exactly and firstAvailable", _edit(claim, lambda o: req(o).update(
        firstAvailable=[{"name": "a", "deviceClassName": "c"}])), "request.one-of"),
    ("neither exactly nor firstAvailable", _edit(claim, lambda o: req(o).pop("exactly")), "request.one-of"),
    ("constraint names an unknown request", _edit(claim, lambda o: o["spec"]["devices"]["constraints"][0].update(
        requests=["gpu", "nic"])), "constraint.requests"),
    ("constraint names a request/sub/more", _edit(claim, lambda o: o["spec"]["devices"]["constraints"][0].update(
        requests=["gpu/a/b"])), "constraint.requests"),
    ("constraint names a request twice", _edit(claim, lambda o: o["spec"]["devices"]["constraints"][0].update(
        requests=["gpu", "gpu"])), "constraint.requests"),
    ("parameters not an object", _edit(claim, lambda o: o["spec"]["devices"]["config"][0]["opaque"].update(
        parameters=[1, 2])), "config.parameters"),
    ("request name not a DNS label", _edit(claim, lambda o: req(o).update(name="GPU")), "format.dns-label"),
    ("namespace not a DNS label", _edit(claim, lambda o: o["metadata"].update(namespace="Team_A")),
     "format.dns-label"),
    ("label value", _edit(claim, lambda o: o["metadata"].update(labels={"a": "not ok"})), "format.label-value"),
    ("toleration value with Equal", _edit(claim, lambda o: req(o)["exactly"].update(
        tolerations=[{"key": "k", "value": "no spaces"}])), "format.label-value"),
    ("extended resource name", _edit(device_class, lambda o: o["spec"].update(extendedResourceName="gpu")),
     "class.extended-resource-name"),
    ("int attribute beyond int64", _edit(slice_, lambda o: dev(o)["attributes"].update(n={"int": -(2**63) - 1})),
     "format.int64"),
    ("empty list attribute", _edit(slice_, lambda o: dev(o)["attributes"].update(n={"ints": []})),
     "device.attribute.one-value"),
    ("48 attribute values", _edit(slice_, lambda o: dev(o)["attributes"].update(n={"ints": list(range(48))})),
     "device.attributes.max"),
    ("identifier of 33 characters", _edit(slice_, lambda o: dev(o)["attributes"].update({"a" * 33: {"int": 1}})),
     "format.qualified-name"),
    ("two slashes in a name", _edit(slice_, lambda o: dev(o)["attributes"].update({"a.b/c/d": {"int": 1}})),
     "format.qualified-name"),
    ("allNodes false", _edit(slice_, lambda o: o["spec"].update(allNodes=False)), "slice.node-selection"),
    ("nodeName empty", _edit(slice_, lambda o: o["spec"].update(nodeName="", allNodes=True)),
     "slice.node-selection"),
    ("consumption without counters", _edit(slice_, lambda o: dev(o).update(
        consumesCounters=[{"counterSet": "s"}])), "device.consumes-counters.counters"),
    ("counter set consumed twice", _edit(slice_, lambda o: dev(o).update(consumesCounters=[
        {"counterSet": "s", "counters": {"c": {"value": "1"}}}] * 2)), "device.consumes-counters.unique"),
    ("binding conditions overlap", _edit(slice_, lambda o: dev(o).update(
        bindingConditions=["ready"], bindingFailureConditions=["ready"])), "device.binding-conditions"),
    ("validValues without default", _edit(slice_, _policy(validValues=["1Gi"])), "device.capacity.policy"),
    ("default not a valid value", _edit(slice_, _policy(default="2Gi", validValues=["1Gi", "4Gi"])),
     "device.capacity.policy"),
    ("validValues unsorted", _edit(slice_, _policy(default="1Gi", validValues=["4Gi", "1Gi"])),
     "device.capacity.policy"),
    ("valid value above capacity", _edit(slice_, _policy(default="1Gi", validValues=["1Gi", "80Gi"])),
     "device.capacity.policy"),
    ("range without min", _edit(slice_, _policy(default="1Gi", validRange={"max": "2Gi"})),
     "device.capacity.policy"),
    ("default off the step", _edit(slice_, _policy(default="3Gi", validRange={"min": "2Gi", "step": "2Gi"})),
     "device.capacity.policy"),
    ("step of zero", _edit(slice_, _policy(default="2Gi", validRange={"min": "2Gi", "step": "0"})),
     "device.capacity.policy"),
]


@pytest.mark.parametrize(("case", "make", "rule"), API_RULES, ids=[c for c, _, _ in API_RULES])
def test_what_the_api_server_refuses(case: str, make: Callable[[], Obj], rule: str) -> None:
    findings = run(make())
    assert rule in _rules(findings), [str(f) for f in findings]


ACCEPTED: list[tuple[str, Callable[[], Obj]]] = [
    # the API server takes these as they are (dralloc used to refuse some of them)
    ("driver name with capitals", _edit(slice_, lambda o: o["spec"].update(driver="GPU.example.com"))),
    ("huge counter", _edit(counter_slice, lambda o: o["spec"]["sharedCounters"][0]["counters"].update(
        big={"value": "1e19"}))),
    ("huge capacity", _edit(slice_, lambda o: dev(o)["capacity"].update(big={"value": "99999999999999999999"}))),
    ("count above the allocator's 32", _edit(claim, lambda o: req(o)["exactly"].update(count=33))),
    ("empty key with Equal", _edit(claim, lambda o: req(o)["exactly"].update(tolerations=[{"value": "v"}]))),
    ("exactly with an empty firstAvailable", _edit(claim, lambda o: req(o).update(firstAvailable=[]))),
    ("valid range policy", _edit(slice_, _policy(default="2Gi", validRange={"min": "2Gi", "max": "8Gi",
                                                                            "step": "2Gi"}))),
]


@pytest.mark.parametrize(("case", "make"), ACCEPTED, ids=[c for c, _ in ACCEPTED])
def test_what_the_api_server_accepts(case: str, make: Callable[[], Obj]) -> None:
    findings = run(make())
    assert not _rules(findings), [str(f) for f in findings]


WARNINGS: list[tuple[str, Callable[[], Obj], str]] = [
    ("count above the allocator's limit", _edit(claim, lambda o: req(o)["exactly"].update(count=33)),
     "request.count.allocator-limit"),
    ("negative capacity", _edit(slice_, lambda o: dev(o)["capacity"].update(x={"value": "-1"})),
     "device.capacity.value"),
    ("negative capacity request", _edit(claim, lambda o: req(o)["exactly"].update(
        capacity={"requests": {"memory": "-1Gi"}})), "request.capacity"),
    ("match and distinct both set", _edit(claim, lambda o: o["spec"]["devices"]["constraints"][0].update(
        distinctAttribute="a.b/c")), "constraint.one-of"),
]


@pytest.mark.parametrize(("case", "make", "rule"), WARNINGS, ids=[c for c, _, _ in WARNINGS])
def test_accepted_but_worth_a_warning(case: str, make: Callable[[], Obj], rule: str) -> None:
    findings = run(make())
    assert [f.rule for f in findings if f.severity == WARNING] == [rule] and not _rules(findings)
