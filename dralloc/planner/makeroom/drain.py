"""``plan drain``: what draining nodes or adding a DeviceTaintRule does.

* **Who goes.** Draining a node (``kubectl drain``) evicts every pod on it
  through the eviction API, so PodDisruptionBudgets apply: a budget that
  allows fewer evictions than the node holds of its pods makes the drain
  wait (reported). A DeviceTaintRule adds its taint to the devices it
  selects; the device taint eviction controller then deletes (no budgets)
  every pod using an allocated claim with such a device, unless the claim's
  allocation carries a toleration of effect ``NoExecute`` that tolerates the
  taint (without ``tolerationSeconds``: forever; with it: the pod goes that
  many seconds later, still reported). Effect ``NoSchedule`` evicts nobody
  (the devices take no new claims); effect ``None`` is a dry run: reported
  as ``NoExecute`` would be, changing nothing. A running gang left below
  its minimum goes whole.
* **Do they fit elsewhere now?** The displaced pods (their claims released
  when every user goes) are placed on the cluster as it is afterwards
  (drained nodes cordoned, taints in force): Kubernetes' way (the scheduler
  simulation) and the optimum (:func:`general_fit`).
* **If not**, the fewest further disruptions that make room for all of
  them (:mod:`.answer`), the displaced pods being the work."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from dralloc.errors import InputError
from dralloc.extended import is_extended_claim, plugin_summary
from dralloc.features import Features
from dralloc.gangs import Gang
from dralloc.inventory.taintrules import apply_rules, check_rules, rule_matches
from dralloc.inventory.taints import tolerates
from dralloc.io import ObjectSet
from dralloc.models import DeviceTaintRule, ObjectMeta, ResourceClaim
from dralloc.planner.makeroom.answer import answer_make_room
from dralloc.planner.makeroom.budgets import read_budgets
from dralloc.planner.makeroom.plan import RoomAnswer, workload
from dralloc.planner.makeroom.plugins import work_plugin_nodes
from dralloc.planner.makeroom.room import Options
from dralloc.planner.makeroom.running import Running, running_state
from dralloc.planner.makeroom.work import Work
from dralloc.planner.questions.general import general_fit, greedy_gangs, placed_gangs
from dralloc.planner.view.demand import EXTENDED_ENTRY
from dralloc.planner.view.pods import PodDemand, PodsDemand


@dataclass
class DrainResult:
    data: dict[str, Any]
    room: RoomAnswer | None = None                  # the make-room answer, when one was needed
    displaced: dict[str, str] = field(default_factory=dict)   # pod -> node
    picture: RoomAnswer | None = None               # before and after, for pictures


def _evicting(rule: DeviceTaintRule) -> bool:
    return rule.spec.taint.effect in ("NoExecute", "None")


def _tolerated(rule: DeviceTaintRule, tolerations: Sequence[Any]) -> tuple[bool, int | None]:
    """(tolerated forever, seconds until eviction) as the eviction controller
    reads a result's tolerations: only those of effect NoExecute count."""
    taint = rule.spec.taint.model_copy(update={"effect": "NoExecute"})
    seconds = [t.toleration_seconds for t in tolerations if t.effect == "NoExecute" and tolerates(t, taint)]
    if any(s is None for s in seconds):
        return True, None
    return False, (max(0, min(s for s in seconds if s is not None)) if seconds else None)


def by_taint(running: Running, rules: Sequence[DeviceTaintRule]) -> tuple[dict[str, str], list[dict[str, str]]]:
    """Pods the rules evict (pod -> why), and claims that tolerate them."""
    out: dict[str, str] = {}
    kept: dict[str, dict[str, str]] = {}
    for key, rc in sorted(running.claims.items()):
        alloc = rc.claim.status.allocation if rc.claim.status else None
        for r in (alloc.devices.results or []) if alloc and alloc.devices else []:
            for rule in rules:
                if not _evicting(rule) or not rule_matches(rule, r.driver, r.pool, r.device):
                    continue
                forever, secs = _tolerated(rule, r.tolerations or [])
                dev = f"{r.driver}/{r.pool}/{r.device}"
                if forever:
                    for u in rc.users:
                        kept.setdefault(u, {"pod": u, "node": running.pods[u].node,
                                            "why": f"claim {key} tolerates {rule.spec.taint.key} on {dev}"})
                    continue
                why = f"claim {key}: device {dev} tainted {rule.spec.taint.key} by DeviceTaintRule {rule.name}" + (
                    f", evicted {secs} s after the taint" if secs else "")
                for u in rc.users:
                    out.setdefault(u, why)
    return out, [v for k, v in sorted(kept.items()) if k not in out]


def _gang_closure(running: Running, gone: dict[str, str]) -> None:
    for g, gang in sorted(running.gangs.items()):
        left = [m for m in gang.running if m not in gone]
        if len(left) < len(gang.running) and len(left) < (gang.min_count or 0):
            for m in left:
                gone[m] = f"gang {g} would run below its minimum {gang.min_count}"


