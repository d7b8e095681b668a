"""``plan make-room`` as one call: the search, the plan written up, and --
when there is none -- what blocks it, found by asking again with a rule
left out (the budgets, then the priorities, then both)."""

from __future__ import annotations

from typing import Any

from dralloc.features import Features
from dralloc.io import ObjectSet
from dralloc.planner.makeroom.budgets import read_budgets
from dralloc.planner.makeroom.plan import RoomAnswer, write_none, write_plan
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


def answer_make_room(objs: ObjectSet, features: Features, work: Work, opts: Options) -> RoomAnswer:
    deadline = Deadline(opts.time_limit)
    out = make_room(objs, features, work, opts, deadline=deadline)
    s = out.search
    detail = _detail(objs, work, out, opts)
    if s.best is not None:
        return write_plan(out.setup, s.best, s.bound, s.notes, detail)
    if s.proven_infeasible:
        return write_none(out.setup, True, explain(objs, features, work, opts, out, deadline), 0, s.notes, detail)
    return write_none(out.setup, False, [], s.bound, s.notes or [stopped(deadline.limit, "the search")], detail)
