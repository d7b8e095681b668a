"""Extended resources through DRA (KEP-5004), as kube-scheduler handles them
-- read by every command that asks about a pod: ``allocate --pod``,
:class:`dralloc.Cluster`, verify and the planner (through
:mod:`dralloc.cluster.pods`).

A container asking for an extended resource (``resources.limits:
{nvidia.com/gpu: 2}``, or ``deviceclass.resource.kubernetes.io/<class>``)
that a DeviceClass serves -- its ``spec.extendedResourceName``, or the
implicit name every class has -- is met by DRA devices: the scheduler makes
one ResourceClaim for the pod (the *extended-resource claim*) whose requests
it builds per node, and records it in ``status.extendedResourceClaimStatus``.
What is read here follows kube-scheduler's DynamicResources plugin
(``extendeddynamicresources.go``) and its device-class cache:

* **which class**: for an explicit name, among the classes naming it the one
  created last (``creationTimestamp``), ties by the lower name; the implicit
  name ``deviceclass.resource.kubernetes.io/<class>`` is that class;
* **the pod's demand**: its effective requests (``PodRequests``): container
  requests (defaulted from limits, as the API server does) summed, init
  containers as a peak (sidecars -- ``restartPolicy: Always`` -- run on
  and add up), RuntimeClass overhead added; pod-level resources hold only
  cpu, memory and hugepages, never an extended resource;
* **per node**: a resource the node's device plugin advertises
  (``status.allocatable`` above zero) is the device plugin's (its free count
  is checked, as the NodeResourcesFit plugin does); one the node does not
  advertise (or at zero) and a class serves goes to DRA; one neither serves
  does not fit the node;
* **the claim's requests**: per resource (by name), one request per
  long-lived container (regular and sidecar) asking for it, named
  ``container-<i>-request-<j>`` (``i`` the container's index among init and
  regular containers, ``j`` the resource's index among the container's
  requests sorted by name), ExactCount of the container's request; a plain
  init container first reuses the devices of long-lived containers that
  start after it, and the plain init containers share one request, the
  largest; requests sorted by name. The mapping container -> request is what
  ``status.extendedResourceClaimStatus.requestMappings`` records.

With ``DRAExtendedResource`` off (Kubernetes 1.34, 1.35 by default) a pod's
extended resources are not DRA's: the device plugins' alone."""

from dralloc.extended.names import (
    CLAIM_ANNOTATION,
    CLAIM_SUFFIX,
    GATE,
    IMPLICIT_PREFIX,
    ClassResolver,
    NodeRefuses,
    is_extended_claim,
    is_extended_name,
    pod_key,
)
from dralloc.extended.nodes import (
    Demand,
    ExtendedReader,
    Share,
    allocatable,
    plugin_nodes,
    plugin_summary,
    plugin_use,
    used_on,
)
from dralloc.extended.requests import (
    Mapping,
    build_requests,
    claim_name,
    container_requests,
    new_claim,
    owner_of,
    pod_requests,
    status_mappings,
)

__all__ = [
    "CLAIM_ANNOTATION", "CLAIM_SUFFIX", "GATE", "IMPLICIT_PREFIX", "ClassResolver", "Demand", "ExtendedReader",
    "Mapping", "NodeRefuses", "Share", "allocatable", "build_requests", "claim_name", "container_requests",
    "is_extended_claim", "is_extended_name", "new_claim", "owner_of", "plugin_nodes", "plugin_summary", "plugin_use", "pod_key", "pod_requests",
    "status_mappings", "used_on",
]
