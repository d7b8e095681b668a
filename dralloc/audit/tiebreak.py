"""Does Kubernetes place a gang now? Its gang cycle under every tie-break.

kube-scheduler's pod group cycle (``PodGroupSchedulingAlgorithm``) takes the
group's pending pods one by one; for each it filters the nodes (DRA: the
allocator allocates the pod's claims there, a PodGroup-level claim with the
first pod that needs it), scores the feasible ones and ``selectHost`` picks
one with the highest score, **breaking ties uniformly at random** (reservoir
sampling); the pod is assumed there and the next pod sees its devices taken.
At the end the group is placed if at least its minimum is (running pods
count), else every assumption is undone.

Which nodes may win: dralloc models one score, the DynamicResources plugin's
(``computeScore``: per allocated prioritized-list subrequest, 8 less its
index; exactly requests score 0; normalised to 0..100 over the nodes scored).
The other score plugins read CPU, memory, images, taints, affinities and
spreading, which dralloc does not model: they are taken to score every node
alike. With more than 100 nodes the scheduler scores only a window of
``numFeasibleNodesToFind`` feasible nodes, starting where the previous cycle
stopped (unknown here): a node can win when some window of that many
consecutive feasible nodes (in the scheduler's node order, round the end)
holds it and no node scoring higher.

The search (:func:`gang_cycle`) walks every choice: identical nodes in
identical states (same fingerprint, :mod:`dralloc.inventory.fingerprint`,
same devices allocated) lead to the same outcome and are tried once, and a
state met again is not searched again. Each allocator call (Kubernetes'
search, ``mode="replay"``) is taken from a :class:`~dralloc.audit.analysis.Budget`;
when it runs out, or a call stops at the replay's time limit, the answer is
``not-decided``, never a guess."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field

from dralloc.audit.analysis import Budget
from dralloc.audit.answers import Kube, budget_spent
from dralloc.checker.rules import with_allocation
from dralloc.cluster import Cluster
from dralloc.cluster.pods import answered, is_allocated, on_node
from dralloc.extended import allocatable, is_extended_claim
from dralloc.inventory.fingerprint import node_fingerprint, pool_names, read_attributes
from dralloc.models import AllocationResult, Node, ResourceClaim

MAX_NODE_SCORE = 100                 # framework.MaxNodeScore
FIRST_AVAILABLE_MAX = 8              # resourceapi.FirstAvailableDeviceRequestMaxSize
MIN_FEASIBLE_NODES = 100             # minFeasibleNodesToFind
MIN_FEASIBLE_PERCENT = 5             # minFeasibleNodesPercentageToFind


def feasible_nodes_to_find(all_nodes: int) -> int:
    """kube-scheduler's ``numFeasibleNodesToFind`` with the default adaptive
    percentage (``percentageOfNodesToScore`` unset)."""
    if all_nodes < MIN_FEASIBLE_NODES:
        return all_nodes
    percent = max(MIN_FEASIBLE_PERCENT, 50 - all_nodes // 125)
    return max(MIN_FEASIBLE_NODES, all_nodes * percent // 100)


def dra_score(claims: Sequence[ResourceClaim], allocations: Sequence[AllocationResult]) -> int:
    """The DynamicResources plugin's raw score of one node: for every
    prioritized-list request, 8 less the index of the subrequest allocated."""
    score = 0
    for claim, alloc in zip(claims, allocations, strict=True):
        got = {r.request for r in (alloc.devices.results or [])} if alloc.devices else set()
        for req in (claim.spec.devices.requests or []) if claim.spec.devices else []:
            for i, sub in enumerate(req.first_available or []):
                if f"{req.name}/{sub.name}" in got:
                    score += FIRST_AVAILABLE_MAX - i
    return score


def normalised(raw: list[int]) -> list[int]:
    """``DefaultNormalizeScore(MaxNodeScore, false)``."""
    top = max(raw, default=0)
    return [MAX_NODE_SCORE * s // top for s in raw] if top else [0] * len(raw)


def may_win(scores: list[int], window: int) -> list[bool]:
    """Per feasible node (in node order), whether selectHost can pick it:
    some run of ``window`` consecutive feasible nodes (circular) holds it and
    no higher score; with every node scored, the highest ones."""
    n = len(scores)
    if n <= window:
        top = max(scores, default=0)
        return [s == top for s in scores]
    right, left = _higher(scores, forward=True), _higher(scores, forward=False)
    return [left[i] + right[i] - 1 >= window for i in range(n)]


def _higher(scores: list[int], forward: bool) -> list[int]:
    """Per node, how far (circularly, in one direction) the nearest strictly
    higher score is; ``len(scores)`` when there is none (a monotonic stack
    over the list walked twice)."""
    n = len(scores)
    out = [n] * n
    stack: list[int] = []
    for j in (range(2 * n) if forward else range(2 * n - 1, -1, -1)):
        while stack and scores[stack[-1] % n] < scores[j % n]:
            k = stack.pop()
            out[k % n] = min(out[k % n], abs(j - k))
        stack.append(j)
    return out


@dataclass
class CyclePod:
    """One pending pod of the cycle: its claims in order (the group's claims
    share their key with the other pods; one allocated already is kept)."""

    key: str
    claims: tuple[ResourceClaim, ...]
    nodes: tuple[Node, ...] | None = None     # where it may go (None: every node)


@dataclass
class CycleResult:
    kube: Kube
    placed: dict[str, str] | None = None      # a cycle that places the gang: pod -> node
    refused: dict[str, str] | None = None     # a cycle that refuses it: the pods it placed before undoing
    calls: int = 0
    why: str = ""                             # for not-decided: what ended the search


class Undecided(Exception):
    pass


@dataclass
class _Step:
    node: Node
    claims: list[ResourceClaim]               # the pod's claims as allocated there
    plugin: dict[str, int] = field(default_factory=dict)   # what the node's device plugins give the pod


@dataclass
class _Search:
    cluster: Cluster
    pods: list[CyclePod]
    needed: int
    nodes: list[Node]
    budget: Budget
    group: set[str] = field(default_factory=set)     # keys of claims several pods share
    window: int = 0
    calls: int = 0
    examples: dict[bool, dict[str, str]] = field(default_factory=dict)
    _seen: dict[Hashable, frozenset[bool]] = field(default_factory=dict)
    _evals: dict[Hashable, tuple[bool, int, str, list[ResourceClaim]]] = field(default_factory=dict)
    fingerprint: Callable[[Node], Hashable] | None = None       # the caller's, for node-local nodes
    _base: dict[str, int | tuple[str, str]] = field(default_factory=dict)
    _ids: dict[Hashable, int] = field(default_factory=dict)       # fingerprint -> a small number
    _state0: dict[str, Hashable] = field(default_factory=dict)   # untouched node-local nodes
    _plugin: dict[tuple[str, tuple[str, ...]], dict[str, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.window = feasible_nodes_to_find(len(self.cluster.nodes()) or len(self.nodes))
        classes = self.cluster.view(self.nodes[0]).objects.classes if self.nodes else []
        self._read = read_attributes(classes, [c for p in self.pods for c in p.claims])
        seen: dict[str, int] = {}
        for p in self.pods:
            for c in p.claims:
                seen[c.key] = seen.get(c.key, 0) + 1
        self.group = {k for k, n in seen.items() if n > 1}

    # ------------------------------------------------------------ node identity

    def base(self, node: Node) -> int | tuple[str, str]:
        """The node's fingerprint as a small number (its name when one of its
        pools is not node-local: what other nodes do changes it)."""
        if node.name not in self._base:
            slices = self.cluster.view(node).objects.slices
            if all(s.spec.node_name == node.name for s in slices):
                fp = self.fingerprint(node) if self.fingerprint else node_fingerprint(node, slices, set(), self._read)
                self._base[node.name] = self._ids.setdefault(fp, len(self._ids))
            else:
                self._base[node.name] = ("node", node.name)
        return self._base[node.name]

    def state(self, node: Node, touched: set[str]) -> Hashable:
        """The node's identity and what is allocated on it now: (role,
        driver, pool position, device), pool and node names aside. Only
        nodes the cycle touched (or that share a pool) change during it."""
        base = self.base(node)
        fixed = node.name not in touched and isinstance(base, int)
        if fixed and node.name in self._state0:
            return self._state0[node.name]
        view = self.cluster.view(node)
        pos = {k: i for i, k in enumerate(pool_names(view.objects.slices))}
        out = []
        for c in self.cluster.held_for(view):
            role = "group" if c.key in self.group else "held"
            alloc = c.status.allocation if c.status else None
            for r in (alloc.devices.results or []) if alloc and alloc.devices else []:
                if (r.driver, r.pool) in pos:
                    out.append((role, r.driver, pos[(r.driver, r.pool)], r.device))
        key = (base, tuple(sorted(out)), self._devices_of_plugins(node))
        if fixed:
            self._state0[node.name] = key
        return key

    def _devices_of_plugins(self, node: Node) -> Hashable:
        """What the node's device plugins advertise and hand out, where a
        pod of the cycle asks for extended resources (else nothing)."""
        if not any(is_extended_claim(c) for p in self.pods for c in p.claims):
            return ()
        return (tuple(sorted(allocatable(node).items())), tuple(sorted(self.cluster.plugin_used(node.name).items())))

    # ------------------------------------------------------------ one pod

    def claims_of(self, pod: CyclePod) -> list[ResourceClaim]:
        """The pod's claims as the cluster holds them now (a group claim
        allocated by an earlier pod of the cycle is kept)."""
        return [self.cluster.claim(c.key) or c if c.key in self.group else c for c in pod.claims]

    def call(self, node: Node, claims: list[ResourceClaim]) -> tuple[bool, int, list[ResourceClaim]]:
        def run(todo: list[ResourceClaim]) -> object:
            if not self.budget.take():
                raise Undecided(budget_spent(self.budget.limit))
            self.calls += 1
            out = self.cluster.allocate(node, todo, mode="replay", verify=False)
            if any(n.startswith("replay stopped") for n in out.notes):
                raise Undecided(f"Kubernetes' search on node {node.name} stopped at the replay's time limit")
            return out

        out = on_node(node, claims, "replay", run, self.cluster.extended())   # type: ignore[arg-type]
        if not out.ok or out.allocations is None:
            return False, 0, []
        new = [(c, a) for c, a in zip(answered(out, claims), out.allocations, strict=True) if not is_allocated(c)]
        done = [with_allocation(c, a) for c, a in new]
        self._plugin[(node.name, tuple(c.key for c in claims))] = dict(out.device_plugin)
        return True, dra_score([c for c, _ in new], [a for _, a in new]), done

    def options(self, i: int, touched: set[str]) -> list[_Step]:
        """The nodes selectHost may pick for pod ``i`` now, one per class of
        identical nodes, each with the pod's claims as allocated there."""
        pod = self.pods[i]
        claims = self.claims_of(pod)
        shared = tuple(sorted((c.key, repr(c.status.allocation if c.status else None)) for c in claims
                              if c.key in self.group and is_allocated(c)))
        feasible: list[tuple[Node, Hashable, int]] = []
        for node in self.nodes if pod.nodes is None else pod.nodes:
            key: Hashable = (self.state(node, touched), i, shared)
            if key not in self._evals:
                self._evals[key] = (*self.call(node, claims)[:2], node.name, [])
            fits, score, _, _ = self._evals[key]
            if fits:
                feasible.append((node, key, score))
        wins = may_win(normalised([s for _, _, s in feasible]), self.window)
        out, classes = [], set()
        for (node, key, _), win in zip(feasible, wins, strict=True):
            if win and key not in classes:
                classes.add(key)
                fits, _, done = self.call(node, claims)
                if fits:
                    out.append(_Step(node, done, self._plugin.get((node.name, tuple(c.key for c in claims)), {})))
        return out

    # ------------------------------------------------------------ the cycle

    def outcomes(self, i: int, placed: dict[str, str]) -> frozenset[bool]:
        """Whether the cycle from pod ``i`` on can end placed (True) and
        refused (False); one example of each is kept."""
        if len(placed) + len(self.pods) - i < self.needed or i == len(self.pods):
            ok = len(placed) >= self.needed and len(placed) > 0
            self.examples.setdefault(ok, dict(placed))
            return frozenset({ok})
        touched = set(placed.values())
        states = Counter(self.state(self.cluster.node(n), touched) for n in touched)
        memo = (i, len(placed), frozenset(states.items()))
        if memo in self._seen:
            return self._seen[memo]
        steps: list[_Step | None] = [*self.options(i, touched)] or [None]
        found: set[bool] = set()
        for step in steps:
            with ExitStack() as stack:
                stack.enter_context(self.cluster.trial())
                if step is not None:
                    for c in step.claims:
                        self.cluster.record(c)
                    if step.plugin:
                        self.cluster.take_plugin(step.node.name, step.plugin)
                nxt = {**placed, self.pods[i].key: step.node.name} if step is not None else placed
                found |= self.outcomes(i + 1, nxt)
            if found == {True, False}:
                break
        self._seen[memo] = frozenset(found)
        return self._seen[memo]


def gang_cycle(cluster: Cluster, pods: Sequence[CyclePod], needed: int, nodes: Sequence[Node],
               budget: Budget, fingerprint: Callable[[Node], Hashable] | None = None) -> CycleResult:
    """Kubernetes' gang cycle for ``pods`` (in cycle order) on the cluster as
    it holds the allocations now, under every tie-break: placed, refused,
    depending on the tie-break, or not decided (budget, time limit). The
    cluster is left as it was. ``fingerprint``: the caller's node identity
    (the same for nodes the allocator cannot tell apart, allocations aside)."""
    search = _Search(cluster, list(pods), needed, list(nodes), budget, fingerprint=fingerprint)
    try:
        with cluster.trial():
            found = search.outcomes(0, {})
    except Undecided as e:
        return CycleResult(Kube.NOT_DECIDED, search.examples.get(True), search.examples.get(False),
                           search.calls, str(e))
    kube = Kube.TIE_BREAK if found == {True, False} else Kube.PLACED if True in found else Kube.REFUSED
    return CycleResult(kube, search.examples.get(True), search.examples.get(False), search.calls)
