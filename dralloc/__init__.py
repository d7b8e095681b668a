"""dralloc: an allocation engine for Kubernetes Dynamic Resource Allocation."""

from dralloc.errors import AllocationError, DrallocError, InputError, StaleAnswerError
from dralloc.quantity import Quantity

__version__ = "0.1.0"
__all__ = ["AllocationError", "Cluster", "DrallocError", "InputError", "Quantity", "StaleAnswerError", "__version__"]


def __getattr__(name: str) -> object:
    """``dralloc.Cluster`` (imported on first use: it brings in the engines)."""
    if name == "Cluster":
        from dralloc.cluster import Cluster

        return Cluster
    raise AttributeError(f"module 'dralloc' has no attribute {name!r}")
