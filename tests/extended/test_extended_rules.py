"""The scheduler's reading of extended resources (KEP-5004), rule by rule:
which class serves a name, what a pod asks for in all, the requests and
request mapping of its extended-resource claim -- the cases of the KEP and
of kube-scheduler's extendeddynamicresources.go and its device-class cache."""

from __future__ import annotations

import pytest

from dralloc.errors import InputError
from dralloc.extended import ClassResolver, Mapping, build_requests, pod_requests, used_on
from dralloc.features import Features
from tests.extended.objects import (
    GPU,
    as_class,
    as_node,
    as_pod,
    container,
    device_class,
    node,
    pod,
)

FPGA = "example.com/fpga"


def _requests(p: dict, names: list[str], *classes: dict) -> tuple[list[tuple[str, str, int]], list[Mapping]]:
    resolver = ClassResolver([as_class(c) for c in classes or (device_class("gpu", GPU), device_class("fpga", FPGA))])
    reqs, maps = build_requests(as_pod(p), names, resolver)
    return [(r["name"], r["exactly"]["deviceClassName"], r["exactly"]["count"]) for r in reqs], maps


# ---------------------------------------------------------------- which class


def test_of_classes_naming_one_resource_the_newest_wins() -> None:
    old = device_class("a-old", GPU, "2025-01-01T00:00:00Z")
    new = device_class("z-new", GPU, "2026-01-01T00:00:00Z")
    r = ClassResolver([as_class(old), as_class(new)])
    assert r.class_for(GPU).name == "z-new"
    assert "z-new" in r.why(GPU) and "also a-old" in r.why(GPU)


def test_classes_created_together_the_lower_name_wins() -> None:
    t = "2026-01-01T00:00:00Z"
    r = ClassResolver([as_class(device_class("b", GPU, t)), as_class(device_class("a", GPU, t))])
    assert r.class_for(GPU).name == "a"


def test_every_class_has_its_implicit_name_even_with_an_explicit_one() -> None:
    r = ClassResolver([as_class(device_class("gpu.example.com", GPU)), as_class(device_class("plain"))])
    assert r.class_for("deviceclass.resource.kubernetes.io/gpu.example.com").name == "gpu.example.com"
    assert r.class_for("deviceclass.resource.kubernetes.io/plain").name == "plain"
    assert r.class_for("example.com/none") is None
    assert r.why("example.com/none") == "no DeviceClass"


def test_a_bad_creation_time_is_an_input_error() -> None:
    bad = device_class("a", GPU, "yesterday")
    with pytest.raises(InputError, match="creationTimestamp"):
        ClassResolver([as_class(bad), as_class(device_class("b", GPU))])


# ---------------------------------------------------------------- what a pod asks for


def test_requests_default_from_limits_and_add_up_over_containers() -> None:
    p = pod("p", [container("a", limits={GPU: 2}), container("b", requests={GPU: "1"}, limits={GPU: "1"}),
                  container("c", requests={"cpu": "1"})])
    assert pod_requests(as_pod(p)) == {GPU: 3}


def test_init_containers_count_as_a_peak_and_sidecars_add_up() -> None:
    # kubernetes/kubernetes#134880's example: ic1 1, sidecar 1, ic2 2, c1 1 -> max(1+1, 1+2) = 3
    p = pod("p", [container("c1", limits={GPU: 1})],
            init=[container("ic1", limits={GPU: 1}), container("sidecar", limits={GPU: 1}, sidecar=True),
                  container("ic2", limits={GPU: 2})])
    assert pod_requests(as_pod(p)) == {GPU: 3}
    big_init = pod("q", [container("c", limits={GPU: 1})], init=[container("i", limits={GPU: 4})])
    assert pod_requests(as_pod(big_init)) == {GPU: 4}


def test_overhead_adds_and_zeros_and_native_resources_are_left_out() -> None:
    p = pod("p", [container("a", limits={GPU: 1, FPGA: 0, "cpu": "2", "memory": "1Gi"})])
    p["spec"]["overhead"] = {FPGA: "1"}
    assert pod_requests(as_pod(p)) == {FPGA: 1, GPU: 1}


def test_a_fractional_extended_resource_is_an_input_error_naming_the_field() -> None:
    with pytest.raises(InputError, match=r"spec.containers\[0\].resources.limits\[nvidia.com/gpu\]"):
        pod_requests(as_pod(pod("p", [container("a", limits={GPU: "500m"})])))


# ---------------------------------------------------------------- the claim's requests


def test_the_kep_example_names_the_request_by_container_and_sorted_resource_index() -> None:
    # the KEP: the first container's third resource (sorted by name) is container-0-request-2
    p = pod("p", [container("c", limits={"cpu": "1", "memory": "1Gi", GPU: 1})])
    reqs, maps = _requests(p, [GPU])
    assert reqs == [("container-0-request-2", "gpu", 1)]
    assert maps == [Mapping("c", GPU, "container-0-request-2")]


