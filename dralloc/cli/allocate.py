"""``dralloc allocate FILES``: allocate claims on a node, as the Kubernetes
scheduler asks its allocator to for the claims of one pod, and print the
claims with ``status.allocation`` filled.

Which claims: ``--claim NS/NAME`` (repeatable), or ``--pod NS/NAME`` (the
pod's claims; claims from templates are instantiated as the resource-claim
controller would, named ``<pod>-<entry>``), or by default every claim in the
files that has no allocation yet, in file order. Which node: ``--node NAME``,
or the pod's ``spec.nodeName``, or the only Node in the files.

Exit code 0: allocated; 1: the claims cannot be allocated on the node;
2: bad input (unreadable files, unknown names, or an input Kubernetes'
allocator rejects with an error)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import yaml

from dralloc.cli.inputs import add_compare_args, add_target_args, resolve
from dralloc.cluster import Cluster
from dralloc.errors import InputError
from dralloc.models import ResourceClaim
from dralloc.solver.api import DEFAULT_MODE, MODES, allocate
from dralloc.solver.outcome import Outcome, Status
from dralloc.solver.shareids import POLICIES

EXIT_OK, EXIT_UNSATISFIABLE, EXIT_BAD_INPUT = 0, 1, 2


def register(sub: Any) -> None:
    p = sub.add_parser("allocate", help="allocate claims on a node and print them with status.allocation",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_target_args(p)
    p.add_argument("--mode", choices=MODES, default=DEFAULT_MODE,
                   help="replay: Kubernetes' search step by step; first-fit: the same answer via CP-SAT; "
                        "optimal: CP-SAT with --objective (default: %(default)s, as for the library)")
    p.add_argument("--objective", help="optimal mode: comma-separated objectives, in priority order")
    p.add_argument("--time-limit", type=float, metavar="SECONDS",
                   help="CP-SAT time limit; for replay, a deadline like the scheduler's filter timeout")
    p.add_argument("--share-ids", choices=POLICIES, default="derived",
                   help="shareIDs of shared (consumable-capacity) devices: derived from the claim and result "
                        "(default: the same inputs give the same output) or random UUIDs, as Kubernetes writes")
    add_compare_args(p)
    p.add_argument("--all-nodes", action="store_true",
                   help="try every Node in the files (as the scheduler's filter does, in its node order: zones "
                        "in turn, nodes in file order) and print one line per node")
    p.add_argument("-o", "--output", choices=("yaml", "json", "table"), default="yaml", help="output format")
    p.add_argument("--explain", action="store_true",
                   help="also print how the answer was reached (search steps, reasons) on stderr")
    p.set_defaults(func=run)


def claim_documents(claims: list[ResourceClaim], out: Outcome) -> list[dict[str, Any]]:
    """The claims as Kubernetes objects, ``status.allocation`` filled."""
    docs = []
    for claim, alloc in zip(claims, out.allocations or [], strict=True):
        d = claim.dump()
        status = d.setdefault("status", {})
        status["allocation"] = alloc.dump()
        docs.append(d)
    return docs


def table(claims: list[ResourceClaim], out: Outcome) -> str:
    rows = [("CLAIM", "REQUEST", "DRIVER", "POOL", "DEVICE", "SHARE")]
    for claim, alloc in zip(claims, out.allocations or [], strict=True):
        key = f"{claim.namespace or 'default'}/{claim.name}"
        results = alloc.devices.results if alloc.devices and alloc.devices.results else []
        for r in results:
            rows.append((key, r.request, r.driver, r.pool, r.device, r.share_id or "-"))
        if not results:
            rows.append((key, "-", "-", "-", "-", "-"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip() for row in rows)


def _print(claims: list[ResourceClaim], out: Outcome, fmt: str) -> None:
    if fmt == "table":
        print(table(claims, out))
        return
    docs = claim_documents(claims, out)
    if fmt == "json":
        body: Any = docs[0] if len(docs) == 1 else {"apiVersion": "v1", "kind": "List", "items": docs}
        print(json.dumps(body, indent=2))
    else:
        print(yaml.safe_dump_all(docs, sort_keys=False, default_flow_style=False), end="")


def run_all_nodes(args: argparse.Namespace) -> int:
    """One line per Node: can the claims be allocated there, and on what."""
    objs, _, claims, features, admitted, _ = resolve(args)
    if not objs.nodes:
        raise InputError("--all-nodes needs Node objects in the files")
    mode = args.mode
    rows = [("NODE", "RESULT", "DEVICES")]
    fits = 0
    cluster = Cluster(objs, features=features, admission=admitted)
    for node, out in cluster.each_node(claims, mode=mode, time_limit=args.time_limit, compare=args.compare,
                                       compare_time_limit=args.compare_time_limit, share_ids=args.share_ids):
        if out.status is Status.ALLOCATED:
            fits += 1
            devs = [f"{r.request}={r.pool}/{r.device}" for a in out.allocations or []
                    for r in (a.devices.results if a.devices and a.devices.results else [])]
            rows.append((node.name, "fits", ", ".join(devs) or "-"))
        else:
            rows.append((node.name, out.status.value, out.error or "-"))
    widths = [max(len(r[i]) for r in rows) for i in range(2)]
    for r in rows:
        print(f"{r[0].ljust(widths[0])}  {r[1].ljust(widths[1])}  {r[2]}".rstrip())
    print(f"{fits} of {len(objs.nodes)} node(s) fit {', '.join(c.key for c in claims)}")
    return EXIT_OK if fits else EXIT_UNSATISFIABLE


def run(args: argparse.Namespace) -> int:
    if args.all_nodes:
        return run_all_nodes(args)
    objs, node, claims, features, admitted, variant = resolve(args)
    mode = args.mode
    out = allocate(objs, node, claims, features=features, mode=mode, objective=args.objective,
                   time_limit=args.time_limit, share_ids=args.share_ids, admission=admitted, compare=args.compare,
                   compare_time_limit=args.compare_time_limit, variant=variant)
    if args.explain:
        print(str(out), file=sys.stderr)
        for n in out.notes:
            print(f"  note: {n}", file=sys.stderr)
    elif out.kubernetes is not None and (out.kubernetes.same is False or out.kubernetes.how == "stopped"):
        # first-fit follows the rules; where Kubernetes answers otherwise (or may), say so
        print(f"dralloc allocate: note: {out.kubernetes}", file=sys.stderr)
    if out.status is Status.ALLOCATED:
        _print(claims, out, args.output)
        return EXIT_OK
    keys = ", ".join(out.claims)
    if out.status is Status.ERROR:
        print(f"dralloc allocate: error: {out.error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(f"dralloc allocate: cannot allocate {keys} on node {node.name or '<none>'}", file=sys.stderr)
    if not args.explain:
        for r in out.reasons:
            print(f"  why: {r}", file=sys.stderr)
    return EXIT_UNSATISFIABLE
