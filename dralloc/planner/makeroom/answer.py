"""``plan make-room`` as one call: the search, the plan written up, and --
when there is none -- what blocks it, found by asking again with a rule
left out (the budgets, then the priorities, then both)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dralloc.features import Features
from dralloc.io import ObjectSet
from dralloc.models import Pod
from dralloc.planner.makeroom.budgets import read_budgets
from dralloc.planner.makeroom.plan import RoomAnswer, write_none, write_plan
from dralloc.planner.makeroom.plugins import (
    place_on_plugins,
    plugin_answer,
    scoped,
    work_plugin_nodes,
)
from dralloc.planner.makeroom.room import Options, Outcome, make_room
from dralloc.planner.makeroom.running import running_state
from dralloc.planner.makeroom.work import Work
from dralloc.solver.limits import Deadline, stopped


def _detail(objs: ObjectSet, work: Work, out: Outcome, opts: Options) -> dict[str, Any]:
    s = out.search
    return {"priorityBelow": work.priority, "costModel": opts.cost, "nodes": len(objs.nodes),
            "candidateNodes": len(s.candidates()), "modelledNodes": len(s.region), "rounds": s.rounds,
            "mayBeDisrupted": len(out.setup.weight)}


def _blocked_by(objs: ObjectSet, work: Work, disrupted: list[str], relaxed: str) -> list[str]:
    """What the plan found with ``relaxed`` rules left out breaks."""
    running = running_state(objs)
    budgets = read_budgets(objs, running)
    out = []
    gone = set(disrupted)
    if "budgets" in relaxed:
        for b in budgets.budgets:
            used = sorted(p for p in gone if b.key in budgets.of_pod.get(p, []))
            if len(used) > b.allowed:
                out.append(f"{b.describe()}; the fewest disruptions need {len(used)} of its pods: {', '.join(used)}")
        out.extend(f"Pod {p}: {why}" for p, why in sorted(budgets.refused.items()) if p in gone)
    if "priority" in relaxed:
        high = sorted(p for p in gone if running.pods[p].priority >= work.priority)
        out.extend(f"Pod {p} (priority {running.pods[p].priority}) would have to go, and it is not below the "
                   f"work's priority {work.priority}" for p in high)
    return out


def explain(objs: ObjectSet, features: Features, work: Work, opts: Options, out: Outcome,
            deadline: Deadline) -> list[str]:
    """Why no plan exists, in sentences."""
    if not out.setup.running.pods:
        return [f"{work.what} fits on no node, and no pod runs that could make room"]
    if all(p.priority >= work.priority for p in out.setup.running.pods.values()):
        return [f"no running pod may be disrupted: none has a priority below the work's ({work.priority})"]
    quiet = Options(opts.mode, opts.cost, opts.time_limit, opts.workers, None, opts.whole)
    for relax in ("budgets", "priority", "budgets+priority"):
        if deadline.over():
            break
        got = make_room(objs, features, work, quiet, frozenset(relax.split("+")), deadline)
        if got.search.best is not None:
            lines = _blocked_by(objs, work, got.search.best.disrupted, relax)
            if lines:
                return lines
    if not out.search.candidates():
        return [f"{work.what} fits on no node even with every pod that may be disrupted gone (priority below "
                f"{work.priority}, evictable" + (", with claims of its own" if opts.mode == "move" else "") + ")"]
    return [f"no choice of pods to disrupt lets {work.what} fit"
            + (" (pods whose claims are shared are not moved)" if opts.mode == "move" else "")]


def answer_make_room(objs: ObjectSet, features: Features, work: Work, opts: Options,
                     displaced: Mapping[str, Pod] | None = None) -> RoomAnswer:
    """The fewest disruptions that let ``work`` fit: none when it fits now
    on DRA devices, or else on nodes whose device plugins serve its extended
    resources (:mod:`.plugins`); an answer over DRA devices says so where
    device plugins advertise what the work asks for. ``displaced``: drain's pods,
    by key, no longer in ``objs``."""
    ans = _search(objs, features, work, opts)
    if ans.data["status"] == "plan" and ans.data["disruptions"] == 0 and ans.data["proven"]:
        return ans                                   # fits now on DRA devices
    on_plugins = place_on_plugins(objs, features, work, displaced)
    if on_plugins is not None:
        return plugin_answer(objs, work, opts.mode, on_plugins, ans.data["detail"])
    keys = [p.name for p in work.demand.pods]
    if opts.mode == "move":     # moved pods are placed again on DRA devices only, too
        keys += [f"{p.metadata.namespace or 'default'}/{p.name}" for p in objs.pods if p.spec.node_name]
    hits = work_plugin_nodes(objs, features, keys, displaced)
    if hits:
        scoped(ans.data, hits, work.what if opts.mode == "evict" else f"{work.what} or the pods it may move")
    return ans


def _search(objs: ObjectSet, features: Features, work: Work, opts: Options) -> RoomAnswer:
    deadline = Deadline(opts.time_limit)
    out = make_room(objs, features, work, opts, deadline=deadline)
    s = out.search
    detail = _detail(objs, work, out, opts)
    if s.best is not None:
        return write_plan(out.setup, s.best, s.bound, s.notes, detail)
    if s.proven_infeasible:
        return write_none(out.setup, True, explain(objs, features, work, opts, out, deadline), 0, s.notes, detail)
    return write_none(out.setup, False, [], s.bound, s.notes or [stopped(deadline.limit, "the search")], detail)
