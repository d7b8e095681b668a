"""What each allocator flag changes in the allocator, in one line (the
flags' table of the allocator spec, §1.3): the "why" of an outcome that one
gate changes."""

from __future__ import annotations

from dralloc.features import FLAGS_OF_GATES

RULES = {
    "DRAPartitionableDevices": "devices that consume shared counters (partitions), and slices with shared "
                               "counters or per-device node selection, are allocatable only with it",
    "DRADeviceTaints": "with it, a device with a NoSchedule/NoExecute taint its request does not tolerate "
                       "is not allocated (and NoExecute evicts the pods using it)",
    "DRADeviceBindingConditions": "devices with binding conditions are selectable only with it (and with "
                                  "device status)",
    "DRAConsumableCapacity": "with it, devices that allow multiple allocations are shared and requests may ask "
                             "for capacity; without it a request for capacity is an error",
    "DRAAdminAccess": "a request for admin access is an error without it",
    "DRAPrioritizedList": "a request with firstAvailable alternatives is an error without it",
    "DRAListTypeAttributes": "with it, matchAttribute and distinctAttribute compare list attributes as sets",
    "DRAExtendedResource": "with it, a container's extended-resource request (nvidia.com/gpu: 1) that a "
                           "DeviceClass serves gets DRA devices through the scheduler's extended-resource claim "
                           "(where no device plugin on the node advertises it); without it only device plugins "
                           "serve it",
    "DRAResourceClaimDeviceStatus": "it switches nothing in the search; in 1.34 it alone made the scheduler "
                                    "pick the experimental allocator",
}


def rule(gate: str) -> str:
    """The gate's effect on allocation, in words."""
    return RULES.get(gate, "its allocator behaviour" if gate in FLAGS_OF_GATES else "dralloc's engines do "
                     "not read it")
