"""``dralloc availability``: the ResourcePoolStatusRequest view of every pool
(:mod:`dralloc.audit.poolstatus`) and, beyond it, the exact headroom of each
request shape on each node (:mod:`dralloc.audit.headroom`), as objects for
``-o yaml|json`` and as tables."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from dralloc.audit.availability_report import Report
from dralloc.audit.headroom import Fit, Shape, headroom
from dralloc.audit.poolstatus import Usage, pool_status, requests_for
from dralloc.audit.shapes import default_shapes, given_shapes
from dralloc.errors import InputError
from dralloc.features import Features
from dralloc.io import ObjectSet
from dralloc.models import Node, ObjectMeta
from dralloc.solver.limits import limit_or_default


@dataclass
class Availability:
    """What was asked: the request's filters and the headroom's scope."""

    driver: str | None = None
    pool: str | None = None
    limit: int = 100
    attribute: str | None = None
    nodes: list[str] = field(default_factory=list)
    headroom: bool = True
    time_limit: float | None = None


def _nodes(objs: ObjectSet, names: Sequence[str]) -> list[Node]:
    """The nodes to count on: the files' Nodes (or, without any, those the
    slices name), in name order; ``names`` must be among them."""
    known = {n.name: n for n in objs.nodes}
    if not known:
        known = {s.spec.node_name: Node(metadata=ObjectMeta(name=s.spec.node_name))
                 for s in objs.slices if s.spec.node_name}
    for name in names:
        if name not in known:
            raise InputError(f"node {name} not found among the {len(known)} node(s) of the files")
    return [known[n] for n in sorted(names or known)]


def report(objs: ObjectSet, ask: Availability, features: Features, shape_files: Sequence[ObjectSet] = (),
           progress: Callable[[int, int], None] | None = None) -> Report:
    if ask.driver is None and ask.pool is not None:
        raise InputError("--pool needs --driver (a ResourcePoolStatusRequest names its driver)")
    usage = Usage.of(objs.claims)
    reqs = requests_for(objs, ask.driver, ask.pool, ask.limit, ask.attribute)
    requests = [(r, pool_status(objs, r, usage)) for r in reqs]
    shapes: list[Shape] = []
    fits: list[Fit] = []
    if ask.headroom:
        shapes = [s for f in shape_files for s in given_shapes(f.all())] if shape_files else \
            default_shapes(objs, ask.attribute)
        if shape_files and not shapes:
            raise InputError("the --shape files hold no ResourceClaim or ResourceClaimTemplate")
        fits = headroom(objs, shapes, _nodes(objs, ask.nodes), features, ask.time_limit, progress)
        if ask.driver is not None:   # only what the shapes can take from the pools asked about
            want = f"{ask.driver}/{ask.pool}" if ask.pool else f"{ask.driver}/"
            fits = [f for f in fits if any(p == want or (not ask.pool and p.startswith(want)) for p in f.pools)]
    return Report(requests, shapes, fits, limit_or_default(ask.time_limit, "availability"))
