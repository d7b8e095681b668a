"""The k8srm prototype's example pods on its example pools: each allocates,
or the translation says why it cannot (asserted per file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dralloc.formats import FEATURES, load_any, translate
from dralloc.formats.k8srm import pod_claims
from dralloc.formats.k8srm_claims import translate_cel
from dralloc.solver import allocate

DATA = Path(__file__).parent / "data" / "k8srm"
POOLS = sorted(str(p) for p in DATA.glob("pools-*.yaml")) + [str(DATA / "classes.yaml")]

# file -> node and "claim: request=pool/device ..." per pod, or the reason it cannot allocate.
ALLOCATES = {
    "pod-multi-net-0.yaml": ["netdev0=node-00-nic0/pf-0-vf-0"],
    "pod-multi-net-1.yaml": ["netdev0=node-00-nic0/pf-0-vf-0", "netdev1=node-00-nic0/pf-0-vf-1",
                             "netdev2=node-00-nic0/pf-1"],
    "pod-multi-net-2.yaml": ["netdevs=node-00-nic0/pf-0-vf-0", "netdevs=node-00-nic0/pf-0-vf-1"],
    "pod-multi-net-3.yaml": ["netdevs=node-00-nic0/pf-0-vf-0", "netdevs=node-00-nic0/pf-0-vf-1"],
    "pod-multi-net-4.yaml": ["netdevs=node-00-nic0/pf-0-vf-0", "netdevs=node-00-nic0/pf-0-vf-1"],
    "pod-multi-net-5.yaml": ["netdevs=node-001-nic-001/pf-0-vf-0"],
    "pod-multi-net-6.yaml": ["ip-networks-0=node-00-nic0/pf-0", "ip-networks-1=node-00-nic0/pf-1",
                             "ip-networks-2=node-00-nic1/pf-0"],
    "pod-multi-net-7.yaml": ["netdevs=node-00-nic0/pf-0", "netdevs=node-00-nic0/pf-1",
                             "netdevs=node-00-nic1/pf-0", "netdevs=node-00-nic1/pf-1"],
    "pod-one-container-one-gpu.yaml": ["foozer-gpu=node-00-foozer/dev-00"],
    "pod-one-container-two-gpus-0.yaml": ["foozer-gpus=node-00-foozer/dev-00", "foozer-gpus=node-00-foozer/dev-01"],
    "pod-one-container-two-gpus-1.yaml": ["foozer-gpus=node-00-foozer/dev-00", "foozer-gpus=node-00-foozer/dev-01"],
    "pod-two-containers-one-gpu.yaml": ["foozer-gpu=node-00-foozer/dev-00"],
    "pod-two-containers-two-gpus-0.yaml": ["foozer-gpu=node-00-foozer/dev-00",
                                           "other-foozer-gpu=node-00-foozer/dev-01"],
    "pod-two-containers-two-gpus-1.yaml": ["foozer-gpu=node-00-foozer/dev-00",
                                           "other-foozer-gpu=node-00-foozer/dev-01"],
    "two-pods-one-gpu-0.yaml": ["foozer-gpu=node-00-foozer/dev-00"],
    "two-pods-one-gpu-1.yaml": ["foozer-gpu=node-00-foozer/dev-00"],
}
CANNOT_ALLOCATE = {
    "pod-multi-net-8.yaml": "distinctAttributes hwdevname: 4 devices need distinct values, the given pools have only 2",
    "pod-one-container-gpu-priority-list-one-vf.yaml": "matchAttributes pcie_root: no device",
    "pod-one-container-gpu-priority-list.yaml": "matchAttributes pcie_root: no device",
    "pod-one-container-one-gpu-one-vf.yaml": "matchAttributes pcie_root: no device",
    "pod-one-container-two-gpus-2.yaml": "matchAttributes pcie_root: no device",
    "pod-two-containers-two-gpus-2.yaml": "matchAttributes pcie_root: no device",
}
NOT_TRANSLATED = {
    "pod-one-container-partial-gpu.yaml": "allowShared",
    "pod-one-container-shared-split-allocation-gpus.yaml": "maxDevices",
    "pod-one-container-split-allocation-gpus.yaml": "maxDevices",
}


def test_every_example_pod_is_covered() -> None:
    files = {p.name for p in DATA.glob("*pod*.yaml")}
    assert files == set(ALLOCATES) | set(CANNOT_ALLOCATE) | set(NOT_TRANSLATED)


def _results(objs: object, pod: object) -> list[str] | None:
    claims = pod_claims(pod, objs.templates, objs.claims)  # type: ignore[attr-defined]
    for node in ("node-00", "node-01"):
        out = allocate(objs, node, claims, features=list(FEATURES))  # type: ignore[arg-type]
        if out.ok and out.allocations is not None:
            return [f"{r.request}={r.pool}/{r.device}" for a in out.allocations
                    for r in (a.devices.results if a.devices else None) or []]
    return None


@pytest.mark.parametrize("name", sorted(ALLOCATES))
def test_example_pod_allocates(name: str) -> None:
    objs, tr = load_any([*POOLS, str(DATA / name)])
    assert not objs.errors and objs.pods
    assert not tr.cannot_allocate
    for pod in objs.pods:
        assert _results(objs, pod) == ALLOCATES[name]


@pytest.mark.parametrize("name", sorted(CANNOT_ALLOCATE))
def test_example_pod_cannot_allocate_and_says_why(name: str) -> None:
    objs, tr = load_any([*POOLS, str(DATA / name)])
    assert not objs.errors
    (why,) = tr.cannot_allocate.values()
    assert CANNOT_ALLOCATE[name] in why
    (pod,) = objs.pods
    assert _results(objs, pod) is None


@pytest.mark.parametrize("name", sorted(NOT_TRANSLATED))
def test_example_pod_without_v1_equivalent_is_explained(name: str) -> None:
    objs, tr = load_any([*POOLS, str(DATA / name)])
    assert not objs.errors and not objs.pods
    claim = next(v for k, v in tr.explanations.items() if k.startswith("DeviceClaim"))
    assert NOT_TRANSLATED[name] in claim
    assert any(k.startswith("Pod") for k in tr.explanations)


def test_dgx_pool_repairs_zero_padded_shared_resource_names() -> None:
    objs, tr = load_any([str(DATA / "pools-two-nodes-one-dgxa100.yaml")])
    assert not objs.errors
    assert any("'memory-slices-00'" in n and "'memory-slices-0'" in n for n in tr.notes)
    assert {s.spec.pool.name for s in objs.slices} == {"nvidia-00-dgxa100", "nvidia-01-dgxa100"}


def test_meta_class_is_the_union_of_its_leaf_classes() -> None:
    objs, tr = load_any([str(DATA / "classes.yaml")])
    cls = {c.name: c for c in objs.classes}
    expr = cls["sriov-nic"].spec.selectors[0].cel.expression  # type: ignore[index,union-attr]
    assert '"example.com-sriov"' in expr and '"example.org-sriov"' in expr and "foozer" not in expr
    assert "vlan-2000" not in cls and "DeviceClass vlan-2000" in tr.explanations


def test_prototype_cel_reads_the_shared_attribute_domain() -> None:
    assert translate_cel("device.model == 'x' && device.pcie_root == '1'") == (
        'device.attributes["devmgmtproto.k8s.io"].model == \'x\' && '
        'device.attributes["devmgmtproto.k8s.io"].pcie_root == \'1\'')


def test_bad_pool_names_field() -> None:
    doc = {"apiVersion": "devmgmtproto.k8s.io/v1alpha1", "kind": "DevicePool", "metadata": {"name": "p"},
           "spec": {"driver": "d.example.com", "devices": [{"name": "a", "sharedResourcesConsumed": {"x": 1}}]}}
    with pytest.raises(Exception) as err:
        translate([doc])
    assert "spec.devices[0].sharedResourcesConsumed[x]" in str(err.value)
    assert "DevicePool p" in str(err.value)
