"""Node types of a generated cluster and the objects one node publishes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dralloc.errors import InputError
from dralloc.planner.generate import dranet, nvidia
from dralloc.planner.generate.ids import Ids
from dralloc.planner.generate.profiles import gpu_model
from dralloc.planner.generate.topology import Topology, topology

KINDS = ("mig", "gpu", "tpu")
TYPE_LABEL = "dralloc.dev/node-type"
Obj = dict[str, Any]


@dataclass(frozen=True)
class NodeType:
    """One kind of node. ``kind``: ``mig`` (GPUs under DynamicMIG: MIG devices
    over shared counters), ``gpu`` (whole GPUs, MIG off) or ``tpu`` (a block of
    four TPU hosts, KEP-4815's multi-host example). GPU nodes carry ``gpus``
    GPUs of model ``gpu`` and ``nics`` RDMA NICs aligned with them on PCIe
    roots. ``profiles`` limits the MIG profiles published (the driver
    publishes all); ``full_gpu`` overrides whether the full GPU is published
    next to its MIG devices (default: as the driver does, Hopper and later).
    Nodes are named ``<name>-0000``... (default name: the kind)."""

    kind: str = "mig"
    gpu: str = "a100-40gb"
    gpus: int = 8
    nics: int = 0
    profiles: tuple[str, ...] | None = None
    full_gpu: bool | None = None
    name: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise InputError(f"generate: unknown node kind {self.kind!r}; choose one of {', '.join(KINDS)}")
        if self.gpus < 0 or self.nics < 0:
            raise InputError("generate: node, GPU and NIC counts must not be negative")
        if self.kind != "tpu":
            gpu_model(self.gpu)            # unknown models fail here, with the list of known ones
            topology(self.gpus, self.nics)

    @property
    def prefix(self) -> str:
        return self.name or self.kind

    @property
    def hosts(self) -> int:
        """Nodes per generated unit (a TPU block has four hosts)."""
        return 4 if self.kind == "tpu" else 1


@dataclass
class NodeFactory:
    """Builds the objects of nodes of one type; what does not depend on the
    node (MIG device maps, the PCIe layout) is computed once."""

    type: NodeType
    ids: Ids
    software: nvidia.HostSoftware = field(default_factory=nvidia.HostSoftware)

    def __post_init__(self) -> None:
        t = self.type
        self.model = gpu_model(t.gpu)
        self.topo: Topology = topology(t.gpus, t.nics)
        self.migs = nvidia.MigDevices(self.model, t.profiles) if t.kind == "mig" else None

    def node(self, name: str) -> Obj:
        labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", TYPE_LABEL: self.type.prefix,
                  "nvidia.com/gpu.product": self.model.product.replace(" ", "-"),
                  "nvidia.com/gpu.count": str(self.type.gpus),
                  "nvidia.com/mig.capable": "true" if self.model.profiles else "false"}
        return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}}

    def docs(self, name: str) -> list[Obj]:
        """The Node and its ResourceSlices (GPUs, then NICs)."""
        gpus = nvidia.places(name, self.type.gpus, self.topo, self.ids)
        if self.migs is not None:
            slices = nvidia.dynamic_mig_slices(name, self.migs, gpus, self.software, self.ids, self.type.full_gpu)
        else:
            slices = nvidia.whole_gpu_slices(name, self.model, gpus, self.software, self.ids)
        return [self.node(name), *slices, *dranet.nic_slices(name, self.topo, self.ids)]
