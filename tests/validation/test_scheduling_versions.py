"""scheduling.k8s.io gang objects of every version a served release knows
(v1alpha1 in 1.35, v1alpha2 in 1.36, v1beta1 and v1alpha3 in 1.37) are read
into the one gang model; what the API server refuses is an input error
naming the field; what changes placement and is not modelled (a composite
pod group with a gang policy, a topology constraint) is refused with "not
supported yet" for the pods it concerns."""

from __future__ import annotations

from typing import Any

import pytest

from dralloc.errors import InputError
from dralloc.gangs import GangReader
from dralloc.planner.generate import clusters as gen
from dralloc.planner.view.pods import pods_demand
from dralloc.validation import validate
from tests.planner.aicluster import aligned, member

Doc = dict[str, Any]


def group(version: str, min_count: int = 2, **spec: Any) -> Doc:
    return {"apiVersion": f"scheduling.k8s.io/{version}", "kind": "PodGroup",
            "metadata": {"name": "pg", "namespace": "default"},
            "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}},
                     "resourceClaims": [{"name": "nic", "resourceClaimTemplateName": "nic"}], **spec}}


def composite(policy: Doc) -> Doc:
    return {"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "CompositePodGroup",
            "metadata": {"name": "top", "namespace": "default"}, "spec": {"schedulingPolicy": policy}}


def demand(*extra: Doc) -> Any:
    docs = [*gen.device_classes(), aligned("one", 1), aligned("nic", 0), *extra,
            member("m", "pg", ["one"], [("nic", "nic")], replicas=3)]
    return pods_demand(gen.objects(docs))


@pytest.mark.parametrize("version", ["v1alpha2", "v1alpha3", "v1beta1"])
def test_pod_groups_of_every_version_read_into_one_gang_with_its_claims(version: str) -> None:
    got = demand(group(version, priority=1000) if version != "v1alpha2" else group(version))
    [(key, gang)] = got.gangs.items()
    assert (key, gang.source, gang.min_count, gang.size) == ("default/pg", "PodGroup", 2, 3)
    assert list(got.shared) == ["default/pg-nic"]          # one claim for the group, made from its template
    if version != "v1alpha2":
        assert gang.priority == 1000


def test_a_v1beta1_workload_with_templates_is_read() -> None:
    wl = {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "Workload",
          "metadata": {"name": "job", "namespace": "default"},
          "spec": {"podGroupTemplates": [{"name": "workers", "schedulingPolicy": {"gang": {"minCount": 2}},
                                          "resourceClaims": [{"name": "nic", "resourceClaimTemplateName": "nic"}]}]}}
    pg = group("v1beta1", workloadRef={"workloadName": "job", "templateName": "workers"})
    objs = gen.objects([wl, pg])
    assert validate(objs) == []
    assert objs.workloads[0].spec.pod_group_templates[0].resource_claims[0].name == "nic"   # type: ignore[index]


@pytest.mark.parametrize(("obj", "message"), [
    (group("v1beta1", priority=2_000_000_000), "above the highest user-definable priority"),
    (group("v1beta1", schedulingConstraints={"topology": [{"key": "a"}, {"key": "b"}]}), "2 topology constraints"),
    ({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "Workload", "metadata": {"name": "w", "namespace": "d"},
      "spec": {"podGroupTemplates": [{"name": "a", "schedulingPolicy": {"basic": {}}}],
               "compositePodGroupTemplates": [{"name": "b", "schedulingPolicy": {"basic": {}},
                                               "podGroupTemplates": [{"name": "c",
                                                                      "schedulingPolicy": {"basic": {}}}]}]}},
     "exactly one of podGroupTemplates and compositePodGroupTemplates"),
    (composite({"gang": {"minGroupCount": 0}}), "minGroupCount: must be a positive integer"),
    # int32 fields: a number beyond int32 is refused by the API server's decoder
    (group("v1beta1", min_count=2**31), "minCount: minCount 2147483648 does not fit in a 32-bit integer"),
    (composite({"gang": {"minGroupCount": 2**31}}), "minGroupCount: minGroupCount 2147483648 does not fit"),
    (group("v1beta1", priority=-(2**31) - 1), "priority: priority -2147483649 does not fit in a 32-bit integer"),
    (group("v1beta1", parentCompositePodGroupName="top"), "required when parentCompositePodGroupName is set"),
])
def test_what_the_api_server_refuses_is_a_finding_naming_the_field(obj: Doc, message: str) -> None:
    findings = validate(gen.objects([obj]))
    assert any(message in f"{f.field}: {f.message}" for f in findings), findings


def test_a_composite_gang_parent_is_refused_as_not_supported_yet() -> None:
    pg = group("v1beta1", parentCompositePodGroupName="top", workloadRef={"workloadName": "w", "templateName": "t"})
    with pytest.raises(InputError, match=r"CompositePodGroup default/top \(gang: at least 2 of its groups together\)"
                                         r".*not supported yet"):
        demand(pg, composite({"gang": {"minGroupCount": 2}}))
    basic = demand(pg, composite({"basic": {}}))          # groups scheduled independently: the gang as usual
    assert list(basic.gangs) == ["default/pg"]


def test_a_topology_constraint_is_refused_for_its_pods_only() -> None:
    pg = group("v1beta1", schedulingConstraints={"topology": [{"key": "topology.kubernetes.io/rack"}]})
    objs = gen.objects([*gen.device_classes(), aligned("one", 1), aligned("nic", 0), pg,
                        member("m", "pg", ["one"], [("nic", "nic")]), member("other", "pg2", ["one"])])
    reader = GangReader(objs)
    with pytest.raises(InputError, match=r"Pod default/m: PodGroup default/pg: spec.schedulingConstraints.topology "
                                         r"\(topology.kubernetes.io/rack: every pod in one domain\) changes "
                                         r"placement: not supported yet"):
        reader.find(objs.pods[0])
