"""The running side of a cluster as make-room sees it: pods bound to nodes,
their priorities (``spec.priority``, else their PriorityClass, else the
global default class), the allocated claims they use (a claim is freed only
when every pod using it goes: pods naming it, or every pod of the PodGroup
it is reserved for), and the gangs they run in (:mod:`dralloc.gangs`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from dralloc.audit.state import ClusterState, pod_key
from dralloc.errors import InputError
from dralloc.gangs import Gang, GangReader
from dralloc.io import ObjectSet
from dralloc.models import Pod, PriorityClass, ResourceClaim
from dralloc.planner.view.pods import REPLICAS

DeviceID = tuple[str, str, str]


def priorities(objs: ObjectSet) -> tuple[dict[str, int], int]:
    """PriorityClass values by name, and the global default's value (0 without one)."""
    classes: dict[str, PriorityClass] = {c.name: c for c in objs.priority_classes}
    defaults = sorted((c for c in classes.values() if c.global_default), key=lambda c: c.name)
    return {n: c.value for n, c in classes.items()}, (defaults[0].value if defaults else 0)


def pod_priority(pod: Pod, values: dict[str, int], default: int) -> int:
    """What the API server's Priority admission gives the pod: ``spec.priority``
    when set, else its class's value, else the global default."""
    if pod.spec.priority is not None:
        return pod.spec.priority
    name = pod.spec.priority_class_name
    if name:
        if name not in values:
            raise InputError(f"Pod {pod.namespace or 'default'}/{pod.name}: spec.priorityClassName: PriorityClass "
                             f"{name!r} not found (give the PriorityClass, or spec.priority)")
        return values[name]
    return default


def is_running(pod: Pod) -> bool:
    """Bound to a node, not finished, not being deleted."""
    phase = pod.status.phase if pod.status else None
    return bool(pod.spec.node_name) and phase not in ("Succeeded", "Failed") \
        and not pod.metadata.deletion_timestamp


def is_ready(pod: Pod) -> bool:
    """The pod's Ready condition; a pod whose status carries no Ready
    condition (a file written by hand) counts as ready."""
    for c in (pod.status.conditions or []) if pod.status else []:
        if c.type == "Ready":
            return c.status == "True"
    return True


@dataclass
class RunningPod:
    key: str                      # "ns/name"
    node: str
    priority: int
    ready: bool
    pod: Pod
    claims: list[str] = field(default_factory=list)   # allocated claims it uses
    gang: str | None = None

    @property
    def namespace(self) -> str:
        return self.pod.metadata.namespace or "default"


@dataclass
class RunningClaim:
    claim: ResourceClaim
    users: list[str]              # running pods using it (all must go for its devices to be freed)
    devices: list[DeviceID]       # held exclusively (admin access and shares left out)
    shares: bool = False          # holds shares of a device that allows multiple allocations

    @property
    def key(self) -> str:
        return self.claim.key


@dataclass
class Running:
    pods: dict[str, RunningPod] = field(default_factory=dict)
    claims: dict[str, RunningClaim] = field(default_factory=dict)
    gangs: dict[str, Gang] = field(default_factory=dict)
    holders: dict[DeviceID, str] = field(default_factory=dict)     # device -> claim key
    pending: set[str] = field(default_factory=set)                 # claims some unbound pod also uses

    def on_node(self, node: str) -> list[RunningPod]:
        return [p for p in self.pods.values() if p.node == node]


def _group_members(objs: ObjectSet) -> dict[tuple[str, str], list[Pod]]:
    """Pods by (namespace, PodGroup)."""
    out: dict[tuple[str, str], list[Pod]] = {}
    for p in objs.pods:
        sg = p.spec.scheduling_group
        if sg is not None and sg.pod_group_name:
            out.setdefault((p.metadata.namespace or "default", sg.pod_group_name), []).append(p)
    return out


def _group_users(members: dict[tuple[str, str], list[Pod]], claim: ResourceClaim) -> list[Pod]:
    """Pods of the PodGroups the claim is reserved for."""
    ns = claim.metadata.namespace or "default"
    refs = (claim.status.reserved_for or []) if claim.status else []
    return [p for r in refs if r.resource == "podgroups" for p in members.get((ns, r.name), [])]


def _devices(claim: ResourceClaim) -> tuple[list[DeviceID], bool]:
    alloc = claim.status.allocation if claim.status else None
    out, shares = [], False
    for r in (alloc.devices.results or []) if alloc and alloc.devices else []:
        if r.admin_access:
            continue
        if r.share_id:
            shares = True
            continue
        out.append((r.driver, r.pool, r.device))
    return out, shares


def running_state(objs: ObjectSet) -> Running:
    """Every running pod with its priority, claims and gang."""
    values, default = priorities(objs)
    st = ClusterState.build(objs)
    out = Running()
    reader = GangReader(objs)
    for pod in objs.pods:
        if not is_running(pod):
            continue
        key = pod_key(pod) if pod.namespace else f"default/{pod.name}"
        if (pod.metadata.annotations or {}).get(REPLICAS, "1") != "1":
            raise InputError(f"Pod {key}: metadata.annotations[{REPLICAS}]: a pod bound to a node is one pod")
        link = reader.link(pod, key, 1)
        out.pods[key] = RunningPod(key, str(pod.spec.node_name), pod_priority(pod, values, default), is_ready(pod),
                                   pod, gang=link.gang if link else None)
    out.gangs = reader.running_gangs()
    members = _group_members(objs)
    for c in st.allocated():
        users = {pod_key(p) if p.namespace else f"default/{p.name}" for p in
                 [*st.users.get(c.key, []), *_group_users(members, c)]}
        running = sorted(u for u in users if u in out.pods)
        if len(running) < len(users):
            out.pending.add(c.key)
        if not running:
            continue
        devs, shares = _devices(c)
        out.claims[c.key] = RunningClaim(c, running, devs, shares)
        for u in running:
            out.pods[u].claims.append(c.key)
        for d in devs:
            out.holders[d] = c.key
    return out
