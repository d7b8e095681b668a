"""``make_room``: the whole question, from the objects to a checked plan
(the module docs of :mod:`.model`, :mod:`.search` and :mod:`.screen` say
how). A pod may be disrupted when its priority is below the work's, the
eviction API would evict it (at most one PodDisruptionBudget), and -- in
move mode -- its claims are its own (a claim shared with other pods is not
re-placed)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from dralloc.features import Features
from dralloc.inventory.taintrules import apply_rules
from dralloc.io import ObjectSet
from dralloc.io.progress import Progress, counter
from dralloc.models import Node, ObjectMeta
from dralloc.planner.makeroom.budgets import Budgets, read_budgets
from dralloc.planner.makeroom.model import Setup
from dralloc.planner.makeroom.running import Running, running_state
from dralloc.planner.makeroom.screen import NodeScreen, Screener, shape_claims, shape_of
from dralloc.planner.makeroom.search import DESTINATIONS, WHOLE, Search
from dralloc.planner.makeroom.work import Work
from dralloc.planner.view.pods import PodDemand
from dralloc.solver.limits import Deadline

MODES = ("evict", "move")
COSTS = ("count", "priority")


@dataclass
class Options:
    mode: str = "evict"
    cost: str = "count"
    time_limit: float | None = None
    workers: int = 2
    progress: Progress | None = None     # the one progress reporter (dralloc.io.progress)
    whole: int = WHOLE                    # model clusters up to this many nodes whole


@dataclass
class Outcome:
    """What the search found, before it is written up as a plan."""

    setup: Setup
    search: Search
    why_not: dict[str, str] = field(default_factory=dict)     # running pod -> why it may not be disrupted


def weights(pods: list[tuple[str, int]], cost: str) -> dict[str, int]:
    """Cost of disrupting each pod: 1, or by priority level, each level
    outweighing every pod of the levels below together (exact integers)."""
    if cost == "count":
        return {p: 1 for p, _ in pods}
    out: dict[int, int] = {}
    below = 0
    for level in sorted({pr for _, pr in pods}):
        out[level] = below + 1
        below += out[level] * sum(1 for _, pr in pods if pr == level)
    return {p: out[pr] for p, pr in pods}


def _mover(running: Running, objs: ObjectSet, key: str) -> PodDemand | None:
    """A running pod as a pending one with its own claims (None: a claim is shared)."""
    rp = running.pods[key]
    claims = [running.claims[k] for k in rp.claims]
    if any(len(c.users) > 1 or c.shares for c in claims) or any(
            k in running.pending for k in rp.claims):
        return None
    ns = rp.namespace
    templates = tuple((c.claim.name, c.claim.model_copy(update={
        "status": None, "metadata": ObjectMeta(name=c.claim.name, namespace=ns)})) for c in claims)
    return PodDemand(key, ns, 1, rp.priority, 0, templates)


def _eligible(running: Running, budgets: Budgets, work: Work, objs: ObjectSet, mode: str,
              relax: frozenset[str]) -> tuple[dict[str, int], dict[str, PodDemand], dict[str, str]]:
    """Pods that may be disrupted (with their priorities), movers, and why the others may not."""
    ok: dict[str, int] = {}
    movers: dict[str, PodDemand] = {}
    why: dict[str, str] = {}
    for key, rp in running.pods.items():
        if rp.priority >= work.priority and "priority" not in relax:
            why[key] = f"priority {rp.priority} is not below the work's {work.priority}"
            continue
        if key in budgets.refused and "budgets" not in relax:
            why[key] = budgets.refused[key]
            continue
        if mode == "move":
            m = _mover(running, objs, key)
            if m is None:
                why[key] = "a claim it uses is shared with other pods: it is not moved"
                continue
            movers[key] = m
        ok[key] = rp.priority
    return ok, movers, why


def setup_for(objs: ObjectSet, features: Features, work: Work, opts: Options,
              relax: frozenset[str] = frozenset()) -> tuple[Setup, dict[str, str]]:
    running = running_state(objs)
    budgets = read_budgets(objs, running)
    if "budgets" in relax:
        budgets = Budgets()
    ok, movers, why = _eligible(running, budgets, work, objs, opts.mode, relax)
    w = weights(sorted(ok.items()), opts.cost)
    shapes = {p.name: shape_of(p, work.demand.shared) for p in work.demand.pods}
    shapes.update({k: shape_of(m, {}) for k, m in movers.items()})
    return Setup(objs, features, running, budgets, work, opts.mode, w, shapes, movers, "priority" in relax), why


def _destinations(setup: Setup, nodes: list[Node], screens: dict[str, NodeScreen]) -> Callable[
        [set[str]], dict[str, list[Node]]]:
    """Move mode: per shape of the displaced pods, the nodes outside a region
    with the most room for it now (devices free; the model decides)."""
    shapes = sorted({setup.shapes[k] for k in setup.movers})

    def dests(inside: set[str]) -> dict[str, list[Node]]:
        out: dict[str, list[Node]] = {}
        for shape in shapes:
            room = [(screens[n.name].room.get(shape, 0), n) for n in nodes if n.name not in inside]
            best = sorted((r for r in room if r[0] > 0), key=lambda r: (-r[0], r[1].name.encode()))
            out[shape] = [n for _, n in best[:DESTINATIONS]]
        return out
    return dests


def make_room(objs: ObjectSet, features: Features, work: Work, opts: Options,
              relax: frozenset[str] = frozenset(), deadline: Deadline | None = None) -> Outcome:
    """The search for the fewest disruptions (``relax``: rules left out,
    "budgets" or "priority", to say what blocks a plan)."""
    objs = apply_rules(objs)
    setup, why = setup_for(objs, features, work, opts, relax)
    deadline = deadline or Deadline(opts.time_limit)
    nodes = sorted(objs.nodes, key=lambda n: n.name.encode())
    claims = {setup.shapes[p.name]: shape_claims(p, work.demand.shared) for p in work.demand.pods}

    def claim_cost(k: str) -> int | None:
        c = setup.running.claims.get(k)
        if c is None or c.shares or any(u not in setup.weight for u in c.users):
            return None
        return sum(setup.weight[u] for u in c.users)

    others = {setup.shapes[k]: m.instances(0) for k, m in setup.movers.items()}
    screener = Screener(objs, features, claims, setup.running, claim_cost, work.demand.total(), others)
    tick = counter(opts.progress, "make-room: screening nodes")
    screens = {}
    for i, n in enumerate(nodes):
        screens[n.name] = screener.screen(n)
        if tick is not None and (i % 100 == 99 or i + 1 == len(nodes)):
            tick(i + 1, len(nodes))
    search = Search(setup, screens, nodes, deadline, opts.workers, opts.progress)
    if opts.mode == "move":
        search.dests = _destinations(setup, nodes, screens)
    if len(nodes) <= opts.whole:
        search.whole()
        return Outcome(setup, search, why)
    if opts.mode == "evict":
        search.evict()
        return Outcome(setup, search, why)
    first = replace(setup, mode="evict", movers={})
    ev = Search(first, screens, nodes, deadline, opts.workers, opts.progress)
    ev.evict()
    if ev.proven_infeasible or ev.best is None:
        ev.setup = setup
        return Outcome(setup, ev, why)
    search.region = ev.region
    search.move(ev.bound)
    return Outcome(setup, search, why)
