"""The after-state of a plan, re-checked: every node's new allocations (the
work and the moved pods) by the independent checker against what is still
held there once the disrupted pods are gone; each budget's disruptions
recounted; each victim's priority compared with the work's."""

from __future__ import annotations

from dralloc.checker.rules import verify_allocation
from dralloc.models import DeviceRequestAllocationResult, ResourceClaim
from dralloc.planner.makeroom.model import RoomResult, Setup
from dralloc.planner.simulate.podsim import NodeObjects, visible_on


def _results(claim: ResourceClaim) -> list[DeviceRequestAllocationResult]:
    alloc = claim.status.allocation if claim.status else None
    return list(alloc.devices.results or []) if alloc and alloc.devices else []


def released(setup: Setup, gone: set[str]) -> set[str]:
    """Claims whose every user goes: their devices are free afterwards."""
    return {k for k, c in setup.running.claims.items() if all(u in gone for u in c.users)}


def check_plan(setup: Setup, res: RoomResult) -> list[str]:
    """Every broken rule of the plan (empty: it passes)."""
    gone = set(res.disrupted)
    free = released(setup, gone)
    objs = setup.objs
    held = [c for c in objs.claims if c.status and c.status.allocation and c.key not in free]
    by_pool: dict[tuple[str, str], list[ResourceClaim]] = {}
    for c in held:
        for pool in {(r.driver, r.pool) for r in _results(c)}:
            by_pool.setdefault(pool, []).append(c)
    per_node = NodeObjects(objs)
    by_name = {n.name: n for n in objs.nodes}
    out: list[str] = []
    done: dict[str, object] = {}
    for name in sorted(res.claims, key=str.encode):
        claims = res.claims[name]
        allocs = [c.status.allocation for c in claims if c.status and c.status.allocation]
        bare = [c.model_copy(update={"status": None}) for c in claims]
        node = by_name[name]
        here = list({id(c): c for p in per_node.pools(node) for c in by_pool.get(p, [])}.values())
        for f in verify_allocation(per_node.get(node).slices, objs.classes, node, bare, allocs, here, setup.features):
            if f.level == "error":
                out.append(f"node {name}: {f}")
        for c in claims:
            for pool in {(r.driver, r.pool) for r in _results(c)}:
                by_pool.setdefault(pool, []).append(c)
        done.update({c.key: c for c in claims})
    for key, name in sorted(res.placed.items()):
        pod = next(p for p in setup.work.demand.pods if p.name == key.rpartition("#")[0])
        for k in pod.shared:
            claim = done.get(k) or setup.work.demand.shared[k]
            if not visible_on(claim, by_name[name]):   # type: ignore[arg-type]
                out.append(f"{key} on node {name}: shared claim {k} is not allocated where the pod may use it")
    for b in setup.budgets.budgets:
        used = [p for p in gone if b.key in setup.budgets.of_pod.get(p, [])]
        if len(used) > b.allowed:
            out.append(f"{b.describe()}, the plan disrupts {len(used)} of its pods")
    for g, gang in sorted(setup.running.gangs.items()):
        left = [m for m in gang.running if m not in gone]
        if left and len(left) < len(gang.running) and len(left) < (gang.min_count or 0):
            out.append(f"gang {g}: {len(left)} of its pods would run, below its minimum {gang.min_count}")
    for p in sorted(gone):
        if p not in setup.weight:
            out.append(f"Pod {p} may not be disrupted")
    return out
