"""One call per question, from files: what the command line and sweeps use."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dralloc.errors import InputError
from dralloc.features import Features
from dralloc.inventory.compat import declares_groups
from dralloc.io import ObjectSet, load
from dralloc.io.progress import Progress, counter
from dralloc.models import Node
from dralloc.planner.answer import PLACES_EVERYTHING, Answer, express
from dralloc.planner.objective import DEFAULT as DEFAULT_OBJECTIVE
from dralloc.planner.objective import check as check_objective
from dralloc.planner.questions import QUESTIONS
from dralloc.planner.questions.fragmentation import fragmentation
from dralloc.planner.questions.general import add_nodes_answer, fit_answer
from dralloc.planner.questions.grow import Grower, unit_from
from dralloc.planner.questions.pattern import add_nodes, fit, layout
from dralloc.planner.questions.repack import mixed_fragmentation
from dralloc.planner.simulate.podsim import NodeObjects, probes
from dralloc.planner.view.cluster import Cluster, build_cluster
from dralloc.planner.view.demand import Demand, demand_from
from dralloc.planner.view.pods import PodsDemand, device_plugin_note, pods_demand
from dralloc.planner.view.weigh import weigh_pods, weigh_workloads
from dralloc.validation.admission import admit


@dataclass
class Options:
    policy: str = "first"
    time_limit: float | None = None
    workers: int = 2
    template: str | None = None        # node name for add-nodes
    gates: tuple[str, ...] | None = None  # None: the release's defaults
    kubernetes_version: str | None = None  # None: the default release (1.37)
    progress: Progress | None = None   # told where long work is (dralloc.io.progress)
    add: int = 0                       # fit: with this many copies of the template (node or block) added
    objective: str = DEFAULT_OBJECTIVE  # what the optimum maximises (dralloc.planner.objective)

    def features(self) -> Features:
        """The gates asked for (the release's defaults unless given), in the release."""
        return Features.of(self.gates, self.kubernetes_version)


def load_objects(paths: Sequence[str], strict: bool = False, last_wins: bool = False,
                 kubernetes_version: str | None = None) -> ObjectSet:
    """The objects in ``paths``, loaded and admitted (every problem raised at
    once); skipped documents, replaced duplicates and objects in API versions
    the release does not serve are in ``.warnings``."""
    return admit(load(paths, strict=strict, last_wins=last_wins, kubernetes_version=kubernetes_version))


def without_allocations(objs: ObjectSet) -> ObjectSet:
    out = ObjectSet()
    allocated = {id(c) for c in objs.claims if c.status and c.status.allocation}
    for o in objs.all():
        if id(o) not in allocated:
            out.add(o)
    return out


def answer(question: str, objs: ObjectSet, opts: Options, template_objs: ObjectSet | None = None) -> Answer:
    """The answer to ``question`` about ``objs`` (admitted first, as the
    template's objects)."""
    if question not in QUESTIONS:
        raise InputError(f"unknown question {question!r}; choose one of {', '.join(QUESTIONS)}")
    objs = admit(objs)
    template_objs = admit(template_objs) if template_objs is not None else None
    feats = opts.features()
    check_objective(opts.objective)
    if opts.add:
        if question != "fit":
            raise InputError(f"--add answers fit with added nodes; for {question} leave it out")
        objs = Grower(objs, unit_from(objs, template_objs, opts.template)).with_k(opts.add)
        template_objs = None
    objective = opts.objective if question not in PLACES_EVERYTHING else DEFAULT_OBJECTIVE
    if question == "fragmentation" and (pending := pods_demand(objs, feats)).pods and not pending.simple():
        per_node = _weigh(objs, pending, objective, feats)
        ans = mixed_fragmentation(objs, pending, feats, opts.time_limit, opts.workers, opts.progress, per_node)
        return express(ans, pending.weighing())
    if question == "fragmentation":
        state = build_cluster(objs, Demand(), feats, progress=counter(opts.progress, "nodes analysed"))
        empty = build_cluster(without_allocations(objs), Demand(), feats)
        ans = fragmentation(state, empty, opts.time_limit, opts.workers, groups=_groups_matter(objs, feats))
        ans.cluster = state
        ans.objective = {"name": opts.objective, "note": "no pending demand: the re-pack needs the fewest units for "
                                                         "what is allocated, whatever the objective"}
        return ans
    general = pods_demand(objs, feats)
    if not general.pods:
        raise InputError("no demand: give Pods (with ResourceClaimTemplates or extended resources a DeviceClass "
                         "serves) or unallocated ResourceClaims")
    ans = _answer(question, objs, general, opts, template_objs, objective)
    note = device_plugin_note(objs, feats)
    if note is not None:
        ans.optimal.setdefault("notes", []).append(note)
    return ans


def _answer(question: str, objs: ObjectSet, general: PodsDemand, opts: Options,
            template_objs: ObjectSet | None, objective: str) -> Answer:
    feats = opts.features()
    if not general.simple() or (template_objs is not None and len(template_objs.nodes) > 1) \
            or _groups_matter(objs, feats):
        per_node = _weigh(objs, general, objective, feats)
        return express(_ask_general(question, objs, general, opts, template_objs, per_node), general.weighing(),
                       opts.objective)
    demand = demand_from(objs, feats)
    if not demand.workloads:
        raise InputError("no demand: give Pods (with ResourceClaimTemplates) or unallocated ResourceClaims")
    nodes: list[Node] = list(objs.nodes)
    keep = True
    if template_objs is not None:
        for o in template_objs.all():
            objs.add(o)
        nodes += template_objs.nodes
        keep = False
    cluster = build_cluster(objs, demand, feats, nodes, progress=counter(opts.progress, "nodes analysed"))
    weigh_workloads(objs, demand, objective, feats, cluster.reps)
    ans = _ask(question, cluster, opts, keep)
    ans.cluster = cluster
    return express(ans, demand.weighing(), opts.objective)


def _weigh(objs: ObjectSet, demand: PodsDemand, objective: str, feats: Features) -> NodeObjects | None:
    """The demand weighed in ``objective``; for GPUs and devices the nodes'
    objects and fingerprints it took, for the simulation to reuse."""
    if objective not in ("gpus", "devices"):
        weigh_pods(objs, demand, objective, feats)
        return None
    per_node = NodeObjects(objs, probes(demand))
    reps: dict[object, Node] = {}
    for node in sorted(objs.nodes, key=lambda n: n.name.encode()):
        reps.setdefault(per_node.fingerprint(node), node)
    weigh_pods(objs, demand, objective, feats, list(reps.values()))
    return per_node


def _groups_matter(objs: ObjectSet, features: Features) -> bool:
    """Compatibility groups (DRADeviceCompatibilityGroups) decide which
    partitions go together: the pattern model's layouts do not know them, the
    allocator's encoding (the general models) does."""
    return features.compatibility_groups and any(
        declares_groups(d) for s in objs.slices for d in s.spec.devices or [])


def _ask_general(question: str, objs: ObjectSet, demand: PodsDemand, opts: Options,
                 template_objs: ObjectSet | None, per_node: NodeObjects | None = None) -> Answer:
    """Demand beyond one device per pod: the joint model over nodes."""
    feats = opts.features()
    if question == "layout" and demand.simple():
        raise InputError("layout's pattern model does not know compatibility groups (DRADeviceCompatibilityGroups "
                         "is on and devices declare them); ask fit or add-nodes")
    if question == "layout":
        raise InputError("layout answers for pods with one claim for one device; for this demand ask fit or add-nodes")
    if question == "fit":
        return fit_answer(objs, demand, feats, opts.time_limit, opts.workers, opts.progress, opts.policy,
                          per_node=per_node)
    if not opts.template:
        raise InputError("add-nodes needs --template NODE (a node of the cluster) or --template-file")
    return add_nodes_answer(objs, demand, feats, opts.template, template_objs, opts.time_limit, opts.workers,
                            policy=opts.policy, progress=opts.progress)


def _ask(question: str, cluster: Cluster, opts: Options, keep: bool) -> Answer:
    if question == "fit":
        return fit(cluster, opts.policy, opts.time_limit, opts.workers, opts.progress)
    if question == "layout":
        return layout(cluster, opts.policy, opts.time_limit, opts.workers, opts.progress)
    if not opts.template:
        raise InputError("add-nodes needs --template NODE (a node of the cluster) or --template-file")
    return add_nodes(cluster, opts.template, opts.policy, time_limit=opts.time_limit,
                     workers=opts.workers, keep=keep, progress=opts.progress)


def answer_files(question: str, cluster: Sequence[str], demand: Sequence[str], opts: Options,
                 template: Sequence[str] = (), strict: bool = False, last_wins: bool = False) -> dict[str, Any]:
    """A whole question from files (picklable: sweeps run it in workers); the
    warning lines of loading are under ``warnings``."""
    objs = load_objects([*cluster, *demand], strict, last_wins, opts.kubernetes_version)
    tmpl = load_objects(template, strict, last_wins, opts.kubernetes_version) if template else None
    if tmpl is not None and opts.template is None and tmpl.nodes:
        opts = Options(**{**opts.__dict__, "template": tmpl.nodes[0].name})
    out = answer(question, objs, opts, tmpl).as_dict()
    out["inputs"] = {"demand": list(demand), **({"template": list(template)} if template else {})}
    out["warnings"] = [*objs.warnings, *(tmpl.warnings if tmpl is not None else [])]
    return out
