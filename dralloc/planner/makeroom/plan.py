"""The answer written up: a plan a person can execute (an ordered
checklist), the work's allocations, each affected node before and after,
and what the answer claims (proven, bound) -- or, without a plan, what
blocks one."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dralloc.models import ResourceClaim
from dralloc.planner.makeroom.check import check_plan, released
from dralloc.planner.makeroom.model import RoomResult, Setup

DeviceId = tuple[str, str, str]


@dataclass
class RoomAnswer:
    """The answer (``data``, what is printed) and, for pictures, who holds
    which device on the affected nodes before and after the plan."""

    question: str
    data: dict[str, Any]
    nodes: list[str] = field(default_factory=list)                         # affected nodes
    before: dict[DeviceId, str] = field(default_factory=dict)              # device -> pod
    after: dict[DeviceId, str] = field(default_factory=dict)
    marks: dict[str, str] = field(default_factory=dict)                    # pod -> "evicted" / "moved" / "placed"
    labels: dict[str, str] = field(default_factory=dict)                   # pod -> workload (colour)

    def as_dict(self) -> dict[str, Any]:
        return self.data


def _devices(claims: list[ResourceClaim]) -> list[str]:
    out = []
    for c in claims:
        alloc = c.status.allocation if c.status else None
        for r in (alloc.devices.results or []) if alloc and alloc.devices else []:
            out.append(f"{r.pool}/{r.device}")
    return out


def _owner(key: str, setup: Setup) -> dict[str, str]:
    """Claim name -> the replica or moved pod it was made for."""
    out = {}
    for p in setup.work.demand.pods:
        for r in range(p.replicas):
            out.update({c.name: f"{p.name}#{r}" for c in p.instances(r)})
    for k in setup.movers:
        out.update({c.name: k for c in setup.movers[k].instances(0)})
    return out


def new_claims(setup: Setup, res: RoomResult) -> dict[str, list[ResourceClaim]]:
    """Per replica (``ns/pod#i``) or moved pod, the claims allocated for it;
    the work's shared claims under their own key."""
    owner = _owner("", setup)
    out: dict[str, list[ResourceClaim]] = {}
    for claims in res.claims.values():
        for c in claims:
            out.setdefault(owner.get(c.name, c.key), []).append(c)
    return out


def _order_moves(setup: Setup, res: RoomResult) -> list[dict[str, Any]]:
    """Moves in an order that works: a pod moves once the pods it replaces on
    its new node have gone; pods in a cycle are evicted first, then re-created."""
    run = setup.running.pods
    wait = {m: {x for x in res.disrupted if run[x].node == to and x != m} for m, to in res.moved.items()}
    steps: list[dict[str, Any]] = []
    gone: set[str] = set()
    left = sorted(res.moved)
    while left:
        ready = [m for m in left if wait[m] <= gone]
        if not ready:
            for m in left:
                steps.append({"action": "evict", "pod": m, "node": run[m].node, "reason": "to move it (cycle)"})
            steps.extend({"action": "recreate", "pod": m, "node": res.moved[m]} for m in left)
            break
        m = ready[0]
        steps.append({"action": "move", "pod": m, "from": run[m].node, "to": res.moved[m]})
        gone.add(m)
        left.remove(m)
    return steps


def _steps(setup: Setup, res: RoomResult, claims: dict[str, list[ResourceClaim]]) -> list[dict[str, Any]]:
    run = setup.running.pods
    gang_of = {m: g for g in res.broken for m in setup.running.gangs[g].running}
    steps: list[dict[str, Any]] = []
    if setup.mode == "evict":
        for p in sorted(res.disrupted, key=lambda p: (run[p].node.encode(), p.encode())):
            why = f"gang {gang_of[p]} goes whole" if p in gang_of else f"priority {run[p].priority}"
            steps.append({"action": "evict", "pod": p, "node": run[p].node, "reason": why})
    else:
        steps.extend(_order_moves(setup, res))
    for key, node in sorted(res.placed.items()):
        steps.append({"action": "place", "pod": key, "node": node, "devices": _devices(claims.get(key, []))})
    return [{"step": i + 1, **s} for i, s in enumerate(steps)]


def _nodes(setup: Setup, res: RoomResult, claims: dict[str, list[ResourceClaim]],
           ans: RoomAnswer) -> dict[str, Any]:
    run = setup.running
    gone = set(res.disrupted)
    touched = {run.pods[p].node for p in gone} | set(res.placed.values()) | set(res.moved.values())
    out: dict[str, Any] = {}
    ans.nodes = sorted(touched, key=str.encode)
    _holders(setup, res, claims, ans)
    for node in sorted(touched, key=str.encode):
        before = {p.key: [f"{d[1]}/{d[2]}" for k in p.claims for d in run.claims[k].devices] for p in run.on_node(node)}
        after = {k: v for k, v in before.items() if k not in gone}
        after.update({m: _devices(claims.get(m, [])) for m, n in res.moved.items() if n == node})
        after.update({r: _devices(claims.get(r, [])) for r, n in res.placed.items() if n == node})
        out[node] = {"before": sorted(before), "after": sorted(after)}
    for p in gone:
        ans.marks[p] = "moved" if p in res.moved else "evicted"
    ans.marks.update({r: "placed" for r in res.placed})
    return out


def workload(pod: Any) -> str:
    """What colours a pod in pictures: its ``app`` label, else its name."""
    return str((pod.metadata.labels or {}).get("app") or pod.name)


def _holders(setup: Setup, res: RoomResult, claims: dict[str, list[ResourceClaim]], ans: RoomAnswer) -> None:
    run = setup.running
    gone = set(res.disrupted)
    for c in run.claims.values():
        for d in c.devices:
            ans.before[d] = c.users[0]
            if not all(u in gone for u in c.users):
                ans.after[d] = c.users[0]
    for owner, mine in claims.items():
        for made in mine:
            alloc = made.status.allocation if made.status else None
            for r in (alloc.devices.results or []) if alloc and alloc.devices else []:
                ans.after[(r.driver, r.pool, r.device)] = owner
    ans.labels = {k: workload(p.pod) for k, p in run.pods.items()}
    for p in setup.work.demand.pods:
        for i in range(p.replicas):
            ans.labels[f"{p.name}#{i}"] = p.name.rpartition("/")[2]


def _budgets(setup: Setup, gone: set[str]) -> list[dict[str, Any]]:
    out = []
    for b in setup.budgets.budgets:
        used = sorted(p for p in gone if b.key in setup.budgets.of_pod.get(p, []))
        if used:
            out.append({"budget": b.key, "allowed": b.allowed, "used": len(used), "pods": used})
    return out


def write_plan(setup: Setup, res: RoomResult, bound: int, notes: list[str], detail: dict[str, Any]) -> RoomAnswer:
    claims = new_claims(setup, res)
    proven = res.cost <= bound
    data: dict[str, Any] = {
        "question": "make-room", "work": setup.work.what, "mode": setup.mode,
        "status": "plan", "proven": proven, "disruptions": len(res.disrupted), "cost": res.cost,
        "bound": bound, "gap": res.cost - bound,
        "evictions": sorted(res.disrupted) if setup.mode == "evict" else [],
        "moves": dict(sorted(res.moved.items())),
        "placed": {k: {"node": n, "devices": _devices(claims.get(k, []))} for k, n in sorted(res.placed.items())},
    }
    ans = RoomAnswer("make-room", data)
    data["steps"] = _steps(setup, res, claims)
    data["nodes"] = _nodes(setup, res, claims, ans)
    data["budgets"] = _budgets(setup, set(res.disrupted))
    if res.broken:
        data["gangsBroken"] = sorted(res.broken)
    errors = check_plan(setup, res)
    data["check"] = "passed" if not errors else errors
    if errors:
        data["proven"] = False
        notes = [*notes, "the independent checker rejects this plan: it is not to be followed"]
    data["releasedClaims"] = len(released(setup, set(res.disrupted)))
    if notes:
        data["notes"] = notes
    data["detail"] = detail
    return ans


def write_none(setup: Setup, proven: bool, blocked: list[str], bound: int, notes: list[str],
               detail: dict[str, Any]) -> RoomAnswer:
    data: dict[str, Any] = {
        "question": "make-room", "work": setup.work.what, "mode": setup.mode,
        "status": "no plan" if proven else "not decided", "proven": proven, "bound": bound,
        "evictions": [], "moves": {}, "placed": {}, "blocked": blocked,
    }
    if notes:
        data["notes"] = notes
    data["detail"] = detail
    return RoomAnswer("make-room", data)
