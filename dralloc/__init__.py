"""dralloc: an allocation engine for Kubernetes Dynamic Resource Allocation."""

from dralloc.errors import AllocationError, DrallocError, InputError
from dralloc.quantity import Quantity

__version__ = "0.1.0"
__all__ = ["AllocationError", "DrallocError", "InputError", "Quantity", "__version__"]
