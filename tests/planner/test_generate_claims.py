"""NVIDIA's own GPU and MIG test claims (the driver's bats suite, quickstart
demos and docs) and dranet's GPU+EFA templates allocate on generated nodes
the way they would on the hardware: MIG claims on MIG nodes (selecting by
profile, by ``multiprocessors`` and ``memory`` capacity, several MIG devices
on one ``parentUUID``), whole-GPU claims on whole-GPU nodes and on Hopper
nodes (whose full GPU the driver publishes next to its MIG devices) but not
on A100 nodes with MIG on, GPU and NIC on one PCIe root when asked. Every
answer passes the independent verifier. Files: tests/data/real (SOURCES.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dralloc.cluster import Cluster
from dralloc.features import DEFAULT_GATES, Features
from dralloc.io import load
from dralloc.io.loader import parse_object
from dralloc.planner.generate import clusters as gen
from dralloc.planner.generate.nodes import NodeType

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
NV = REAL / "nvidia-dra-driver-gpu"
BATS = NV / "tests" / "bats" / "specs"
DEMO = NV / "demo" / "specs" / "quickstart" / "v1"
DOCS = NV / "_from-docs"
EFA = REAL / "dranet" / "examples" / "aws_eks_examples" / "gpu-efa" / "resource-claim-template.yaml"
NODES = [(NodeType("mig"), 1), (NodeType("gpu", nics=4), 1), (NodeType("mig", "h100-80gb-sxm5", name="h100"), 1)]
MIG, WHOLE, HOPPER = "mig-0000", "gpu-0000", "h100-0000"


def _cluster(*files: Path, extra: list[dict[str, Any]] | None = None) -> Cluster:
    objs = gen.objects(gen.mixed_cluster(NODES, seed=4) + (extra or []))
    objs.extend(load(list(files)))   # Namespaces and Deployments in the files are skipped
    return Cluster(objs, features=Features.from_gates(DEFAULT_GATES))


def _pod(namespace: str, template: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"use-{template}", "namespace": namespace},
            "spec": {"resourceClaims": [{"name": "c", "resourceClaimTemplateName": template}],
                     "containers": [{"name": "main"}]}}


def _fits(cl: Cluster, pod: str) -> dict[str, list[str]]:
    """Node -> devices the pod's claims get there (nodes where they fit)."""
    out = {}
    for node, res in cl.fits(pod=pod, mode="first-fit"):
        assert res.verified, res
        out[node.name] = [f"{r.request}={r.device}" for a in res.allocations or []
                          for r in (a.devices.results if a.devices else None) or []]
    return out


@pytest.mark.parametrize("file,pod,nodes", [
    (BATS / "gpu-anymig.yaml", "default/pod-anymig", [MIG, HOPPER]),
    (BATS / "gpu-simple-mig.yaml", "default/pod-mig1g", [MIG, HOPPER]),
    (BATS / "gpu-simple-mig-ts.yaml", "default/pod-mig1g", [MIG, HOPPER]),
    (BATS / "gpu-multiple-mig.yaml", "default/pod-2mig", [MIG, HOPPER]),
    (BATS / "gpu-simple-full.yaml", "default/pod-full-gpu", [WHOLE, HOPPER]),
    (BATS / "gpu-two-claims-one-pod.yaml", "default/pod-two-claims", [WHOLE, HOPPER]),
    (DEMO / "gpu-test1.yaml", "gpu-test1/pod1", [WHOLE, HOPPER]),
    (DEMO / "gpu-test3.yaml", "gpu-test3/pod2", [WHOLE, HOPPER]),
    (DEMO / "gpu-test5.yaml", "gpu-test5/pod0", [WHOLE, HOPPER]),
    (BATS / "gpu-cel-nomatch.yaml", "default/pod-cel-nomatch", []),
])
def test_nvidia_test_claims_fit_where_the_hardware_would(file: Path, pod: str, nodes: list[str]) -> None:
    assert sorted(_fits(_cluster(file), pod)) == sorted(nodes)


