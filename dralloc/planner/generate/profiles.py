"""The MIG profile tables (``data/mig-profiles.yaml``, compiled from NVML
output and NVIDIA's published tables) as typed records for the generator."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from dralloc.errors import InputError

DATA = Path(__file__).with_name("data") / "mig-profiles.yaml"

# (counter name as the DRA driver publishes it, field of the profile table)
ENGINE_COUNTERS = (
    ("multiprocessors", "multiprocessors"), ("copy-engines", "copy_engines"),
    ("decoders", "decoders"), ("encoders", "encoders"), ("jpeg-engines", "jpeg"),
    ("ofa-engines", "ofa"),
)


@dataclass(frozen=True)
class Profile:
    name: str
    compute_slices: int
    memory_slices: int
    starts: tuple[int, ...]
    memory_mib: int | None
    engines: dict[str, int | None]   # DRA counter name -> value (None: not known)

    @property
    def label(self) -> str:
        """The profile as a DNS label (``1g.5gb+me`` -> ``1g-5gb-me``)."""
        return self.name.replace(".", "-").replace("+", "-")


@dataclass(frozen=True)
class GpuModel:
    id: str
    product: str
    memory_slices: int
    compute_slices: int
    profiles: tuple[Profile, ...]

    def profile(self, name: str) -> Profile:
        for p in self.profiles:
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self.profiles)
        raise InputError(f"GPU {self.id}: no MIG profile {name!r} (known: {known})")

    def counters(self) -> dict[str, int]:
        """The per-GPU counter set: each engine counter and memory at the
        maximum over the profiles (omitted when any profile lacks the value),
        plus one counter per memory slice."""
        out: dict[str, int] = {}
        for counter, _ in ENGINE_COUNTERS:
            vals = [p.engines[counter] for p in self.profiles]
            if all(v is not None for v in vals):
                out[counter] = max(v for v in vals if v is not None)
        mems = [p.memory_mib for p in self.profiles]
        if all(m is not None for m in mems):
            out["memory"] = max(m for m in mems if m is not None) * 2**20
        for i in range(self.memory_slices):
            out[f"memory-slice-{i}"] = 1
        return out


def _profile(row: dict[str, Any]) -> Profile:
    mem = row.get("memory_mib")
    return Profile(
        name=str(row["name"]), compute_slices=int(row["compute_slices"]),
        memory_slices=int(row["memory_slices"]),
        starts=tuple(int(s) for s in row.get("placement_starts") or ()),
        memory_mib=int(mem) if mem is not None else None,
        engines={c: (int(row[f]) if row.get(f) is not None else None) for c, f in ENGINE_COUNTERS},
    )


@cache
def gpu_models() -> dict[str, GpuModel]:
    raw = yaml.safe_load(DATA.read_text())
    out = {}
    for g in raw["gpus"]:
        profiles = tuple(_profile(r) for r in g.get("profiles") or [] if r.get("placement_starts"))
        out[g["id"]] = GpuModel(g["id"], g["product_names"][0], int(g["memory_slices_total"]),
                                int(g["compute_slices_total"]), profiles)
    return out


def gpu_model(name: str) -> GpuModel:
    models = gpu_models()
    if name not in models:
        raise InputError(f"unknown GPU model {name!r}; choose one of {', '.join(sorted(models))}")
    return models[name]
