"""ResourceSlices as the NVIDIA GPU DRA driver publishes them
(kubernetes-sigs/dra-driver-nvidia-gpu, ``cmd/gpu-kubelet-plugin``: driver.go,
partitions.go, mig.go, deviceinfo.go), one pool per node named after it.

* **Whole GPUs** (MIG off; the driver's classic path): one slice with every
  GPU, each with ``capacity.memory`` (the GPU's total) and no counters.
* **DynamicMIG** (KEP-4815 partitionable devices, Kubernetes >= 1.35 layout):
  one slice holding the counter sets of all GPUs (``gpu-<minor>-counter-set``)
  and one slice per GPU with its devices sorted by name: every MIG profile at
  every placement (``gpu-<minor>-mig-<profile>-<id>-<start>``, capacities and
  counter consumption from the profile) and, on GPUs that toggle MIG mode
  without a reset (Hopper and later), the full GPU consuming all counters.
  On Ampere with MIG mode on the full GPU is not published.

Attributes of a GPU: ``type``, ``uuid``, ``productName``, ``brand``,
``architecture``, ``cudaComputeCapability``, ``driverVersion``,
``cudaDriverVersion`` (versions), ``addressingMode`` (when the platform has
one), ``resource.kubernetes.io/pciBusID``, ``resource.kubernetes.io/pcieRoot``
and ``resource.kubernetes.io/numaNode``. A MIG device has the same but
``parentUUID`` for ``uuid`` and its ``profile``. Slices get the names the API
server gives ``generateName: <node>-gpu.nvidia.com-``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from dralloc.planner.generate.ids import Ids
from dralloc.planner.generate.profiles import GpuModel, Profile, quantity
from dralloc.planner.generate.topology import Topology

DRIVER = "gpu.nvidia.com"
STANDARD = "resource.kubernetes.io"
Obj = dict[str, Any]


@dataclass(frozen=True)
class HostSoftware:
    """What NVML reports for the host rather than the GPU."""

    driver_version: str = "580.126.9"
    cuda_driver_version: str = "13.0.0"
    addressing_mode: str | None = "HMM"


@dataclass(frozen=True)
class GpuPlace:
    minor: int
    uuid: str
    bus_id: str
    root: str
    numa: int


def places(node: str, gpus: int, topo: Topology, ids: Ids) -> list[GpuPlace]:
    """The node's GPUs in PCI order (minor numbers follow it)."""
    out: list[GpuPlace] = []
    for r in range(topo.roots):
        for j in range(topo.gpus_per_root):
            minor = len(out)
            out.append(GpuPlace(minor, ids.uuid("GPU", node, minor), topo.gpu_address(r, j),
                                topo.root_name(r), topo.numa(r)))
    return out[:gpus]


def _version(v: str) -> str:
    parts = (v.split(".") + ["0", "0"])[:3]
    return ".".join(str(int(p)) for p in parts)


def _common(model: GpuModel, place: GpuPlace, sw: HostSoftware) -> Obj:
    attrs: Obj = {
        "productName": {"string": model.product}, "brand": {"string": "Nvidia"},
        "architecture": {"string": model.architecture},
        "cudaComputeCapability": {"version": _version(model.compute_capability)},
        "driverVersion": {"version": _version(sw.driver_version)},
        "cudaDriverVersion": {"version": _version(sw.cuda_driver_version)},
        f"{STANDARD}/pciBusID": {"string": place.bus_id}, f"{STANDARD}/pcieRoot": {"string": place.root},
        f"{STANDARD}/numaNode": {"int": place.numa},
    }
    if sw.addressing_mode:
        attrs["addressingMode"] = {"string": sw.addressing_mode}
    return attrs


def _sorted(m: Obj) -> Obj:
    """Map keys in the order the API server writes them."""
    return dict(sorted(m.items()))


def _capacity(values: dict[str, int]) -> Obj:
    return {k: {"value": quantity(v)} for k, v in sorted(values.items())}


def _counters(values: dict[str, int]) -> Obj:
    return {k: {"value": quantity(v)} for k, v in sorted(values.items())}


