"""The cases kube-scheduler's own tests check for extended resources
through DRA (createRequestsAndMappings: requests and request mappings per
container kind; the device-class resolver: explicit and implicit names;
the Filter's split between device plugin and DRA per node), written here
as rules dralloc follows, with the objects a user would write."""

from __future__ import annotations

from dralloc.extended import ClassResolver, ExtendedReader, Mapping, build_requests, pod_requests
from dralloc.features import Features
from tests.extended.objects import as_class, as_node, as_pod, container, device_class, node, pod

X = "example.com/gpu"
X1 = "example.com/gpu1"
XI = "example.com/gpuinit"
IMPLICIT = "deviceclass.resource.kubernetes.io/classinit"

CLASSES = [device_class("class", X), device_class("class1", X1), device_class("classinit", XI)]


def _build(p: dict, names: list[str] | None = None, classes: list[dict] = CLASSES):
    resolver = ClassResolver([as_class(c) for c in classes])
    the_pod = as_pod(p)
    reqs, maps = build_requests(the_pod, names if names is not None else list(pod_requests(the_pod)), resolver)
    return [(r["name"], r["exactly"]["deviceClassName"], r["exactly"]["count"]) for r in reqs], maps


def _sorted(maps: list[Mapping]) -> list[tuple[str, str, str]]:
    return sorted((m.request, m.container, m.resource) for m in maps)


# ---------------------------------------------------------------- requests


def test_no_extended_resources_no_requests() -> None:
    assert _build(pod("p", [container("con0", limits={"cpu": "1"})])) == ([], [])
    assert pod_requests(as_pod(pod("p", [container("con0")]))) == {}


def test_a_resource_no_class_serves_gets_no_request() -> None:
    p = pod("p", [container("con0", requests={X: "1", "example.com/other": "2"})])
    reqs, _ = _build(p, [X, "example.com/other"])
    assert reqs == [("container-0-request-0", "class", 1)]


def test_two_resources_in_one_container_index_by_sorted_name() -> None:
    p = pod("p", [container("con0", requests={X1: "2", X: "1"})])
    reqs, maps = _build(p)
    assert reqs == [("container-0-request-0", "class", 1), ("container-0-request-1", "class1", 2)]
    assert _sorted(maps) == [("container-0-request-0", "con0", X), ("container-0-request-1", "con0", X1)]


def test_two_containers_each_get_their_own_request() -> None:
    p = pod("p", [container("con0", requests={X: "1"}), container("con1", requests={X1: "2"})])
    reqs, maps = _build(p)
    assert reqs == [("container-0-request-0", "class", 1), ("container-1-request-0", "class1", 2)]
    assert _sorted(maps) == [("container-0-request-0", "con0", X), ("container-1-request-0", "con1", X1)]


def test_init_containers_count_first_in_the_container_index() -> None:
    p = pod("p", [container("con0", requests={X: "1"})], init=[container("init-con0", requests={XI: "2"})])
    reqs, maps = _build(p)
    assert reqs == [("container-0-request-0", "classinit", 2), ("container-1-request-0", "class", 1)]
    assert _sorted(maps) == [("container-0-request-0", "init-con0", XI), ("container-1-request-0", "con0", X)]


def test_two_plain_init_containers_share_the_larger_request() -> None:
    p = pod("p", [container("con0", requests={X: "1"})],
            init=[container("init-con0", requests={XI: "1"}), container("init-con1", requests={XI: "2"})])
    reqs, maps = _build(p)
    assert reqs == [("container-1-request-0", "classinit", 2), ("container-2-request-0", "class", 1)]
    assert _sorted(maps) == [("container-1-request-0", "init-con0", XI), ("container-1-request-0", "init-con1", XI),
                             ("container-2-request-0", "con0", X)]


def test_a_sidecar_keeps_its_devices_and_an_earlier_init_container_reuses_them() -> None:
    p = pod("p", [container("con0", requests={X: "1"})],
            init=[container("init-con0", requests={XI: "1"}), container("sidecar-con1", requests={XI: "1"}, sidecar=True),
                  container("init-con2", requests={XI: "2"})])
    reqs, maps = _build(p)
    assert reqs == [("container-1-request-0", "classinit", 1), ("container-2-request-0", "classinit", 2),
                    ("container-3-request-0", "class", 1)]
    assert _sorted(maps) == [("container-1-request-0", "init-con0", XI), ("container-1-request-0", "sidecar-con1", XI),
                             ("container-2-request-0", "init-con2", XI), ("container-3-request-0", "con0", X)]
    assert sum(c for _, cls, c in reqs if cls == "classinit") == pod_requests(as_pod(p))[XI] == 3