def test_one_request_per_container_and_resource_sorted_by_name() -> None:
    p = pod("p", [container(f"c{i}", limits={GPU: 1}) for i in range(11)] + [container("f", limits={FPGA: 2})])
    reqs, maps = _requests(p, [GPU, FPGA])
    names = [r[0] for r in reqs]
    assert names == sorted(names) and names[:3] == ["container-0-request-0", "container-1-request-0",
                                                     "container-10-request-0"]   # string order, as Go sorts
    assert ("container-11-request-0", "fpga", 2) in reqs
    # the mapping: resources in name order (example.com/fpga before nvidia.com/gpu), containers in order
    assert maps[0] == Mapping("f", FPGA, "container-11-request-0") and maps[1].container == "c0"


def test_plain_init_containers_reuse_later_containers_devices() -> None:
    # #134880: ic1 reuses the sidecar's device; ic2 reuses c1's and asks one more; 3 devices in all
    p = pod("p", [container("c1", limits={GPU: 1})],
            init=[container("ic1", limits={GPU: 1}), container("sidecar", limits={GPU: 1}, sidecar=True),
                  container("ic2", limits={GPU: 2})])
    reqs, maps = _requests(p, [GPU])
    assert reqs == [("container-1-request-0", "gpu", 1), ("container-2-request-0", "gpu", 1),
                    ("container-3-request-0", "gpu", 1)]
    assert sum(r[2] for r in reqs) == pod_requests(as_pod(p))[GPU]
    assert Mapping("ic1", GPU, "container-1-request-0") in maps
    assert {m.request for m in maps if m.container == "ic2"} == {"container-3-request-0", "container-2-request-0"}


def test_plain_init_containers_share_the_largest_request() -> None:
    p = pod("p", [container("c", limits={GPU: 1})],
            init=[container("a", limits={GPU: 2}), container("b", limits={GPU: 3})])
    reqs, maps = _requests(p, [GPU])
    assert reqs == [("container-1-request-0", "gpu", 2), ("container-2-request-0", "gpu", 1)]
    assert {m.request for m in maps if m.container == "a"} == {"container-2-request-0", "container-1-request-0"}
    assert sum(r[2] for r in reqs) == pod_requests(as_pod(p))[GPU] == 3


def test_only_the_resources_dra_serves_on_the_node_are_asked_for() -> None:
    p = pod("p", [container("c", limits={GPU: 1, FPGA: 1})])
    reqs, _ = _requests(p, [FPGA])
    assert reqs == [("container-0-request-0", "fpga", 1)]


# ---------------------------------------------------------------- nodes and the gate


def test_device_plugins_take_precedence_and_zero_allocatable_goes_to_dra() -> None:
    from dralloc.extended import ExtendedReader

    objs_pod = as_pod(pod("p", [container("c", limits={GPU: 1, FPGA: 1, "example.com/nic": 1})]))
    reader = ExtendedReader([as_class(device_class("gpu", GPU)), as_class(device_class("fpga", FPGA))],
                            Features.default("1.37"), lambda k: None, lambda: [], lambda k: None)
    demand = reader.demand(objs_pod)
    assert demand is not None and set(demand.classes) == {GPU, FPGA}
    share = demand.share(as_node(node("n", {GPU: "4", FPGA: "0", "example.com/nic": "1"})), {GPU: 3})
    assert share.dra == [FPGA] and share.plugin == {"example.com/nic": (1, 1, 0), GPU: (1, 4, 3)}
    assert share.refusal("n") is None
    full = demand.share(as_node(node("n", {GPU: "4", "example.com/nic": "1"})), {GPU: 4})
    assert "insufficient nvidia.com/gpu: 1 asked, 0 of 4 free" in (full.refusal("n") or "")
    bare = demand.share(as_node(node("n")), {})
    assert bare.dra == [FPGA, GPU] and bare.missing == ["example.com/nic"]
    assert "no device plugin for example.com/nic" in (bare.refusal("n") or "")


def test_with_the_gate_off_nothing_is_dras() -> None:
    from dralloc.extended import ExtendedReader

    reader = ExtendedReader([as_class(device_class("gpu", GPU))], Features.default("1.35"), lambda k: None,
                            lambda: [], lambda k: None)
    demand = reader.demand(as_pod(pod("p", [container("c", limits={GPU: 1})])))
    assert demand is not None and not demand.dra
    assert "DRAExtendedResource is off (Kubernetes 1.35)" in demand.not_dra("1.35")
    assert demand.share(as_node(node("n")), {}).missing == [GPU]
    on = Features.with_overrides({"DRAExtendedResource": True}, "1.35")
    assert ExtendedReader([as_class(device_class("gpu", GPU))], on, lambda k: None, lambda: [],
                          lambda k: None).demand(as_pod(pod("p", [container("c", limits={GPU: 1})]))).dra


def test_finished_pods_hold_nothing_on_their_node() -> None:
    running = as_pod(pod("a", [container("c", limits={GPU: 2})], node="n"))
    done = as_pod(pod("b", [container("c", limits={GPU: 1})], node="n", status={"phase": "Succeeded"}))
    waiting = as_pod(pod("c", [container("c", limits={GPU: 1})]))
    assert used_on([running, done, waiting]) == {"n": {GPU: 2}}