def _after(objs: ObjectSet, running: Running, gone: dict[str, str], drained: set[str]) -> tuple[ObjectSet, PodsDemand]:
    """The cluster once the displaced pods are gone, and them as pending work."""
    free = {k for k, c in running.claims.items() if all(u in gone for u in c.users)}
    private = {k for k in free if len(running.claims[k].users) == 1}
    out = ObjectSet()
    for o in objs.all():
        if isinstance(o, ResourceClaim) and o.key in private:
            continue
        if isinstance(o, ResourceClaim) and o.key in free:
            o = o.model_copy(update={"status": None})
        if getattr(o, "kind", "") == "Pod" and f"{o.metadata.namespace or 'default'}/{o.name}" in gone:
            continue
        if getattr(o, "kind", "") == "Node" and o.name in drained:
            continue
        out.add(o, objs.where(o))
    out.admitted = True
    demand = PodsDemand()
    for i, key in enumerate(sorted(gone)):
        rp = running.pods[key]
        mine = [running.claims[k].claim for k in rp.claims if k in private]
        templates = tuple((EXTENDED_ENTRY if is_extended_claim(c) else c.name, c.model_copy(update={"status": None, "metadata": ObjectMeta(
            name=c.name, namespace=rp.namespace)})) for c in mine)
        shared = tuple(k for k in rp.claims if k not in private)
        for k in shared:
            demand.shared[k] = out.claim(k) or running.claims[k].claim
        demand.pods.append(PodDemand(key, rp.namespace, 1, rp.priority, i, templates, shared, gang=rp.gang))
    for g, gang in sorted(running.gangs.items()):
        members = [m for m in gang.running if m in gone]
        if members:
            bound = len(gang.running) - len(members)
            demand.gangs[g] = Gang(g, gang.source, gang.min_count, True, members, len(members), bound)
    demand.pods = [p if p.gang in demand.gangs or p.gang is None else PodDemand(
        p.name, p.namespace, 1, p.priority, p.order, p.templates, p.shared) for p in demand.pods]
    return out, demand


def _blocked(objs: ObjectSet, running: Running, gone: dict[str, str]) -> list[str]:
    """Node drains go through the eviction API: what the budgets refuse."""
    budgets = read_budgets(objs, running)
    out = []
    for b in budgets.budgets:
        used = [p for p in gone if b.key in budgets.of_pod.get(p, [])]
        if len(used) > b.allowed:
            out.append(f"{b.describe()}; the drain evicts {len(used)} of its pods: kubectl drain waits")
    out.extend(f"Pod {p}: {why}" for p, why in sorted(budgets.refused.items()) if p in gone)
    return out


def _fit(objs: ObjectSet, demand: PodsDemand, features: Features, opts: Options,
         claims: dict[str, list[ResourceClaim]]) -> dict[str, Any]:
    greedy, opt = general_fit(objs, demand, features, None, opts.time_limit, opts.workers)
    claims.update(opt.claims)
    total = demand.total()
    out: dict[str, Any] = {"pods": total,
                           "kubernetes": {"pods": sum(greedy.served.values()),
                                          "placement": {f"{p.pod}#{p.replica}": p.node for p in greedy.placed}},
                           "optimal": {"pods": sum(opt.served.values()), "proven": opt.proven,
                                       "placement": dict(sorted(opt.placed.items()))}}
    if demand.gangs:
        ff, best = greedy_gangs(greedy, demand), placed_gangs(opt.placed, demand)
        out["gangs"] = {g: {"kubernetes": ff[g], "optimal": best[g]} for g in sorted(demand.gangs)}
    if opt.notes:
        out["optimal"]["notes"] = opt.notes
    return out


def _picture(running: Running, gone: dict[str, str], demand: PodsDemand, placed: dict[str, list[ResourceClaim]],
             data: dict[str, Any]) -> RoomAnswer:
    """Before: the displaced pods where they run (evicted); after: where the
    optimum places them again (moved)."""
    pic = RoomAnswer("drain", data)
    owner = {c.name: p.name for p in demand.pods for c in p.instances(0)}
    for c in running.claims.values():
        for d in c.devices:
            pic.before[d] = c.users[0]
            if not all(u in gone for u in c.users):
                pic.after[d] = c.users[0]
    nodes = {running.pods[p].node for p in gone}
    for node, claims in placed.items():
        for made in claims:
            alloc = made.status.allocation if made.status else None
            for r in (alloc.devices.results or []) if alloc and alloc.devices else []:
                pic.after[(r.driver, r.pool, r.device)] = owner.get(made.name, made.key)
                nodes.add(node)
    pic.nodes = sorted(nodes, key=str.encode)
    pic.labels = {k: workload(p.pod) for k, p in running.pods.items()}
    placed_pods = {owner.get(c.name) for cs in placed.values() for c in cs}
    pic.marks = {p: "moved" if p in placed_pods else "evicted" for p in gone}
    return pic


