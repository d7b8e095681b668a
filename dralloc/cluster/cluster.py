"""``Cluster``: a loaded cluster that answers allocation questions one after
another — allocate a pod's claims on a node, find the nodes that fit, commit
an answer, release a claim, add or remove slices and nodes — each at the cost
of the node it is about, not of the cluster.

Every answer is the one :func:`dralloc.solver.allocate` gives on the whole
cluster (same engines, same checks): a call hands the engine the node's view
(the slices of the pools that can concern it, :mod:`.index`) and the allocated
claims holding devices in those pools (:mod:`.ledger`), which is all the
allocator's pool gathering and allocated state ever look at for that node."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from dralloc.checker.rules import with_allocation
from dralloc.cluster.free import need_of
from dralloc.cluster.guard import (
    Basis,
    claim_changed,
    new_violations,
    plugin_short,
    result_pools,
    stale,
)
from dralloc.cluster.ledger import claim_key
from dralloc.cluster.pods import answered, for_node, on_node, pod_claims
from dralloc.cluster.store import ClusterStore, NodeView
from dralloc.errors import InputError
from dralloc.extended import ExtendedReader, allocatable, is_extended_claim
from dralloc.features import Features, Variant
from dralloc.gangs import GangReader
from dralloc.inventory.problem import Problem, build_problem
from dralloc.io.loader import ObjectSet, load
from dralloc.io.sources import Input, release
from dralloc.models import Node, Pod, ResourceClaim, TypedObject
from dralloc.solver.api import allocate
from dralloc.solver.outcome import Outcome, Status
from dralloc.solver.shareids import ShareIDPolicy
from dralloc.validation.admission import admit, admit_object

ClaimsArg = Iterable[ResourceClaim | str] | None
PodArg = Pod | str | None


class Cluster(ClusterStore):
    """A cluster held in memory, indexed by node and pool.

    ``features`` and ``variant`` are those of :func:`dralloc.solver.allocate`
    (default: the gates Kubernetes ``kubernetes_version`` has on, 1.37 unless
    given, and the variant it picks) and hold for every call (a cluster's
    scheduler runs with one set of feature gates). Objects are read from
    ``objects`` (an :class:`~dralloc.io.ObjectSet` or models); :meth:`load`
    reads files. With ``admission`` (the default, as for ``allocate()``) the
    objects pass the API server's defaults and validation once, here, and
    every object added or claim given later on its own; without it they are
    taken as the allocator's own input (as scenario files are).

    **Answers and commits.** An answer (:meth:`allocate`, :meth:`fits`) is
    computed from one moment of the cluster and carries that moment
    (``Outcome.basis``); :meth:`commit` re-checks it against the cluster as
    it is now and refuses one that no longer holds
    (:class:`~dralloc.errors.StaleAnswerError`, naming the device or claim;
    nothing recorded). **Threads** may share a cluster: what an answer is
    computed from is read under the cluster's (re-entrant) lock, and so are
    commit (check and record in one step), release, record, add and remove;
    the engines run outside it. A :meth:`trial` block holds the lock until it
    ends: other threads wait for it, never see its what-if claims nor have
    theirs undone by it (do not wait inside a trial for another thread that
    uses the cluster)."""

    def __init__(self, objects: ObjectSet | Iterable[TypedObject] = (),
                 features: Features | Iterable[str] | None = None, variant: Variant | str | None = None,
                 admission: bool = True, kubernetes_version: str | None = None) -> None:
        feats = Features.of(features, kubernetes_version)
        super().__init__(feats, Variant(variant) if variant is not None else feats.variant(), admission)
        objs = objects if isinstance(objects, ObjectSet) else ObjectSet.of(list(objects))
        if admission:
            objs = admit(objs)
        items = list(objs.all())
        _refuse_duplicates(items)
        self._add_all(items)

    @classmethod
    def load(cls, paths: Iterable[Input], features: Features | Iterable[str] | None = None,
             variant: Variant | str | None = None, kubernetes_version: str | None = None) -> Cluster:
        """Read files, or a live cluster (:class:`dralloc.io.live.LiveSource`),
        as :func:`dralloc.io.load` does (every problem raised at once; objects
        in API versions the release does not serve are read, with a warning in
        ``.warnings`` of the loaded set) and admit them. The release is
        ``kubernetes_version``, else a live cluster's own, else 1.37."""
        items = list(paths)
        feats = Features.of(features, release(items, kubernetes_version))
        return cls(load(items, kubernetes_version=feats.kubernetes_version), feats, variant)

    # ------------------------------------------------------------ questions

    def pod_claims(self, pod: Pod | str) -> list[ResourceClaim]:
        """The pod's claims in ``spec.resourceClaims`` order; a template entry
        without a generated claim is instantiated (``<pod>-<entry>``); an
        entry that is its PodGroup's claim is the group's one claim
        (:mod:`dralloc.gangs`), allocated or not; last, the scheduler's
        extended-resource claim when a DeviceClass serves one of the pod's
        extended resources (:mod:`dralloc.extended`; each call on a node
        asks what DRA serves there, after the node's device plugins)."""
        return pod_claims(self._pod(pod), self.claim, self.template, self.gangs() if self._gang_objects else None,
                          self.extended())

    def extended(self) -> ExtendedReader:
        """Extended resources through DRA over this cluster (classes, pods,
        claims, and what device plugins hand out per node)."""
        if self._extended is None:
            self._extended = ExtendedReader(self._classes, self.features, self.claim,
                                            lambda: list(self._claims.values()), self.pod,
                                            used=self.plugin_used)
        return self._extended

    def gangs(self) -> GangReader:
        """The gang model over this cluster's PodGroups, Workloads and claims
        (gang objects admitted with the cluster are not checked again)."""
        objs = ObjectSet()
        for obj in self._gang_objects.values():
            objs.add(obj)
        return GangReader(objs, self.claim, self.template, lambda: list(self._claims.values()),
                          checked=self.admission)

    def allocate(self, node: Node | str, claims: ClaimsArg = None, *, pod: PodArg = None,
                 mode: str | None = None, objective: str | None = None, time_limit: float | None = None,
                 share_ids: ShareIDPolicy = None, verify: bool = True, compare: str = "auto",
                 compare_time_limit: float | None = None, cancel: threading.Event | None = None,
                 build: bool = True) -> Outcome:
        """Allocate ``claims`` (objects or ``namespace/name`` keys), or the
        claims of ``pod``, together on ``node``, as :func:`dralloc.solver.allocate`
        does with this cluster's objects. ``node`` is a Node or the name of
        one the cluster holds (any name when it holds none, or without
        admission). Nothing is committed. ``cancel``: an event another thread
        may set to stop the searches (Kubernetes' context-canceled error).
        For a pod, claims allocated already are kept, not allocated again: the
        node must be one their allocation admits (:func:`.pods.on_node`); so
        for an extended-resource claim among ``claims`` (its pod held here),
        built for the node as the scheduler builds it -- unless ``build`` is
        False: then it is allocated as given."""
        target = self._target(node)
        todo = self._todo(claims, pod)
        if pod is not None or (build and any(is_extended_claim(c) for c in todo)):
            return on_node(target, todo, mode or "first-fit", lambda rest: self._allocate(
                target, rest, mode, objective, time_limit, share_ids, verify, compare, compare_time_limit, cancel),
                self.extended())
        return self._allocate(target, todo, mode, objective, time_limit, share_ids, verify, compare,
                              compare_time_limit, cancel)

    def _allocate(self, node: Node, todo: list[ResourceClaim], mode: str | None, objective: str | None,
                  time_limit: float | None, share_ids: ShareIDPolicy, verify: bool, compare: str,
                  compare_time_limit: float | None, cancel: threading.Event | None) -> Outcome:
        target, view, held, basis = self._read(node, todo)
        extra: dict[str, Any] = {"mode": mode} if mode is not None else {}
        out = allocate(view.objects, target, todo, allocated=held, features=self.features,
                       variant=self.variant, objective=objective, time_limit=time_limit,
                       share_ids=share_ids, verify=verify, admission=False, compare=compare,
                       compare_time_limit=compare_time_limit, cancel=cancel, pools=self.gathered(target, view),
                       **extra)
        out.basis = basis
        return out

    def each_node(self, claims: ClaimsArg = None, *, pod: PodArg = None,
                  nodes: Iterable[Node | str] | None = None, **how: Any) -> Iterator[tuple[Node, Outcome]]:
        """``allocate`` on every node (or ``nodes``), in the scheduler's node order."""
        todo = self._todo(claims, pod)
        for n in self.nodes() if nodes is None else nodes:
            target = n if isinstance(n, Node) else self.node(n)
            yield target, self._ask(target, todo, pod is not None, how)

    def _ask(self, target: Node, todo: list[ResourceClaim], for_pod: bool, how: dict[str, Any]) -> Outcome:
        """``allocate`` on one node; a pod's allocated claims kept and its
        extended-resource claim built for the node (:func:`.pods.on_node`)."""
        if not for_pod:
            return self.allocate(target, todo, **how)
        return on_node(target, todo, how.get("mode") or "first-fit", functools.partial(self._on, target, how),
                       self.extended())

    def _on(self, target: Node, how: dict[str, Any], rest: list[ResourceClaim]) -> Outcome:
        return self.allocate(target, rest, **how)

    def fits(self, claims: ClaimsArg = None, *, pod: PodArg = None, limit: int | None = None,
             nodes: Iterable[Node | str] | None = None, **how: Any) -> list[tuple[Node, Outcome]]:
        """The nodes where the claims can be allocated now, in the
        scheduler's node order, with each answer; at most ``limit``. A node
        whose free devices are proven too few is not asked
        (:mod:`dralloc.cluster.free`: never one an engine would accept)."""
        if limit is not None and limit < 1:
            raise InputError(f"limit {limit}: give a positive number of nodes (or None for all)")
        todo = self._todo(claims, pod)
        # an extended-resource claim is built per node (device plugins may serve it): no skip then
        needs = None if any(is_extended_claim(c) for c in todo) else need_of(todo)
        keys = [claim_key(c) for c in todo]
        if nodes is None:
            names, order = self.ordered()
        else:
            order = [n if isinstance(n, Node) else self.node(n) for n in nodes]
            names = [n.name for n in order]
        out: list[tuple[Node, Outcome]] = []
        i = 0
        while i < len(order):
            if needs is not None:
                i = self.next_candidate(order, i, needs, keys, names)
                if i == len(order):
                    break
            res = self._ask(order[i], todo, pod is not None, how)
            if res.ok:
                out.append((order[i], res))
                if limit is not None and len(out) >= limit:
                    break
            i += 1
        return out

    def commit(self, outcome: Outcome, claims: ClaimsArg = None) -> list[ResourceClaim]:
        """Record an answer: each claim with devices becomes allocated (its
        ``status.allocation`` set), and what the node's device plugins give
        the pod is taken (:meth:`plugin_used`). ``claims`` are the claim
        objects the answer was computed for (default: looked up by the
        answer's keys); a claim the answer built for its node (the
        extended-resource claim) is recorded as built.

        The answer is checked against the current state first
        (:mod:`dralloc.cluster.guard`): one that no longer holds -- a device
        it names was committed meanwhile by another answer, a counter would
        be overdrawn, one of its claims changed -- is refused with a
        :class:`~dralloc.errors.StaleAnswerError` naming the device or claim,
        and nothing is recorded. Check and record are one step under the
        cluster's lock."""
        if outcome.status not in (Status.ALLOCATED, Status.PARTIAL) or outcome.allocations is None:
            raise InputError(f"cannot commit an answer that allocated nothing ({outcome.status.value})")
        if claims is None:
            missing = [k for k in outcome.claims if self.claim(k) is None and k not in outcome.instances]
            if missing:
                raise InputError(f"claim {missing[0]} is not held by the cluster: pass the claim objects the "
                                 "answer was computed for (commit(answer, claims))")
        given = [c for c in claims if not isinstance(c, str) or c not in outcome.instances] \
            if claims is not None else [k for k in outcome.claims if k not in outcome.instances]
        objs = self._todo(given, None)
        built = {k: admit_object(c) if self.admission else c for k, c in outcome.instances.items()}
        try:
            objs = answered(replace(outcome, instances=built), objs)
        except KeyError as e:
            raise InputError(f"the answer is about claim {e.args[0]}, which is not among the claims given") from None
        if len(objs) != len(outcome.allocations):
            raise InputError(f"the answer has {len(outcome.allocations)} allocations for {len(objs)} claims")
        done = [with_allocation(c, a) for c, a in zip(objs, outcome.allocations, strict=True)
                if a.devices is not None and not (c.status is not None and c.status.allocation == a)]
        with self._lock:
            self._ensure_fresh(outcome, objs)
            for c in done:
                self._record(c)   # admitted by _todo
            if outcome.device_plugin:
                self.take_plugin(outcome.node, outcome.device_plugin)
        return done

    def problem(self, node: Node | str, claims: ClaimsArg = None, *, pod: PodArg = None) -> Problem:
        """The allocator's normalised problem for the claims on ``node``
        (pools, allocated state, request slots), for explanations and models
        built on the inventory; an extended-resource claim as built for the
        node (:func:`.pods.for_node`)."""
        target = self._target(node)
        todo = for_node(target, self._todo(claims, pod), self.extended())[0]
        target, view, held, _ = self._read(target, todo)
        return build_problem(view.objects.slices, view.objects.classes, target, todo, held,
                             self.features, self.variant, self.gathered(target, view))

    # ------------------------------------------------------------ helpers

    def _read(self, node: Node | str, todo: list[ResourceClaim]) -> tuple[Node, NodeView, list[ResourceClaim], Basis]:
        """What an answer on ``node`` is computed from, read at one moment
        (under the lock): the node, its view, the allocated claims it sees
        (not ``todo``'s own), and the answer's basis."""
        keys = [claim_key(c) for c in todo]
        with self._lock:
            target = self._target(node)
            view = self.view(target)
            held = self.held_for(view, set(keys))
            basis = Basis(self._token, self._changes.clock, target, tuple((k, self._claims.get(k)) for k in keys))
        return target, view, held, basis

    def _ensure_fresh(self, outcome: Outcome, claims: list[ResourceClaim]) -> None:
        """Refuse an answer that no longer holds (:mod:`dralloc.cluster.guard`);
        called under the lock."""
        basis = outcome.basis if isinstance(outcome.basis, Basis) and outcome.basis.owner is self._token else None
        if basis is not None:
            for key, then in basis.claims:
                now = self._claims.get(key)
                if now is not then:
                    raise claim_changed(key, then, now)
        node = basis.node if basis is not None else self.node(outcome.node)
        if outcome.device_plugin:
            short = plugin_short(node.name, allocatable(node), self.plugin_used(node.name), outcome.device_plugin)
            if short is not None:
                raise short
        view = self.view(node)
        allocations = outcome.allocations or []
        pools = view.pools | result_pools(allocations)
        if basis is not None and not self._changes.since(basis.clock, pools, node.name):
            return
        held = self.held_for(view, {claim_key(c) for c in claims})
        found = new_violations(view.objects.slices, view.objects.classes, node, claims, allocations, held,
                               self.features, self.variant, outcome.findings)
        if found:
            raise stale(node, found)

    def _target(self, node: Node | str) -> Node:
        if isinstance(node, Node):
            return node
        if node not in self._nodes and self._nodes and self.admission:
            known = ", ".join(sorted(self._nodes)[:10])
            raise InputError(f"node {node} not found among the {len(self._nodes)} Node(s) in the input ({known})")
        return self.node(node)

    def _pod(self, pod: Pod | str) -> Pod:
        if isinstance(pod, Pod):
            return pod
        found = self.pod(pod)
        if found is None:
            raise InputError(f"pod {pod} not found among the {len(self._pods)} Pod(s) of the cluster")
        return found

    def _todo(self, claims: ClaimsArg, pod: PodArg) -> list[ResourceClaim]:
        if pod is not None:
            if claims is not None:
                raise InputError("give claims or a pod, not both")
            return self.pod_claims(pod)
        if claims is None:
            raise InputError("give the claims to allocate or a pod")
        out = []
        for c in claims:
            if isinstance(c, ResourceClaim):
                held = self.claim(claim_key(c)) is c
                out.append(admit_object(c) if self.admission and not held else c)
                continue
            found = self.claim(c)
            if found is None:
                raise InputError(f"claim {c} not found among the {len(self._claims)} ResourceClaim(s) of the cluster")
            out.append(found)
        return out


def _refuse_duplicates(items: list[TypedObject]) -> None:
    seen: dict[tuple[str, str], int] = {}
    for i, obj in enumerate(items):
        if isinstance(obj, Node):
            key = ("Node", obj.name)
        elif isinstance(obj, ResourceClaim):
            key = ("ResourceClaim", claim_key(obj))
        else:
            continue
        if key in seen:
            raise InputError(f"{key[0]} {key[1]} is given twice (objects #{seen[key]} and #{i}); "
                             "a cluster holds one object per name")
        seen[key] = i