def test_mig_capacity_selectors_pick_matching_profiles() -> None:
    got = _fits(_cluster(BATS / "gpu-simple-mig.yaml"), "default/pod-mig1g")[MIG]
    assert got == ["mig1g=gpu-0-mig-3g20gb-9-0"]       # > 10 SMs and > 10Gi: 3g.20gb is the first
    got = _fits(_cluster(BATS / "gpu-multiple-mig.yaml"), "default/pod-2mig")[MIG]
    # < 30 SMs: 1g.10gb first by name, on memory slices 0-1 of gpu-0; > 50 SMs: 4g.20gb needs
    # slices 0-3, taken there, so the search moves to gpu-1
    assert got == ["mig1=gpu-0-mig-1g10gb-15-0", "mig2=gpu-1-mig-4g20gb-5-0"]


@pytest.mark.parametrize("file,template,nodes", [
    (DOCS / "site_content_docs_guides_gpu-allocation_mig.L147.yaml", "any-mig", [HOPPER, MIG]),
    # 1g.5gb and 2g.10gb are A100-40GB profiles (an H100's smallest is 1g.10gb)
    (DOCS / "site_content_docs_guides_gpu-allocation_mig.L220.yaml", "mig-profile", [MIG]),
    (DOCS / "site_content_docs_guides_gpu-allocation_mig.L248.yaml", "multi-mig", [MIG]),
])
def test_mig_guide_templates_fit_mig_nodes(file: Path, template: str, nodes: list[str]) -> None:
    cl = _cluster(file, extra=[_pod("mig-example", template)])
    assert sorted(_fits(cl, f"mig-example/use-{template}")) == nodes


def test_four_mig_devices_share_one_parent_gpu() -> None:
    """quickstart gpu-test4: 2x 1g.5gb, 2g.10gb and 3g.20gb on one GPU
    (``matchAttribute: gpu.nvidia.com/parentUUID``): 8 of 8 memory slices."""
    cl = _cluster(DEMO / "gpu-test4.yaml", extra=[_pod("gpu-test4", "mig-devices")])
    got = _fits(cl, "gpu-test4/use-mig-devices")
    assert sorted(got) == [MIG]
    parents = {d.split("=")[1].split("-mig-")[0] for d in got[MIG]}
    assert len(got[MIG]) == 4 and parents == {"gpu-0"}


def test_gpu_and_efa_on_one_pcie_root() -> None:
    cl = _cluster(EFA, extra=[_pod("default", "gpu-efa-aligned"), _pod("default", "gpu-efa-unaligned")])
    assert sorted(_fits(cl, "default/use-gpu-efa-aligned")) == [WHOLE]
    out = cl.allocate(WHOLE, pod="default/use-gpu-efa-aligned", mode="first-fit")
    devices = {r.request: r.device for r in out.allocations[0].devices.results}   # type: ignore[index,union-attr]
    assert devices == {"gpu": "gpu-0", "efa": "pci-0000-10-1b-0"}
    taken = cl.commit(out, cl.pod_claims("default/use-gpu-efa-aligned"))
    assert taken
    # the next GPU on that root (gpu-1) has no EFA left there: the aligned claim moves to the next root
    second = parse_object(_pod("default", "gpu-efa-aligned") | {"metadata": {"name": "again", "namespace": "default"}})
    cl.add([second])  # type: ignore[list-item]
    again = cl.allocate(WHOLE, pod="default/again", mode="first-fit")
    devices = {r.request: r.device for r in again.allocations[0].devices.results}  # type: ignore[index,union-attr]
    assert devices == {"gpu": "gpu-2", "efa": "pci-0000-20-1b-0"}


def test_gpu_template_aligns_gpus_and_nics_on_a_root() -> None:
    """gen.gpu_template: two GPUs and one EFA on one PCIe root fit twice per
    4-GPU, 2-root node (the EKS layout halved); unaligned, the NICs are free."""
    docs = [gen.gpu_template("pair", gpus=2, nics=1), gen.gpu_template("loose", gpus=2, nics=1, aligned=False),
            gen.workload("pair", ["pair"], 1), gen.workload("loose", ["loose"], 1)]
    objs = gen.objects(gen.mixed_cluster([(NodeType("gpu", gpus=4, nics=2), 1)]) + docs)
    cl = Cluster(objs, features=Features.from_gates(DEFAULT_GATES))
    out = cl.allocate("gpu-0000", pod="default/pair")
    roots = {r.device for r in out.allocations[0].devices.results}   # type: ignore[index,union-attr]
    assert roots == {"gpu-0", "gpu-1", "pci-0000-10-1b-0"}
    assert cl.allocate("gpu-0000", pod="default/loose").ok
