"""The MIG profile tables (``data/mig-profiles.yaml``, compiled from NVML
output and NVIDIA's published tables) as typed records for the generator,
with what the NVIDIA DRA driver derives from them
(kubernetes-sigs/dra-driver-nvidia-gpu, ``cmd/gpu-kubelet-plugin``):

* a MIG device's capacities: ``multiprocessors``, ``copyEngines``,
  ``decoders``, ``encoders``, ``jpegEngines``, ``ofaEngines`` and ``memory``
  (the profile's MiB in bytes), integers;
* the counter of a capacity: its name in DNS form (``copyEngines`` ->
  ``copy-engines``), plus one ``memory-slice-<i>`` counter of 1 per memory
  slice the placement occupies;
* a physical GPU's counter set and full-GPU capacity: each capacity's maximum
  over all profiles and placements;
* device names: ``gpu-<minor>`` and
  ``gpu-<minor>-mig-<profile without dots>-<profile id>-<placement start>``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from dralloc.errors import InputError
from dralloc.quantity import Quantity

DATA = Path(__file__).with_name("data") / "mig-profiles.yaml"

# (capacity the DRA driver publishes, field of the profile table)
CAPACITIES = (
    ("multiprocessors", "multiprocessors"), ("copyEngines", "copy_engines"),
    ("decoders", "decoders"), ("encoders", "encoders"), ("jpegEngines", "jpeg"),
    ("ofaEngines", "ofa"),
)
HOPPER_OR_LATER = ("Hopper", "Blackwell")   # toggle MIG mode without a GPU reset


def dns_name(capacity: str) -> str:
    """A capacity name as the driver names its counter (``copyEngines`` -> ``copy-engines``)."""
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", capacity)
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1-\2", s)
    return re.sub(r"[^a-z0-9-.]", "-", s.lower()).strip("-")


@dataclass(frozen=True)
class Profile:
    name: str
    compute_slices: int
    memory_slices: int
    starts: tuple[int, ...]
    memory_mib: int | None
    engines: dict[str, int | None]   # capacity name -> value (None: not known)
    profile_id: int | None = None    # NVML GPU-instance profile id (nvidia-smi's "ID")

    @property
    def label(self) -> str:
        """The profile as a DNS label (``1g.5gb+me`` -> ``1g-5gb-me``)."""
        return self.name.replace(".", "-").replace("+", "-")

    def capacities(self) -> dict[str, int]:
        """The capacities a MIG device of this profile publishes (unknown ones left out)."""
        out = {k: v for k, v in self.engines.items() if v is not None}
        if self.memory_mib is not None:
            out["memory"] = self.memory_mib * 2**20
        return out

    def device_name(self, minor: int, start: int, model: str = "") -> str:
        if self.profile_id is None:
            raise InputError(f"GPU {model}: the MIG table has no profile id for {self.name}, which the "
                             "driver's device names carry; generate whole GPUs for this model")
        pname = re.sub(r"[^a-z0-9-.]", "-", self.name.replace(".", "").lower()).strip("-")
        return f"gpu-{minor}-mig-{pname}-{self.profile_id}-{start}"


@dataclass(frozen=True)
class GpuModel:
    id: str
    product: str
    memory_slices: int
    compute_slices: int
    profiles: tuple[Profile, ...]
    architecture: str = ""
    compute_capability: str = ""     # "8.0"
    memory_bytes: int = 0            # what NVML reports as the GPU's total memory

    def profile(self, name: str) -> Profile:
        for p in self.profiles:
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self.profiles)
        raise InputError(f"GPU {self.id}: no MIG profile {name!r} (known: {known})")

    @property
    def resetless_mig(self) -> bool:
        """Whether MIG mode toggles without a reset (the driver then also
        publishes the full GPU next to the MIG devices)."""
        return self.architecture in HOPPER_OR_LATER

    def max_capacities(self) -> dict[str, int]:
        """Each capacity's maximum over the profiles (left out when a profile
        lacks the value): the full GPU's capacity and its counter set."""
        out: dict[str, int] = {}
        names = [c for c, _ in CAPACITIES] + ["memory"]
        for name in names:
            vals = [p.capacities().get(name) for p in self.profiles]
            if vals and all(v is not None for v in vals):
                out[name] = max(v for v in vals if v is not None)
        return out

    def counters(self) -> dict[str, int]:
        """The per-GPU counter set: the maximum capacities as counters plus
        one counter per memory slice."""
        out = {dns_name(k): v for k, v in self.max_capacities().items()}
        for i in range(self.memory_slices):
            out[f"memory-slice-{i}"] = 1
        return out

    def mig_counters(self, p: Profile, start: int) -> dict[str, int]:
        """What a MIG device of profile ``p`` at ``start`` consumes."""
        caps = self.counters()
        out = {dns_name(k): v for k, v in p.capacities().items() if dns_name(k) in caps}
        for i in range(start, start + p.memory_slices):
            out[f"memory-slice-{i}"] = 1
        return out


def quantity(n: int) -> str:
    """An integer as the driver writes it (``resource.NewQuantity(n, BinarySI)``)."""
    return _quantity(n)


@cache
def _quantity(n: int) -> str:
    return str(Quantity(Fraction(n), "BinarySI"))


def _profile(row: dict[str, Any]) -> Profile:
    mem = row.get("memory_mib")
    pid = row.get("nvidia_smi_profile_id")
    return Profile(
        name=str(row["name"]), compute_slices=int(row["compute_slices"]),
        memory_slices=int(row["memory_slices"]),
        starts=tuple(int(s) for s in row.get("placement_starts") or ()),
        memory_mib=int(mem) if mem is not None else None,
        engines={c: (int(row[f]) if row.get(f) is not None else None) for c, f in CAPACITIES},
        profile_id=int(pid) if pid is not None else None,
    )


def _memory(g: dict[str, Any]) -> int:
    """The full GPU's memory: as published where a real slice was seen, else
    the GB in the model's name (nominal)."""
    text = (g.get("full_gpu") or {}).get("memory_dra_capacity")
    if text:
        return int(Quantity.parse(str(text)).value)
    m = re.search(r"-(\d+)gb", g["id"])
    return int(m.group(1)) * 2**30 if m else 0


@cache
def gpu_models() -> dict[str, GpuModel]:
    raw = yaml.load(DATA.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506
    out = {}
    for g in raw["gpus"]:
        profiles = tuple(_profile(r) for r in g.get("profiles") or [] if r.get("placement_starts"))
        out[g["id"]] = GpuModel(g["id"], g["product_names"][0], int(g["memory_slices_total"]),
                                int(g["compute_slices_total"]), profiles, str(g.get("architecture") or ""),
                                str(g.get("cuda_compute_capability") or ""), _memory(g))
    return out


def gpu_model(name: str) -> GpuModel:
    models = gpu_models()
    if name not in models:
        raise InputError(f"unknown GPU model {name!r}; choose one of {', '.join(sorted(models))}")
    return models[name]
