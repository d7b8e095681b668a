"""Joint placement: as many groups of claims (a pod's claims) as possible on
candidate nodes at once, one CP-SAT model, objective ``claims`` (weighted).

One encoding per node (the solver's own, with optional claims) shares one
model; ``z[g,n]`` says group g goes to node n, every claim of g is satisfied
on n exactly when ``z[g,n]`` holds, and a group goes to at most one node.
Devices published for several nodes (network-attached) are held by at most
one node's claims. Counters of pools shared by several nodes are not coupled
in the model: every answer is re-checked by the independent verifier, group
by group, and a group whose answer the verifier rejects is left out.

A group may *require* another (``requires``: a pod of a gang and its
PodGroup's claims, KEP-5729): it is placed only when the required group is,
and only on a node every device chosen for the required group is usable
from (a device on one node's slice pins that node; a network-attached
device admits the nodes its slice or device selects) -- the nodes the
claim's allocation will admit. The required group's claims are allocated
once, on one node's encoding, however many nodes its devices reach."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from dralloc.checker.rules import verify_allocation, with_allocation
from dralloc.encoders import choice, devices
from dralloc.encoders.linear import NeedsReplay
from dralloc.encoders.model import Encoding, add_rules
from dralloc.errors import AllocationError
from dralloc.features import Features, Variant
from dralloc.inventory.nodesel import NodeSelectorError, node_matches
from dralloc.inventory.pools import PoolDevice
from dralloc.inventory.problem import build_problem
from dralloc.io.loader import ObjectSet
from dralloc.models import AllocationResult, Node, ResourceClaim
from dralloc.solver.cpsat import decode, fill
from dralloc.solver.outcome import Outcome, Status
from dralloc.solver.search import run


@dataclass(frozen=True)
class Group:
    """Claims that must go to one node together (a pod's), and where they may."""

    key: str
    claims: tuple[ResourceClaim, ...]
    nodes: tuple[Node, ...]
    weight: int = 1


@dataclass
class JointResult:
    status: str                                   # OPTIMAL, FEASIBLE, INFEASIBLE, UNKNOWN, EMPTY
    value: int = 0                                # weight placed (after the verifier's re-check)
    bound: int = 0                                # CP-SAT's proven upper bound on the weight
    placed: dict[str, str] = field(default_factory=dict)          # group key -> node name
    allocations: dict[str, list[AllocationResult]] = field(default_factory=dict)
    wall_time: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def proven(self) -> bool:
        return self.status == "OPTIMAL"


@dataclass
class _NodeModel:
    node: Node
    enc: Encoding
    slots: dict[str, list[int]]                   # group key -> claim indices in enc


def _encode_node(model: cp_model.CpModel, objs: ObjectSet, node: Node, groups: list[Group],
                 allocated: list[ResourceClaim], features: Features, variant: Variant) -> _NodeModel | None:
    claims: list[ResourceClaim] = []
    slots: dict[str, list[int]] = {}
    for g in groups:
        slots[g.key] = list(range(len(claims), len(claims) + len(g.claims)))
        claims.extend(g.claims)
    try:
        problem = build_problem(objs.slices, objs.classes, node, claims, allocated, features, variant)
        enc = Encoding(problem, model, optional_claims=True)
        choice.add_choices(enc)
        add_rules(enc)
    except (AllocationError, NeedsReplay):
        return None
    return _NodeModel(node, enc, slots)


def _exclusive_across_nodes(model: cp_model.CpModel, nodes: list[_NodeModel]) -> None:
    held: dict[tuple[str, str, str], list[cp_model.IntVar]] = {}
    for nm in nodes:
        for pd, uses in nm.enc.uses_of_device().values():
            if devices._is_multi(nm.enc, pd):
                continue
            normal = [v for o, v in uses if not o.spec.admin]
            if normal:
                u = model.new_bool_var(f"holds[{nm.node.name}|{pd.label}]")
                model.add_max_equality(u, normal)
                held.setdefault(pd.id, []).append(u)
    for us in held.values():
        if len(us) > 1:
            model.add(sum(us) <= 1)


def _reach(pd: PoolDevice) -> tuple[str | None, bool | None, object] | None:
    """Which nodes may use ``pd``: (nodeName, allNodes, nodeSelector) of its
    slice, or of the device under per-device node selection; None: every node."""
    sp = pd.slice.spec
    if sp.node_name or sp.all_nodes or sp.node_selector is not None:
        spec: tuple[str | None, bool | None, object] = (sp.node_name, sp.all_nodes, sp.node_selector)
    else:
        spec = (pd.device.node_name, pd.device.all_nodes, pd.device.node_selector)
    return None if spec[1] and not spec[0] else spec


def _couple(model: cp_model.CpModel, nodes: list[_NodeModel], z: dict[tuple[str, str], cp_model.IntVar],
            groups: dict[str, Group], requires: dict[str, str]) -> None:
    """Each group placed only with its required group and on a node the
    devices chosen for that group reach."""
    placed = {k: sum(v for (g, _), v in z.items() if g == k) for k in groups}
    for dep, pre in requires.items():
        model.add(placed[dep] <= placed[pre])
    used: dict[str, cp_model.IntVar] = {}
    reach: dict[str, tuple[str | None, bool | None, object]] = {}
    for nm in nodes:
        for c in nm.slots.get(next(iter(set(requires.values())), ""), []):
            for o in nm.enc.options_of(c):
                for pd, var in o.devices:
                    spec = _reach(pd)
                    if spec is None:
                        continue
                    label = repr(spec)
                    if label not in used:
                        used[label], reach[label] = model.new_bool_var(f"reach[{label}]"), spec
                    model.add_implication(var, used[label])
    for label, spec in reach.items():
        for dep in requires:
            names = [spec[0]] if spec[0] else [n.name for n in groups[dep].nodes if _matches(n, spec)]
            ok = [z[(dep, name)] for name in names if (dep, name) in z]
            model.add(sum(ok) >= placed[dep] + used[label] - 1)


def _matches(node: Node, spec: tuple[str | None, bool | None, object]) -> bool:
    try:
        return node_matches(node, spec[0], spec[1], spec[2])   # type: ignore[arg-type]
    except NodeSelectorError:
        return False   # the allocator refuses the slice (gather pool information)


def place_jointly(objs: ObjectSet, groups: list[Group], allocated: list[ResourceClaim],
                  features: Features, variant: Variant | None = None, time_limit: float = 10.0,
                  workers: int = 1, hint: dict[str, str] | None = None,
                  requires: dict[str, str] | None = None) -> JointResult:
    """Place as many ``groups`` (weighted) as possible, ``allocated`` fixed;
    ``hint`` (group key -> node name, e.g. a greedy answer) guides the search;
    ``requires`` (group -> the group it needs, one for all) couples a gang's
    pods to its group claims."""
    t0 = time.perf_counter()
    var = variant or features.variant()
    model = cp_model.CpModel()
    by_node: dict[str, tuple[Node, list[Group]]] = {}
    for g in groups:
        for n in g.nodes:
            by_node.setdefault(n.name, (n, []))[1].append(g)
    nodes = [nm for n, gs in by_node.values()
             if (nm := _encode_node(model, objs, n, gs, allocated, features, var)) is not None]
    z: dict[tuple[str, str], cp_model.IntVar] = {}
    for nm in nodes:
        for gkey, idx in nm.slots.items():
            lit = z[(gkey, nm.node.name)] = model.new_bool_var(f"z[{gkey}@{nm.node.name}]")
            for c in idx:
                model.add(nm.enc.sat[c] == lit)
    for g in groups:
        lits = [v for (k, _), v in z.items() if k == g.key]
        if lits:
            model.add_at_most_one(lits)
    _exclusive_across_nodes(model, nodes)
    if requires:
        _couple(model, nodes, z, {g.key: g for g in groups}, requires)
    if not z:
        return JointResult("EMPTY", wall_time=time.perf_counter() - t0)
    weight = {g.key: g.weight for g in groups}
    for (gkey, nname), v in z.items():
        if hint is not None:
            model.add_hint(v, hint.get(gkey) == nname)
    model.maximize(sum(weight[k] * v for (k, _), v in z.items()))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    solver.parameters.max_time_in_seconds = time_limit
    ran = run(solver, model)
    code = ran.status
    res = JointResult(ran.name, notes=list(ran.notes))
    if (words := ran.stopped_words("the joint search")) is not None:
        res.notes.append(words + (" before proving the optimum" if code == cp_model.FEASIBLE else " without an answer"))
    if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        res.bound = round(solver.best_objective_bound)
        _decode(res, solver, nodes, z, {g.key: g for g in groups}, objs, allocated, features, var)
    res.wall_time = time.perf_counter() - t0
    return res


def _decode(res: JointResult, solver: cp_model.CpSolver, nodes: list[_NodeModel],
            z: dict[tuple[str, str], cp_model.IntVar], groups: dict[str, Group], objs: ObjectSet,
            allocated: list[ResourceClaim], features: Features, variant: Variant) -> None:
    held = list(allocated)
    for nm in nodes:
        out = Outcome(Status.ERROR, "optimal", nm.node.name, [])
        fill(out, nm.enc, *decode(nm.enc, solver))
        for gkey, idx in nm.slots.items():
            if not solver.boolean_value(z[(gkey, nm.node.name)]):
                continue
            assert out.allocations is not None
            allocs = [out.allocations[i] for i in idx]
            claims = list(groups[gkey].claims)
            errors = [f for f in verify_allocation(objs.slices, objs.classes, nm.node, claims, allocs, held,
                                                   features, variant) if f.level == "error"]
            if errors:
                res.notes.append(f"{gkey} on node {nm.node.name} left out: the verifier rejects the joint "
                                 f"answer ({errors[0]})")
                continue
            res.placed[gkey] = nm.node.name
            res.allocations[gkey] = allocs
            res.value += groups[gkey].weight
            held.extend(with_allocation(c, a) for c, a in zip(claims, allocs, strict=True))
