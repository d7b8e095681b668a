"""NICs as dranet (kubernetes-sigs/dranet, driver ``dra.net``) publishes them,
modelled on the EKS capture in the shared datasets (8x A100 + EFA): per PCIe
root one or more RDMA NICs (EFA) and, on every root but the first, the plain
Ethernet interface (ENA; the first root's carries the node's primary address,
which dranet leaves out). Devices are named after their PCI address
(``pci-0000-10-1b-0``) and carry ``resource.kubernetes.io/pcieRoot``, the
attribute the GPU driver publishes too, so a claim can align a GPU and a NIC
with ``matchAttribute: resource.kubernetes.io/pcieRoot``. One slice per node,
its pool named after the node."""

from __future__ import annotations

from typing import Any

from dralloc.planner.generate.ids import Ids
from dralloc.planner.generate.topology import Topology

DRIVER = "dra.net"
RDMA_CLASS = "efa.networking.k8s.aws"
NET_CLASS = "dranet.net"
SUBNET = "192.168.128.0/19"
VENDOR = "Amazon.com, Inc."
Obj = dict[str, Any]


def _name(address: str) -> str:
    return "pci-" + address.replace(":", "-").replace(".", "-")


def _base(address: str, root: str, numa: int) -> Obj:
    return {f"{DRIVER}/numaNode": {"int": numa}, f"{DRIVER}/pciAddress": {"string": address},
            f"{DRIVER}/pciVendor": {"string": VENDOR}, "resource.kubernetes.io/pcieRoot": {"string": root}}


def rdma_nic(topo: Topology, root: int, i: int) -> Obj:
    addr = topo.nic_address(root, i)
    bus, dev = int(addr[5:7], 16), int(addr[8:10], 16)
    attrs = {**_base(addr, topo.root_name(root), topo.numa(root)),
             f"{DRIVER}/pciDevice": {"string": "Elastic Fabric Adapter (EFA)"},
             f"{DRIVER}/pciSubsystem": {"string": "efa0"}, f"{DRIVER}/rdma": {"bool": True},
             f"{DRIVER}/rdmaDevice": {"string": f"rdmap{bus}s{dev}"}}
    return {"name": _name(addr), "attributes": dict(sorted(attrs.items()))}


def ethernet(topo: Topology, root: int, node: str, ids: Ids) -> Obj:
    addr = topo.eth_address(root)
    attrs = {**_base(addr, topo.root_name(root), topo.numa(root)),
             f"{DRIVER}/alias": {"string": ""}, f"{DRIVER}/ebpf": {"bool": False},
             f"{DRIVER}/encapsulation": {"string": "ether"}, f"{DRIVER}/ifName": {"string": f"ens{topo.bus(root) + 1}"},
             f"{DRIVER}/ipv4": {"string": ids.ipv4(SUBNET, node, addr)}, f"{DRIVER}/mac": {"string": ids.mac(node, addr)},
             f"{DRIVER}/mtu": {"int": 9001}, f"{DRIVER}/pciDevice": {"string": "Elastic Network Adapter (ENA)"},
             f"{DRIVER}/pciSubsystem": {"string": "ec20"}, f"{DRIVER}/rdma": {"bool": False},
             f"{DRIVER}/sriov": {"bool": False}, f"{DRIVER}/state": {"string": "up"},
             f"{DRIVER}/type": {"string": "device"}, f"{DRIVER}/virtual": {"bool": False}}
    return {"name": _name(addr), "attributes": dict(sorted(attrs.items()))}


def nic_slices(node: str, topo: Topology, ids: Ids) -> list[Obj]:
    """The node's dranet slice (none when the node has no RDMA NIC)."""
    if topo.nics_per_root == 0:
        return []
    devices: list[Obj] = []
    for r in range(topo.roots):
        if r > 0:
            devices.append(ethernet(topo, r, node, ids))
        devices.extend(rdma_nic(topo, r, i) for i in range(topo.nics_per_root))
    devices.sort(key=lambda d: d["name"])
    (suffix,) = ids.suffixes(1, node, DRIVER)
    return [{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
             "metadata": {"name": f"{node}-{DRIVER}-{suffix}", "generateName": f"{node}-{DRIVER}-"},
             "spec": {"driver": DRIVER, "nodeName": node,
                      "pool": {"name": node, "generation": 1, "resourceSliceCount": 1}, "devices": devices}}]


def device_classes() -> list[Obj]:
    """The aws-dranet chart's EFA class, and one for every dranet device."""
    efa = (f'device.driver == "{DRIVER}" && '
           f"device.attributes[\"{DRIVER}\"].pciDevice == 'Elastic Fabric Adapter (EFA)'")
    return [{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
             "spec": {"selectors": [{"cel": {"expression": expr}}]}}
            for name, expr in ((RDMA_CLASS, efa), (NET_CLASS, f'device.driver == "{DRIVER}"'))]
