"""The objects of a cluster, indexed by node and pool, kept up to date as
objects are added, replaced and removed, and as claims are allocated and
released. Every lookup an allocation call needs is a dictionary access; the
per-node view (the slices of the pools that can concern the node) is cached
and dropped only when one of its pools or the node changes.

Every method that reads or changes the state takes the store's lock (a
re-entrant one), so a cluster may be shared between threads; every change is
stamped (:class:`~dralloc.cluster.guard.Changes`) for commit's staleness check."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import wraps
from typing import Any, TypeVar

from dralloc.cluster.foreign import ForeignPools
from dralloc.cluster.free import FreeIndex, Needs
from dralloc.cluster.guard import Changes
from dralloc.cluster.index import EVERY_NODE, Key, PoolKey, SliceIndex, pool_key
from dralloc.cluster.ledger import Ledger, claim_key, is_allocated, normal_key, result_pools
from dralloc.cluster.order import NodeTree
from dralloc.errors import AllocationError, InputError
from dralloc.extended import ExtendedReader, used_on
from dralloc.features import Features, Variant
from dralloc.inventory.pools import Pool, gather_pools
from dralloc.io.loader import ObjectSet
from dralloc.models import (
    CompositePodGroup,
    DeviceClass,
    DeviceTaintRule,
    Node,
    ObjectMeta,
    Pod,
    PodDisruptionBudget,
    PodGroup,
    PriorityClass,
    ResourceClaim,
    ResourceClaimStatus,
    ResourceClaimTemplate,
    ResourceSlice,
    TypedObject,
    Workload,
)
from dralloc.validation.admission import admit_object

GATHERED_NODES = 128   # nodes whose gathered pools are kept between calls


@dataclass
class NodeView:
    pools: set[PoolKey]        # pools that can concern the node (a superset of what it gathers)
    objects: ObjectSet         # their slices in input order, the classes, the node


def _ns_key(obj: TypedObject) -> str:
    return f"{obj.namespace or 'default'}/{obj.name}"


F = TypeVar("F", bound=Callable[..., Any])


def locked(method: F) -> F:
    """Run ``method`` holding the store's lock."""
    @wraps(method)
    def run(self: ClusterStore, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)
    return run  # type: ignore[return-value]


