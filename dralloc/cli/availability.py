"""``dralloc availability FILES``: what is left in each resource pool.

First what a ``ResourcePoolStatusRequest`` (resource.k8s.io/v1alpha3,
KEP-5677, Kubernetes 1.37) holds once the controller has processed it: per
pool its devices in total, allocated, available and unavailable (tainted),
the pool's ``partitionSummary`` (per partition type: how many more the
controller's greedy count finds, each type on its own) and
``shareableSummary`` (devices that allow multiple allocations: capacity
total, consumed, left). ``-o yaml``/``json`` print those objects in the API's
own shape, one per driver, for dashboards.

Then, beyond it, how many more claims of each request shape each node can
still take, exactly: every counter, partition placement, taint, selector,
constraint and shared capacity together, through the allocator's own
per-node encoding and CP-SAT, proven or marked not decided when the time
limit stops the search. Shapes: each ResourceClaim or ResourceClaimTemplate
of the ``--shape`` files, or by default one per device class and one per
partition type of each class (e.g. each MIG profile of a DynamicMIG GPU). In
YAML/JSON they follow the status objects as a ``PoolHeadroom`` object
(dralloc.io/v1alpha1).

Exit code 0: reported; 2: bad input."""

from __future__ import annotations

import argparse
from typing import Any

from dralloc.cli import common
from dralloc.solver.limits import help_text


def register(sub: Any) -> None:
    p = common.add_command(sub, "availability", __doc__)
    p.add_argument("files", nargs="*", metavar="FILE", help="YAML/JSON files or folders (- for stdin): a cluster "
                   "dump (slices, classes, claims, nodes); a live cluster read (--context, --kubeconfig, -n, -A) "
                   "comes before them")
    common.add_input_args(p)
    p.add_argument("--driver", help="the request's driver (default: one request per driver of a slice)")
    p.add_argument("--pool", metavar="NAME", help="the request's poolName: only this pool")
    p.add_argument("--limit", type=common.integer(1), default=100, metavar="N",
                   help="the request's limit: at most this many pools per driver (at most 1000)")
    p.add_argument("--partition-type-attribute", metavar="ATTR", dest="attribute",
                   help="the request's defaultPartitionTypeAttribute: groups devices of pools whose slices declare "
                        "no partitionTypeAttribute (e.g. gpu.nvidia.com/profile)")
    p.add_argument("--shape", action="append", default=[], metavar="FILE",
                   help="count copies of each ResourceClaim / ResourceClaimTemplate in FILE (repeatable; default: "
                        "one device of each class, and of each partition type of each class)")
    p.add_argument("--node", action="append", default=[], metavar="NAME",
                   help="count on this node only (repeatable; default: every node)")
    p.add_argument("--no-headroom", action="store_true", help="print the pool status only (no exact counts)")
    p.add_argument("--time-limit", type=common.seconds, default=None, metavar="SECONDS",
                   help=help_text("availability", "time limit per node and shape: the CP-SAT count, and each claim "
                                  "of Kubernetes' count"))
    p.add_argument("--features", default=None, metavar="GATES", help=common.features_help(common.default_gates_text()))
    common.add_output(p, common.OUTPUTS, "table", "output format: table (wide: also each shape's definition and the "
                      "bounds), or the ResourcePoolStatusRequest objects and the PoolHeadroom object as yaml/json")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dralloc.audit.availability import Availability, report
    from dralloc.cli.inputs import read
    from dralloc.errors import InputError

    if args.limit > 1000:
        raise InputError(f"--limit {args.limit}: a ResourcePoolStatusRequest takes at most 1000 pools")
    objs = read(args, args.files)
    shapes = [read(args, [f], cluster=False) for f in args.shape]
    features = common.parse_features(args.features, common.release_of(args))
    common.warn(args, _release_notes(common.release_of(args)))
    ask = Availability(driver=args.driver, pool=args.pool, limit=args.limit, attribute=args.attribute,
                       nodes=list(args.node), headroom=not args.no_headroom, time_limit=args.time_limit)
    from dralloc.io.progress import counter

    found = report(objs, ask, features, shapes, progress=counter(common.reporter(args), "availability: (node, shape)"))
    if args.output in ("yaml", "json"):
        common.emit_objects(found.objects(), args.output)
    else:
        common.emit(found.table(wide=args.output == "wide"))
    return 0


def _release_notes(version: str | None) -> list[str]:
    """The status is what 1.37's controller computes; say so for older releases."""
    from dralloc.release import release

    rel = release(version)
    why = rel.unserved("resource.k8s.io/v1alpha3", "ResourcePoolStatusRequest")
    if why is not None:
        return [f"{why}; the pool status shown is what Kubernetes 1.37's controller computes"]
    if rel.version == "1.36":
        return ["the pool status shown is Kubernetes 1.37's controller's (1.36's counted every allocation result, "
                "admin access included, reported no tainted devices and had no partition or shareable summaries)"]
    return []