def gpu_device(model: GpuModel, place: GpuPlace, sw: HostSoftware, partitioned: bool) -> Obj:
    """The full GPU: with its counter consumption when partitioned (DynamicMIG)."""
    attrs = _sorted({"type": {"string": "gpu"}, "uuid": {"string": place.uuid}, **_common(model, place, sw)})
    if not partitioned:
        return {"name": f"gpu-{place.minor}", "attributes": attrs, "capacity": _capacity({"memory": model.memory_bytes})}
    return {"name": f"gpu-{place.minor}", "attributes": attrs, "capacity": _capacity(model.max_capacities()),
            "consumesCounters": [{"counterSet": counter_set(place), "counters": _counters(model.counters())}]}


def counter_set(place: GpuPlace) -> str:
    return f"gpu-{place.minor}-counter-set"


class MigDevices:
    """MIG devices of one model, sharing the capacity and consumption maps
    that do not depend on the GPU (they are written once per file)."""

    def __init__(self, model: GpuModel, profiles: Iterable[str] | None = None) -> None:
        self.model = model
        wanted = set(profiles) if profiles is not None else None
        self.profiles = [p for p in model.profiles if wanted is None or p.name in wanted]
        self._caps = {p.name: _capacity(p.capacities()) for p in self.profiles}
        self._use = {(p.name, s): _counters(model.mig_counters(p, s)) for p in self.profiles for s in p.starts}

    def for_gpu(self, place: GpuPlace, sw: HostSoftware) -> list[Obj]:
        common = _common(self.model, place, sw)
        cs = counter_set(place)
        out = []
        for p in self.profiles:
            attrs = _sorted({"type": {"string": "mig"}, "parentUUID": {"string": place.uuid},
                             "profile": {"string": p.name}, **common})
            for s in p.starts:
                out.append({"name": p.device_name(place.minor, s, self.model.id), "attributes": attrs,
                            "capacity": self._caps[p.name],
                            "consumesCounters": [{"counterSet": cs, "counters": self._use[(p.name, s)]}]})
        return out

    def profile(self, name: str) -> Profile:
        return self.model.profile(name)


def _slice(node: str, name: str, pool_slices: int, body: Obj) -> Obj:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": name, "generateName": f"{node}-{DRIVER}-"},
            "spec": {"driver": DRIVER, "nodeName": node,
                     "pool": {"name": node, "generation": 1, "resourceSliceCount": pool_slices}, **body}}


def whole_gpu_slices(node: str, model: GpuModel, gpus: Sequence[GpuPlace], sw: HostSoftware, ids: Ids) -> list[Obj]:
    """MIG off: every GPU in one slice."""
    if not gpus:
        return []
    devices = [gpu_device(model, g, sw, partitioned=False) for g in gpus]
    (suffix,) = ids.suffixes(1, node, DRIVER)
    return [_slice(node, f"{node}-{DRIVER}-{suffix}", 1, {"devices": devices})]


def dynamic_mig_slices(node: str, migs: MigDevices, gpus: Sequence[GpuPlace], sw: HostSoftware, ids: Ids,
                       full_gpu: bool | None = None) -> list[Obj]:
    """DynamicMIG: the counter-set slice, then one device slice per GPU.
    ``full_gpu`` None: as the driver decides (Hopper and later only)."""
    if not gpus:
        return []
    model = migs.model
    with_full = model.resetless_mig if full_gpu is None else full_gpu
    names = [f"{node}-{DRIVER}-{s}" for s in ids.suffixes(len(gpus) + 1, node, DRIVER)]
    sets = [{"name": counter_set(g), "counters": _counters(model.counters())} for g in gpus]
    out = [_slice(node, names[0], len(gpus) + 1, {"sharedCounters": sets})]
    for g, name in zip(gpus, names[1:], strict=True):
        devices = migs.for_gpu(g, sw)
        if with_full:
            devices.append(gpu_device(model, g, sw, partitioned=True))
        devices.sort(key=lambda d: d["name"])
        out.append(_slice(node, name, len(gpus) + 1, {"devices": devices}))
    return out


def device_classes() -> list[Obj]:
    """The driver's Helm chart classes (gpu.nvidia.com with its extended resource)."""
    def cls(name: str, kind: str, extended: str | None = None) -> Obj:
        spec: Obj = {"selectors": [{"cel": {"expression": f"device.driver == '{DRIVER}' && "
                                                         f"device.attributes['{DRIVER}'].type == '{kind}'"}}]}
        if extended:
            spec["extendedResourceName"] = extended
        return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec}
    return [cls("gpu.nvidia.com", "gpu", "nvidia.com/gpu"), cls("mig.nvidia.com", "mig")]