def test_explicit_and_implicit_names_of_one_class_are_separate_requests() -> None:
    p = pod("p", [], init=[container("init-con0", requests={XI: "1", IMPLICIT: "2"})])
    p["spec"]["containers"] = [container("con0")]
    reqs, maps = _build(p)
    # one request per resource name, though one class serves both; the
    # implicit name sorts first among the container's resources: index 0
    assert reqs == [("container-0-request-0", "classinit", 2), ("container-0-request-1", "classinit", 1)]
    assert _sorted(maps) == [("container-0-request-0", "init-con0", IMPLICIT),
                             ("container-0-request-1", "init-con0", XI)]


def test_explicit_and_implicit_names_in_different_init_containers() -> None:
    p = pod("p", [container("con0", requests={X: "1"})],
            init=[container("init-con0", requests={XI: "1"}), container("init-con1", requests={IMPLICIT: "2"})])
    reqs, maps = _build(p)
    assert reqs == [("container-0-request-0", "classinit", 1), ("container-1-request-0", "classinit", 2),
                    ("container-2-request-0", "class", 1)]
    assert _sorted(maps) == [("container-0-request-0", "init-con0", XI), ("container-1-request-0", "init-con1", IMPLICIT),
                             ("container-2-request-0", "con0", X)]


def test_zero_requests_ask_for_nothing() -> None:
    p = pod("p", [container("con0", requests={X: "0", X1: "1"})])
    assert pod_requests(as_pod(p)) == {X1: 1}
    reqs, _ = _build(p, [X, X1])
    assert reqs == [("container-0-request-1", "class1", 1)]


# ---------------------------------------------------------------- the split per node


def _reader(classes: list[dict] = CLASSES, version: str = "1.37") -> ExtendedReader:
    return ExtendedReader([as_class(c) for c in classes], Features.default(version), lambda k: None, lambda: [],
                          lambda k: None)


def test_a_pod_without_a_resource_any_class_serves_has_no_claim() -> None:
    d = _reader().demand(as_pod(pod("p", [container("c", limits={"example.com/other": 1})])))
    assert d is not None and not d.dra


def test_per_node_device_plugin_first_else_dra_else_no_fit() -> None:
    d = _reader().demand(as_pod(pod("p", [container("c", limits={X: 1, "example.com/other": 1})])))
    assert d is not None and list(d.classes) == [X]
    # the device plugin advertises X: it serves X there; "other" only by its plugin
    both = d.share(as_node(node("n", {X: "2", "example.com/other": "1"})), {})
    assert both.dra == [] and set(both.plugin) == {X, "example.com/other"} and both.refusal("n") is None
    # X at zero in allocatable and a class serves it: DRA
    zero = d.share(as_node(node("n", {X: "0", "example.com/other": "1"})), {})
    assert zero.dra == [X] and zero.refusal("n") is None
    # "other" nowhere: the pod does not fit the node
    none = d.share(as_node(node("n", {X: "2"})), {})
    assert none.missing == ["example.com/other"] and none.refusal("n") is not None
    # "other" advertised at zero and no class: the device plugin has none free
    empty = d.share(as_node(node("n", {"example.com/other": "0"})), {})
    assert empty.dra == [X] and "insufficient example.com/other" in (empty.refusal("n") or "")


def test_the_implicit_name_reaches_a_class_without_an_extended_resource_name() -> None:
    d = _reader([device_class("plain")]).demand(
        as_pod(pod("p", [container("c", limits={"deviceclass.resource.kubernetes.io/plain": 1})])))
    assert d is not None and d.classes["deviceclass.resource.kubernetes.io/plain"].name == "plain"
    assert d.share(as_node(node("n")), {}).dra == ["deviceclass.resource.kubernetes.io/plain"]


def test_the_newest_class_naming_a_resource_serves_it_in_the_claim() -> None:
    classes = [device_class("old", X, "2026-01-01T00:00:00Z"), device_class("new", X, "2026-06-01T00:00:00Z")]
    reqs, _ = _build(pod("p", [container("c", limits={X: 1})]), [X], classes)
    assert reqs == [("container-0-request-0", "new", 1)]
    same = [device_class("b", X, "2026-01-01T00:00:00Z"), device_class("a", X, "2026-01-01T00:00:00Z")]
    assert _build(pod("p", [container("c", limits={X: 1})]), [X], same)[0] == [("container-0-request-0", "a", 1)]
