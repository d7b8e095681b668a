"""Generated clusters shaped like what real drivers publish (``dralloc
generate``), as plain ``resource.k8s.io/v1`` data that :func:`dralloc.io.load`
reads; :func:`objects` turns it into models.

A cluster is a list of node types with counts (:class:`NodeType`): GPU nodes
under the NVIDIA driver's DynamicMIG (:mod:`.nvidia`), whole-GPU nodes, both
optionally with RDMA NICs as dranet publishes them (:mod:`.dranet`), and TPU
blocks (:mod:`.tpu`). Everything is deterministic for a seed (UUIDs, slice
name suffixes, addresses: :mod:`.ids`).

    from dralloc.planner.generate import clusters as gen
    docs = gen.mixed_cluster([(gen.NodeType("gpu", nics=4), 600), (gen.NodeType("mig"), 400)], seed=1)
    objs = gen.objects(docs)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from dralloc.errors import InputError
from dralloc.io import ObjectSet, parse_object, share
from dralloc.planner.generate import dranet, nvidia, tpu
from dralloc.planner.generate.demand import (  # noqa: F401  (the generator's public API)
    REPLICAS,
    claim_template,
    gpu_template,
    mig_demand,
    mig_template,
    split,
    workload,
)
from dralloc.planner.generate.ids import Ids
from dralloc.planner.generate.nodes import NodeFactory, NodeType
from dralloc.planner.generate.profiles import gpu_model  # noqa: F401

GPU_DRIVER = nvidia.DRIVER
NIC_DRIVER = dranet.DRIVER
Obj = dict[str, Any]


def device_classes(kinds: Iterable[str] = ("mig", "gpu")) -> list[Obj]:
    """The classes the drivers' charts install: NVIDIA's for GPU nodes,
    dranet's for NICs, the TPU class for TPU blocks."""
    wanted = set(kinds)
    out: list[Obj] = []
    if wanted & {"mig", "gpu"}:
        out += nvidia.device_classes() + dranet.device_classes()
    if "tpu" in wanted:
        out.append(tpu.tpu_class())
    return out


def _width(count: int) -> int:
    return max(4, len(str(max(count - 1, 0))))


def iter_cluster(types: Sequence[tuple[NodeType, int]], seed: int = 0,
                 software: nvidia.HostSoftware | None = None) -> Iterator[list[Obj]]:
    """The DeviceClasses, then one list of documents per node (per block of
    four hosts for TPUs), type after type. Node counts of TPU types must be
    multiples of four."""
    ids = Ids(seed)
    yield device_classes(t.kind for t, _ in types)
    for t, count in types:
        if count < 0:
            raise InputError("generate: node counts must not be negative")
        if t.kind == "tpu":
            if count % 4:
                raise InputError(f"generate: {count} TPU hosts: TPU blocks have four hosts; give a multiple of 4")
            width = max(2, len(str(max(count // 4 - 1, 0))))
            for b in range(count // 4):
                yield tpu.tpu_block(f"{t.prefix}-{b:0{width}d}")
            continue
        factory = NodeFactory(t, ids, software or nvidia.HostSoftware())
        width = _width(count)
        for i in range(count):
            yield factory.docs(f"{t.prefix}-{i:0{width}d}")


def mixed_cluster(types: Sequence[tuple[NodeType, int]], seed: int = 0) -> list[Obj]:
    """Every document of :func:`iter_cluster`, in one list."""
    return [d for group in iter_cluster(types, seed) for d in group]


def cluster(nodes: int, gpu: str = "a100-40gb", gpus: int = 8, nics: int = 0,
            profiles: Iterable[str] | None = None, prefix: str = "node", kind: str = "mig",
            seed: int = 0, full_gpu: bool | None = None) -> list[Obj]:
    """DeviceClasses plus ``nodes`` nodes of one type named ``<prefix>-0000``..."""
    t = NodeType(kind, gpu, gpus, nics, tuple(profiles) if profiles is not None else None, full_gpu, prefix)
    return mixed_cluster([(t, nodes)], seed)


def node_objects(name: str, gpu: str, gpus: int, nics: int = 0, profiles: Iterable[str] | None = None,
                 full_gpu: bool | None = None, labels: Mapping[str, str] | None = None,
                 kind: str = "mig", seed: int = 0) -> list[Obj]:
    """One node (a Node and its ResourceSlices)."""
    t = NodeType(kind, gpu, gpus, nics, tuple(profiles) if profiles is not None else None, full_gpu)
    docs = NodeFactory(t, Ids(seed)).docs(name)
    if labels is not None:
        docs[0]["metadata"]["labels"] = dict(labels)
    return docs


def objects(docs: Iterable[Obj]) -> ObjectSet:
    """Parse generated documents into an :class:`ObjectSet`."""
    out = ObjectSet()
    with share.sharing():   # nodes of one type share their devices' parts
        for i, d in enumerate(docs):
            obj = parse_object(d, f"generated#{i}")
            if obj is not None:
                out.add(obj)
    return out
