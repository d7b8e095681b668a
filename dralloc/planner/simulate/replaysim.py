"""First-fit through the allocator itself: every pod of the queue is tried on
the nodes in name order with the cluster object (:class:`dralloc.cluster.Cluster`,
``allocate()`` at the cost of one node; any mode, replay by default), the
first success is committed as an allocated ResourceClaim.
Slow (one allocator call per pod and node tried) but it is the reference the
fast simulator in :mod:`dralloc.planner.simulate.firstfit` is checked against; it also
turns a placement into a cluster state (allocated claims)."""

from __future__ import annotations

from dataclasses import dataclass, field

from dralloc.cluster import Cluster
from dralloc.features import Features
from dralloc.io import ObjectSet
from dralloc.models import ObjectMeta, ResourceClaim, ResourceClaimStatus
from dralloc.planner.simulate.firstfit import Placement
from dralloc.planner.view.demand import Demand
from dralloc.solver import Status


@dataclass
class ReplayResult:
    placed: list[Placement] = field(default_factory=list)
    claims: list[ResourceClaim] = field(default_factory=list)   # allocated, in placement order
    served: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)  # allocation calls that failed with an error (e.g. a time limit)


def claim_for(demand: Demand, workload: str, replica: int) -> ResourceClaim:
    w = next(x for x in demand.workloads if x.name == workload)
    base = demand.types[w.type].claim
    ns, _, name = workload.rpartition("/")
    meta = ObjectMeta(name=f"{name}-{replica}", namespace=ns or "default")
    return base.model_copy(update={"metadata": meta, "status": None})


def simulate_replay(objs: ObjectSet, demand: Demand, features: Features, mode: str = "replay") -> ReplayResult:
    out = ReplayResult()
    nodes = sorted(objs.nodes, key=lambda n: n.name.encode())
    cluster = Cluster(objs, features, admission=False)
    full: set[tuple[int, str]] = set()
    for w in demand.queue():
        out.served[w.name] = 0
        for r in range(w.replicas):
            claim = claim_for(demand, w.name, r)
            for node in nodes:
                if (w.type, node.name) in full:
                    continue
                res = cluster.allocate(node, [claim], mode=mode)
                if not res.ok or not res.allocations:
                    if res.status is Status.ERROR:
                        out.errors.append(f"{claim.key} on node {node.name}: {res.error}")
                    full.add((w.type, node.name))
                    continue
                done = claim.model_copy(update={"status": ResourceClaimStatus(allocation=res.allocations[0])})
                cluster.record(done)
                out.claims.append(done)
                devs = res.allocations[0].devices
                dev = devs.results[0] if devs and devs.results else None
                label = f"{dev.driver}/{dev.pool}/{dev.device}" if dev and dev.device else ""
                out.placed.append(Placement(w.name, r, node.name, label))
                out.served[w.name] += 1
                break
    return out
