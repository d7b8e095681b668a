"""The KEP-4815 examples under examples/kep, with the answers the KEP
describes: partitions share a counter set, so allocating one device makes
the overlapping ones unallocatable; multi-host devices carry their own node
selection into the allocation's nodeSelector. Every answer is checked in
replay mode (Kubernetes' search) and in first-fit (CP-SAT)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dralloc.features import DEFAULT_GATES
from dralloc.io import ObjectSet, load
from dralloc.io.loader import parse_object
from dralloc.models import AllocationResult, Node, ObjectMeta, ResourceClaim
from dralloc.solver.api import allocate
from dralloc.solver.outcome import Status

KEP = Path(__file__).resolve().parents[2] / "examples" / "kep"
MODES = ("replay", "first-fit")


def _objects(name: str) -> ObjectSet:
    objs = load([KEP / name])
    assert not objs.errors, objs.errors
    return objs


def _claim(name: str, cls: str, expr: str | None = None, count: int = 1) -> ResourceClaim:
    exactly: dict[str, Any] = {"deviceClassName": cls, "count": count}
    if expr:
        exactly["selectors"] = [{"cel": {"expression": expr}}]
    obj = parse_object({
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "req", "exactly": exactly}]}},
    })  # the loader's way: API defaults applied (allocationMode ExactCount)
    assert isinstance(obj, ResourceClaim)
    return obj


def _allocated(claim: ResourceClaim, alloc: AllocationResult) -> ResourceClaim:
    return ResourceClaim.model_validate({**claim.dump(), "status": {"allocation": alloc.dump()}})


def _devices(alloc: AllocationResult) -> list[str]:
    assert alloc.devices is not None and alloc.devices.results
    return [r.device for r in alloc.devices.results]


class Run:
    """Allocate claim after claim on one file, as the scheduler does pod by pod."""

    def __init__(self, name: str, mode: str) -> None:
        self.objs = _objects(name)
        self.mode = mode
        self.done: list[ResourceClaim] = []

    def __call__(self, node: Node | str, *claims: ResourceClaim, keep: bool = True) -> list[AllocationResult] | None:
        out = allocate(self.objs, node, list(claims), allocated=self.done, features=DEFAULT_GATES,
                       mode=self.mode)
        assert out.status is not Status.ERROR, out.error
        if out.status is Status.UNSATISFIABLE:
            return None
        assert out.allocations is not None
        if keep:
            self.done += [_allocated(c, a) for c, a in zip(claims, out.allocations, strict=True)]
        return out.allocations


# ------------------------------------------------------- 4 partitions of one GPU
GPU = "gpu.example.com"
MEM = 'device.capacity["resource-driver.example.com"].memory == quantity("{}")'


@pytest.mark.parametrize("mode", MODES)
def test_gpu_partitions_file_answer(mode: str) -> None:
    objs = _objects("4815-gpu-partitions.yaml")
    out = allocate(objs, None if len(objs.nodes) != 1 else objs.nodes[0], objs.claims,
                   features=DEFAULT_GATES, mode=mode)
    assert out.ok and out.allocations is not None
    assert [_devices(a) for a in out.allocations] == [["gpu-0-partition-0"], ["gpu-0-partition-1"]]
    sel = out.allocations[0].dump()["nodeSelector"]["nodeSelectorTerms"][0]["matchFields"]
    assert sel == [{"key": "metadata.name", "operator": "In", "values": ["my-node"]}]


@pytest.mark.parametrize("mode", MODES)
def test_gpu_partitions_exclude_the_whole_gpu(mode: str) -> None:
    run = Run("4815-gpu-partitions.yaml", mode)
    got = run("my-node", _claim("p", GPU, MEM.format("10Gi"), count=3))
    assert got is not None and _devices(got[0]) == [f"gpu-0-partition-{i}" for i in range(3)]
    assert run("my-node", _claim("whole", GPU, MEM.format("40Gi")), keep=False) is None
    assert run("my-node", _claim("two-more", GPU, MEM.format("10Gi"), count=2), keep=False) is None
    last = run("my-node", _claim("last", GPU, MEM.format("10Gi")))
    assert last is not None and _devices(last[0]) == ["gpu-0-partition-3"]
    assert run("my-node", _claim("any", GPU), keep=False) is None   # 40Gi of 40Gi in use


@pytest.mark.parametrize("mode", MODES)
def test_gpu_first_fit_takes_the_largest_when_listed_first(mode: str) -> None:
    # The KEP's warning: devices are tried in order, so a claim that any
    # device satisfies gets the whole GPU, and every partition is gone.
    run = Run("4815-gpu-partitions.yaml", mode)
    got = run("my-node", _claim("any", GPU))
    assert got is not None and _devices(got[0]) == ["gpu-0"]
    assert run("my-node", _claim("p", GPU, MEM.format("10Gi")), keep=False) is None


# ------------------------------------------------------- MIG on an A100
MIG = "mig.nvidia.com"
PROFILE = 'device.attributes["gpu.nvidia.com"].profile == "{}"'


@pytest.mark.parametrize("mode", MODES)
def test_mig_2g_excludes_both_1g(mode: str) -> None:
    run = Run("4815-mig-a100.yaml", mode)
    file_claim = run.objs.claims[0]
    got = run("dgx-a100", file_claim)
    assert got is not None and _devices(got[0]) == ["gpu-0-mig-2g-10gb-0-1"]
    assert run("dgx-a100", _claim("small", MIG, PROFILE.format("1g.5gb")), keep=False) is None


@pytest.mark.parametrize("mode", MODES)
def test_mig_1g_pair_then_no_2g(mode: str) -> None:
    run = Run("4815-mig-a100.yaml", mode)
    one = run("dgx-a100", _claim("a", MIG, PROFILE.format("1g.5gb")))
    assert one is not None and _devices(one[0]) == ["gpu-0-mig-1g-5gb-0"]
    # Memory slice 0 is taken: the 2g.10gb instance (slices 0-1) cannot be made.
    assert run("dgx-a100", _claim("big", MIG, PROFILE.format("2g.10gb")), keep=False) is None
    two = run("dgx-a100", _claim("b", MIG, PROFILE.format("1g.5gb")))
    assert two is not None and _devices(two[0]) == ["gpu-0-mig-1g-5gb-1"]
    assert run("dgx-a100", _claim("c", MIG, PROFILE.format("1g.5gb")), keep=False) is None


# ------------------------------------------------------- 4x4 multi-host TPU
TPU = "tpu.example.com"
TPUS = 'device.capacity["tpu.dra.example.com"].tpus == quantity("{}")'
HOSTS = ["node-1", "node-2", "node-5", "node-6"]


def _hostnames(alloc: AllocationResult) -> list[str]:
    term = alloc.dump()["nodeSelector"]["nodeSelectorTerms"]
    assert len(term) == 1
    (expr,) = term[0]["matchExpressions"]
    assert (expr["key"], expr["operator"]) == ("kubernetes.io/hostname", "In")
    return list(expr["values"])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("node", HOSTS)
def test_tpu_4x4_from_any_of_its_nodes(mode: str, node: str) -> None:
    run = Run("4815-tpu-multihost.yaml", mode)
    got = run(node, run.objs.claims[0])
    assert got is not None and _devices(got[0]) == ["tpu-4x4-1"]
    assert _hostnames(got[0]) == HOSTS   # the device's selector, not just the node


@pytest.mark.parametrize("mode", MODES)
def test_tpu_partitions_and_their_node_selectors(mode: str) -> None:
    run = Run("4815-tpu-multihost.yaml", mode)
    other = Node(metadata=ObjectMeta(name="node-3", labels={"kubernetes.io/hostname": "node-3"}))
    assert run(other, run.objs.claims[0], keep=False) is None   # a node outside the file: not one of its nodes
    small = run("node-2", _claim("2x2", TPU, TPUS.format(4)))
    assert small is not None and _devices(small[0]) == ["tpu-2x2-2"]
    fields = small[0].dump()["nodeSelector"]["nodeSelectorTerms"][0]["matchFields"]
    assert fields == [{"key": "metadata.name", "operator": "In", "values": ["node-2"]}]
    # node-2's TPUs are in use: neither the 4x4 nor the 2x4 over node-1/node-2 fit.
    assert run("node-1", run.objs.claims[0], keep=False) is None
    assert run("node-1", _claim("2x4-a", TPU, TPUS.format(8)), keep=False) is None
    mid = run("node-5", _claim("2x4-b", TPU, TPUS.format(8)))
    assert mid is not None and _devices(mid[0]) == ["tpu-2x4-2"]
    assert _hostnames(mid[0]) == ["node-5", "node-6"]
    last = run("node-1", _claim("2x2-b", TPU, TPUS.format(4)))
    assert last is not None and _devices(last[0]) == ["tpu-2x2-1"]
    assert run("node-1", _claim("2x2-c", TPU, TPUS.format(4)), keep=False) is None
