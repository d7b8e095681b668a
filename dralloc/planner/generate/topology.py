"""Where a node's GPUs and NICs sit on PCIe, as drivers report it: root
complexes (``pci0000:<bus>``), each with some GPUs and NICs, and the NUMA node
of each root. Modelled on the EKS p4d capture in the shared datasets
(8 A100s and 4 EFA NICs: four roots, buses 10/20 on NUMA 0 and 90/a0 on NUMA 1,
GPUs at device 1c and 1d, the EFA at 1b, an ENA at 01 on all roots but the
first)."""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd

from dralloc.errors import InputError

GPU_DEVICE = 0x1C      # first GPU's PCI device number under a root
NIC_DEVICE = 0x1B      # first RDMA NIC's, counting down
ETH_DEVICE = 0x01      # the plain Ethernet interface's


@dataclass(frozen=True)
class Topology:
    roots: int
    gpus_per_root: int
    nics_per_root: int
    numa_nodes: int = 2

    def bus(self, root: int) -> int:
        half = (self.roots + 1) // 2
        return 0x10 * (root + 1) if root < half else 0x90 + 0x10 * (root - half)

    def root_name(self, root: int) -> str:
        return f"pci0000:{self.bus(root):02x}"

    def numa(self, root: int) -> int:
        return root * self.numa_nodes // self.roots

    def gpu_address(self, root: int, i: int) -> str:
        return f"0000:{self.bus(root):02x}:{GPU_DEVICE + i:02x}.0"

    def nic_address(self, root: int, i: int) -> str:
        return f"0000:{self.bus(root):02x}:{NIC_DEVICE - i:02x}.0"

    def eth_address(self, root: int) -> str:
        return f"0000:{self.bus(root):02x}:{ETH_DEVICE:02x}.0"


def topology(gpus: int, nics: int) -> Topology:
    """GPUs and NICs spread evenly over root complexes: as many roots as the
    counts' greatest common divisor (two GPUs per root without NICs)."""
    if gpus < 0 or nics < 0:
        raise InputError("generate: GPU and NIC counts must not be negative")
    if nics == 0:
        roots = max(1, gpus // 2) if gpus % 2 == 0 else max(1, gpus)
    else:
        roots = gcd(gpus, nics)
    if roots > 14:
        raise InputError(f"generate: {gpus} GPUs and {nics} NICs need {roots} PCIe roots; at most 14 are laid out")
    return Topology(roots, gpus // roots, nics // roots)