def _with_room(pic: RoomAnswer, room: RoomAnswer) -> RoomAnswer:
    """The make-room plan's after-state, the drain's displaced pods marked."""
    out = RoomAnswer("drain", pic.data, sorted(set(pic.nodes) | set(room.nodes), key=str.encode), dict(pic.before),
                     {**{d: p for d, p in pic.before.items() if p not in pic.marks}, **room.after},
                     {**room.marks, **{p: m for p, m in pic.marks.items()}}, {**pic.labels, **room.labels})
    for p in pic.marks:
        out.marks[p] = "moved" if any(v == f"{p}#0" for v in room.after.values()) else "evicted"
    out.after = {d: (v[:-2] if v.endswith("#0") and v[:-2] in pic.marks else v) for d, v in out.after.items()}
    return out


def _who(running: Running, nodes: Sequence[str], rules: Sequence[DeviceTaintRule],
         notes: list[str]) -> tuple[dict[str, str], list[dict[str, str]], str]:
    """Pods displaced (pod -> why), pods kept by a toleration, and what is drained."""
    if nodes:
        gone = {p.key: f"on node {p.node}, drained" for n in nodes for p in running.on_node(n)}
        kept: list[dict[str, str]] = []
        target = "node" + "s" * (len(nodes) > 1) + " " + ", ".join(nodes)
    else:
        gone, kept = by_taint(running, rules)
        taints = sorted({f"{r.spec.taint.key}:{r.spec.taint.effect}" for r in rules})
        target = (", ".join(f"DeviceTaintRule {r.name}" for r in rules) if len(rules) <= 2
                  else f"{len(rules)} DeviceTaintRules") + f" ({', '.join(taints)})"
        if any(r.spec.taint.effect == "None" for r in rules):
            notes.append("effect None is a dry run: the pods listed would go with NoExecute; nothing changes")
        if any(r.spec.taint.effect == "NoSchedule" for r in rules):
            notes.append("effect NoSchedule evicts nobody: the tainted devices take no new claims")
    _gang_closure(running, gone)
    return gone, kept, target


def drain(objs: ObjectSet, features: Features, nodes: Sequence[str] = (), rules: Sequence[DeviceTaintRule] = (),
          opts: Options | None = None) -> DrainResult:
    opts = opts or Options()
    if bool(nodes) == bool(rules):
        raise InputError("say what to drain: --node NAME (repeatable) or --device-taint RULE.yaml")
    check_rules(rules)
    known = {n.name for n in objs.nodes}
    for n in nodes:
        if n not in known:
            raise InputError(f"--node {n}: no such Node among the {len(known)} in the files")
    objs = apply_rules(objs)
    running = running_state(objs)
    notes: list[str] = []
    gone, kept, target = _who(running, nodes, rules, notes)
    data: dict[str, Any] = {"question": "drain", "target": target,
                            "displaced": [{"pod": p, "node": running.pods[p].node, "why": gone[p]} for p in sorted(gone)],
                            "kept": kept}
    if nodes:
        blocked = _blocked(objs, running, gone)
        if blocked:
            data["blockedByBudgets"] = blocked
    placed_objs = apply_rules(objs, [r for r in rules if r.spec.taint.effect != "None"])
    after, demand = _after(placed_objs, running, gone, set(nodes))
    demand.pods = [p for p in demand.pods if p.templates or p.shared or p.gang is not None]
    res = DrainResult(data, displaced={p: running.pods[p].node for p in gone})
    if not demand.pods:
        data["fitElsewhere"] = None
        notes.append("no displaced pod uses claims: nothing to place again")
    else:
        placed: dict[str, list[ResourceClaim]] = {}
        fit = data["fitElsewhere"] = _fit(after, demand, features, opts, placed)
        res.picture = _picture(running, gone, demand, placed, data)
        hits = work_plugin_nodes(objs, features, sorted(gone))
        if hits:
            notes.append(f"{plugin_summary(hits)} (status.allocatable) that displaced pods ask for: Kubernetes "
                         "serves them there from the device plugin; the fit elsewhere counts DRA devices only")
        short = fit["optimal"]["pods"] < demand.total() or any(not v["optimal"] for v in fit.get("gangs", {}).values())
        if short:
            work = Work(demand, min(p.priority for p in demand.pods),
                        f"the {demand.total()} displaced pod{'s' * (demand.total() != 1)}")
            res.room = answer_make_room(after, features, work, opts, {p: running.pods[p].pod for p in gone})
            data["makeRoom"] = res.room.data
            if res.room.data["status"] == "plan":
                res.picture = _with_room(res.picture, res.room)
    if notes:
        data["notes"] = notes
    return res