class ClusterStore:
    def __init__(self, features: Features, variant: Variant, admission: bool = True) -> None:
        self.features = features
        self.variant = variant
        self.admission = admission
        self._index = SliceIndex()
        self._ledger = Ledger()
        self._foreign = ForeignPools(self._index, self._ledger, features, variant)
        self._free = FreeIndex(self._index, features, variant)
        self._gathered: OrderedDict[str, list[Pool]] = OrderedDict()   # node -> its view's pools (LRU)
        self._nodes: dict[str, Node] = {}
        self._tree = NodeTree()
        self._classes: list[DeviceClass] = []
        self._claims: dict[str, ResourceClaim] = {}
        self._templates: dict[str, ResourceClaimTemplate] = {}
        self._pods: dict[str, Pod] = {}
        self._gang_objects: dict[tuple[str, str], Workload | PodGroup | CompositePodGroup] = {}
        self._extended: ExtendedReader | None = None     # built on demand (dralloc.cluster.Cluster.extended)
        self._bound: dict[str, dict[str, int]] | None = None   # node -> extended resources its bound pods request
        self._taken: dict[str, dict[str, int]] = {}       # node -> device-plugin resources committed here
        self._views: dict[str, NodeView] = {}
        self._viewers: dict[PoolKey, set[str]] = {}      # pool -> nodes whose cached view holds it
        self._journal: list[tuple[str, ResourceClaim | None, int | None]] | None = None   # for trial()
        self._lock = threading.RLock()
        self._changes = Changes()
        self._token = object()   # names this cluster in the answers it gives (Basis.owner)
        self._taken_journal: list[tuple[str, dict[str, int]]] | None = None

    # ------------------------------------------------------------ adding objects

    def add(self, objects: ObjectSet | Iterable[TypedObject]) -> None:
        """Add objects (each admitted, unless the cluster takes its input
        without admission); one of the same kind and name (namespace/name
        for namespaced kinds) replaces the one held. ResourceClaims with an
        allocation count as allocated."""
        items = list(objects.all() if isinstance(objects, ObjectSet) else objects)
        items = [admit_object(o) for o in items] if self.admission else items
        with self._lock:
            self._add_all(items)

    def _add_all(self, items: Iterable[TypedObject]) -> None:
        for obj in items:
            if isinstance(obj, ResourceSlice):
                self._put_slice(obj)
            elif isinstance(obj, Node):
                self._put_node(obj)
            elif isinstance(obj, DeviceClass):
                self._add_class(obj)
                self._extended = None
            elif isinstance(obj, ResourceClaim):
                self._record(obj)
            elif isinstance(obj, ResourceClaimTemplate):
                self._templates[_ns_key(obj)] = obj
            elif isinstance(obj, Pod):
                self._pods[_ns_key(obj)] = obj
                self._extended, self._bound = None, None
            elif isinstance(obj, (Workload, PodGroup, CompositePodGroup)):
                # gangs (scheduling.k8s.io): not what the allocator sees, but which claims a pod uses
                self._gang_objects[(obj.kind, _ns_key(obj))] = obj
            elif isinstance(obj, (PodDisruptionBudget, PriorityClass)):
                continue   # budgets and priorities do not change what the allocator sees
            elif isinstance(obj, DeviceTaintRule):
                continue   # applied to the slices by those who read them (dralloc.inventory.taintrules)
            else:
                raise InputError(f"a cluster holds no {type(obj).__name__} objects")

    def _add_class(self, cls: DeviceClass) -> None:
        """A new list (answers being computed keep the one they read), and
        every cached view dropped."""
        classes = list(self._classes)
        at = next((i for i, c in enumerate(classes) if c.name == cls.name), None)
        if at is None:
            classes.append(cls)
        else:
            classes[at] = cls
        self._classes = classes
        self._changes.class_changed()
        self._views.clear()
        self._viewers.clear()
        self._free.clear()
        self._gathered.clear()

    def add_slices(self, slices: Iterable[ResourceSlice]) -> None:
        """Add slices (admitted); a slice with the name of one held replaces
        it, in its place (input order matters to the stable allocator)."""
        items = [admit_object(s) if self.admission else s for s in slices]
        with self._lock:
            for s in items:
                self._put_slice(s)

    def _put_slice(self, s: ResourceSlice) -> None:
        seqs = self._index.names.get(s.name, [])
        seq = seqs[0] if len(seqs) == 1 else None
        if seq is not None:
            self._drop_slice(seq)
        _, keys = self._index.add(s, seq)
        self._touch_pool(pool_key(s), keys)

    @locked
    def remove_slices(self, names: Iterable[str]) -> list[ResourceSlice]:
        """Remove the slices with these names; returns what was removed."""
        out = []
        for name in names:
            for seq in list(self._index.names.get(name, [])):
                out.append(self._drop_slice(seq))
        return out

    def _drop_slice(self, seq: int) -> ResourceSlice:
        s, keys = self._index.remove(seq)
        self._touch_pool(pool_key(s), keys)
        return s

    def _touch_pool(self, pool: PoolKey, keys: set[Key]) -> None:
        self._changes.pool(pool)
        self._foreign.slices_changed(pool)
        if len({p[0] for p in self._index.counter_names.get(pool[1], ())}) > 1:
            self._free.clear()   # counters keyed by a pool name two drivers use (T-13): not trusted any more
        for name in self._viewers.pop(pool, set()):
            self._forget(name)
        if EVERY_NODE in keys:
            for name in list(self._views):
                self._forget(name)
            return
        for k in keys:
            if k[0] in ("node", "field"):
                self._forget(k[1])
            elif k[0] == "label":
                for name in [n for n in self._views if self.node(n).labels.get(k[1]) == k[2]]:
                    self._forget(name)

    def add_node(self, node: Node) -> None:
        """Add or replace (by name) a Node."""
        node = admit_object(node) if self.admission else node
        with self._lock:
            self._put_node(node)

    def _put_node(self, node: Node) -> None:
        self._changes.node(node.name)
        self._nodes[node.name] = node
        self._tree.add(node)
        self._forget(node.name)

    @locked
    def remove_node(self, name: str, slices: bool = True) -> Node | None:
        """Remove a Node and (``slices``) the slices bound to it by nodeName."""
        self._changes.node(name)
        node = self._nodes.pop(name, None)
        self._tree.remove(name)
        self._forget(name)
        if slices:
            for seq in sorted(self._index.bound.get(name, ())):
                self._drop_slice(seq)
        return node

    def _forget(self, name: str) -> None:
        self._free.forget(name, static=True)
        self._gathered.pop(name, None)
        view = self._views.pop(name, None)
        if view is None:
            return
        for p in view.pools:
            viewers = self._viewers.get(p)
            if viewers is not None:
                viewers.discard(name)

    # ------------------------------------------------------------ claims

    def record(self, claim: ResourceClaim) -> None:
        """Hold ``claim`` as it is (allocated or not; admitted first unless
        the cluster takes its input without admission), replacing one of its key."""
        claim = admit_object(claim) if self.admission else claim
        with self._lock:
            self._record(claim)

    def _record(self, claim: ResourceClaim) -> None:
        key = claim_key(claim)
        if self._journal is not None:
            self._journal.append((key, self._claims.get(key), self._ledger.seq_of.get(key)))
        self._put(key, claim)

    def _put(self, key: str, claim: ResourceClaim | None, seq: int | None = None) -> None:
        for p in self._ledger.pools_held(key):
            self._pool_claims_changed(p)
        self._ledger.remove(key)
        if claim is None:
            self._claims.pop(key, None)
            return
        self._claims[key] = claim
        if is_allocated(claim):
            self._ledger.add(claim, seq)
            for p in result_pools(claim):
                self._pool_claims_changed(p)

    def _pool_claims_changed(self, pool: PoolKey) -> None:
        self._changes.pool(pool)
        self._foreign.claims_changed(pool)
        for name in self._viewers.get(pool, ()):
            self._free.forget(name)

    @contextmanager
    def trial(self) -> Iterator[None]:
        """Claims recorded, committed or released inside the ``with`` block
        are put back as they were, and device-plugin resources taken, when
        it ends (what-if questions).

        The block holds the cluster's lock from start to end: other threads
        calling the cluster wait until it ends, so they never see (nor
        answer from, nor have undone) the block's what-if state, and the
        block sees no change but its own. Do not wait inside a trial for
        another thread that uses the cluster: it would wait for the trial."""
        with self._lock:
            outer, self._journal = self._journal, []
            outer_taken, self._taken_journal = self._taken_journal, []
            try:
                yield
            finally:
                for key, claim, seq in reversed(self._journal):
                    self._put(key, claim, seq)
                for node, before in reversed(self._taken_journal):
                    self._taken[node] = before
                self._journal = outer
                self._taken_journal = outer_taken

    # ------------------------------------------------------------ device plugins

    @locked
    def plugin_used(self, node: str) -> dict[str, int]:
        """The extended resources pods hold on ``node`` (those bound to it and
        not finished, and those committed here that its device plugins
        serve): what the NodeResourcesFit plugin subtracts from the node's
        ``status.allocatable``."""
        if self._bound is None:
            self._bound = used_on(self._pods.values())
        out = dict(self._bound.get(node, {}))
        for n, v in self._taken.get(node, {}).items():
            out[n] = out.get(n, 0) + v
        return out

    @locked
    def take_plugin(self, node: str, counts: dict[str, int]) -> None:
        """Record that a pod placed on ``node`` takes ``counts`` of its device plugins' resources."""
        before = dict(self._taken.get(node, {}))
        if self._taken_journal is not None:
            self._taken_journal.append((node, before))
        self._taken[node] = {n: before.get(n, 0) + counts.get(n, 0) for n in sorted(set(before) | set(counts))}

    @locked
    def release(self, key: str) -> ResourceClaim | None:
        """Deallocate the claim ``key`` (it stays, without an allocation);
        returns the claim as it was allocated, or None if it was not."""
        key = normal_key(key)
        held = self._claims.get(key)
        if held is None or not is_allocated(held):
            return None
        status = held.status.model_copy(update={"allocation": None}) if held.status else ResourceClaimStatus()
        self._record(held.model_copy(update={"status": status}))
        return held

    # ------------------------------------------------------------ lookups

    def node(self, name: str) -> Node:
        """The Node of that name; a bare Node (no labels) when none is held."""
        found = self._nodes.get(name)
        return found if found is not None else Node(metadata=ObjectMeta(name=name))

    @locked
    def nodes(self) -> list[Node]:
        """The Nodes in the scheduler's order (:mod:`dralloc.cluster.order`)."""
        return [self._nodes[n] for n in self._tree.listed()]

    @locked
    def ordered(self) -> tuple[list[str], list[Node]]:
        """The Nodes' names and the Nodes, in the scheduler's order."""
        names = list(self._tree.listed())
        return names, [self._nodes[n] for n in names]

    def claim(self, key: str) -> ResourceClaim | None:
        return self._claims.get(normal_key(key))

    def template(self, key: str) -> ResourceClaimTemplate | None:
        return self._templates.get(normal_key(key))

    def pod(self, key: str) -> Pod | None:
        return self._pods.get(normal_key(key))

    @locked
    def allocated(self) -> list[ResourceClaim]:
        """The allocated claims, in the order they became allocated."""
        return self._ledger.all()

    @locked
    def objects(self) -> ObjectSet:
        """Everything held, as one ObjectSet (slices in input order)."""
        return ObjectSet(slices=self._index.all_slices(), classes=list(self._classes),
                         claims=list(self._claims.values()), templates=list(self._templates.values()),
                         nodes=list(self._nodes.values()), pods=list(self._pods.values()))

    # ------------------------------------------------------------ per-node views

    @locked
    def view(self, node: Node) -> NodeView:
        """The slices that can concern ``node`` (whole pools, input order),
        the classes and the node. Cached for held nodes."""
        cached = self._views.get(node.name)
        held = self._nodes.get(node.name)
        if cached is None or held is not node:
            pools = self._index.pools_for(node)
            cached = NodeView(pools, ObjectSet(slices=self._index.slices_of(pools), classes=self._classes,
                                               nodes=[node]))
            if held is node:
                self._views[node.name] = cached
                for p in pools:
                    self._viewers.setdefault(p, set()).add(node.name)
        extra = self._foreign.current() - cached.pools
        if not extra:
            return cached
        pools = cached.pools | extra
        return NodeView(pools, ObjectSet(slices=self._index.slices_of(pools), classes=self._classes, nodes=[node]))

    @locked
    def gathered(self, node: Node, view: NodeView) -> list[Pool] | None:
        """The pools of ``node``'s cached view as the allocator gathers them,
        kept for the :data:`GATHERED_NODES` nodes asked about last (the
        engines read them, and what they compute once per device, across
        calls); None when not kept (the engine gathers them itself)."""
        if self._views.get(node.name) is not view:
            return None
        got = self._gathered.get(node.name)
        if got is not None:
            self._gathered.move_to_end(node.name)
            return got
        try:
            got = gather_pools(view.objects.slices, node, self.features, self.variant)
        except AllocationError:
            return None   # the engine reports it
        self._gathered[node.name] = got
        if len(self._gathered) > GATHERED_NODES:
            self._gathered.popitem(last=False)
        return got

    @locked
    def held_for(self, view: NodeView, skip: Iterable[str] = ()) -> list[ResourceClaim]:
        """The allocated claims holding a device in one of the view's pools."""
        return self._ledger.holding(view.pools, skip)

    @locked
    def cannot_hold(self, node: Node, needs: Needs, keys: Iterable[str]) -> bool:
        """Whether ``node``'s free devices are proven too few for claims
        needing ``needs`` (:mod:`dralloc.cluster.free`); False when not sure
        (a node not held, foreign pools in its view, one of the claims
        ``keys`` allocated already)."""
        return self.next_candidate([node], 0, needs, keys) == 1

    @locked
    def next_candidate(self, nodes: list[Node], start: int, needs: Needs, keys: Iterable[str],
                       names: list[str] | None = None) -> int:
        """The index of the first of ``nodes[start:]`` that is not proven
        unable to hold claims needing ``needs`` (``len(nodes)``: none);
        ``names``: the nodes' names, when the caller has them (the scheduler's
        order: :meth:`ordered`). One dictionary look-up per node whose verdict
        is known: a scan over a thousand full nodes costs well under a millisecond."""
        if any(k in self._ledger.seq_of for k in keys):
            return start
        free = self._free
        held = self._nodes
        known = free.known_verdicts(needs)
        for i in range(start, len(nodes)):
            node = nodes[i]
            name = names[i] if names is not None else node.name
            if held.get(name) is not node:
                return i
            verdict = known(name)
            if verdict is None:
                view = self.view(node)
                if self._views.get(node.name) is not view:
                    return i
                pools = view.pools
                verdict = free.cannot_hold(node, view.objects.slices, view.objects.classes,
                                           lambda: self._ledger.holding(pools), needs)   # noqa: B023 (called here)
            if not verdict:
                return i
        return len(nodes)
