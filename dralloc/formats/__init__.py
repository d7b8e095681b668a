"""Reading the formats the DRA design went through before resource.k8s.io/v1,
and translating them to plain v1 objects that :func:`dralloc.solver.allocate`
takes unchanged:

* ``composite``: the first KEP-4815 draft (composite devices, device mixins,
  ``consumesCapacityFrom``), as ResourceSlices of any API version or as the
  KEP's bare spec fragments (top-level ``deviceMixins``/``devices``);
* ``capacity-pools``: the March 2025 revision of KEP-4815 (``capacityPools``,
  ``consumesCapacity``, ``mixins``), slices or bare fragments;
* ``dra-evolution``: the wg-device-management dra-evolution ResourcePools
  (its classes, claims and pods are reported as not translated);
* ``k8srm``: the wg-device-management k8srm prototype (``devmgmtproto.k8s.io``
  DevicePool, DeviceClass, DeviceClaim, and Pods with ``deviceClaims``);
* ``v1``: anything else the loader reads (older resource.k8s.io versions too).

Allocation on translated composite devices needs the DRAPartitionableDevices
feature; see docs/formats.md for every translation rule.

The translation functions are loaded on first use (``from dralloc.formats
import load_any``), so that the defaults below are read without loading the
models."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

DEFAULT_DRIVER = "gpu.nvidia.com"  # every KEP-4815 fragment describes NVIDIA GPUs
DEFAULT_NODE = "node-1"
FEATURES = ("DRAPartitionableDevices", "DRAPrioritizedList", "DRAAdminAccess", "DRAConsumableCapacity")

if TYPE_CHECKING:
    from dralloc.formats.common import Translation
    from dralloc.formats.translation import convert_documents, detect_format, load_any, translate

__all__ = ["DEFAULT_DRIVER", "DEFAULT_NODE", "FEATURES", "Translation", "convert_documents",
           "detect_format", "load_any", "translate"]


def __getattr__(name: str) -> Any:
    if name == "Translation":
        from dralloc.formats.common import Translation

        return Translation
    if name in ("convert_documents", "detect_format", "load_any", "translate"):
        from dralloc.formats import translation

        return getattr(translation, name)
    raise AttributeError(f"module 'dralloc.formats' has no attribute {name!r}")
