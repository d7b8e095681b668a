"""``dralloc allocate FILES``: allocate claims on a node, as the Kubernetes
scheduler asks its allocator to for the claims of one pod, and print the
claims with ``status.allocation`` filled.

Which claims: ``--claim NS/NAME`` (repeatable), or ``--pod NS/NAME`` (the
pod's claims; claims from templates are instantiated as the resource-claim
controller would, named ``<pod>-<entry>``), or by default every claim in the
files that has no allocation yet, in file order. A pod's claims are read as
the scheduler reads them (its PodGroup's claims included, KEP-5729): a claim
allocated already is kept, and the node must be one its allocation admits.
Which node: ``--node NAME``, or the pod's ``spec.nodeName``, or the only
Node in the files. ``--all-nodes`` tries every Node, as the scheduler's
filter does, one row per node.

When the claims cannot be allocated, stderr says why: per node one plain line
first, then every exclusion the inventory made per request (selector, class,
node, taint, in use, counters exhausted, capacity, feature gate off).

Exit code 0: allocated (with --all-nodes: fits on some node); 1: the claims
cannot be allocated on the node (on any node); 2: bad input (unreadable
files, unknown names, or an input Kubernetes' allocator rejects with an
error)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from dralloc.cli import common
from dralloc.solver.limits import help_text
from dralloc.solver.modes import (
    DEFAULT_MODE,
    DEFAULT_OBJECTIVE,
    MODES,
    OBJECTIVES,
    SHARE_ID_POLICIES,
    objective_names,
)

if TYPE_CHECKING:
    from dralloc.models import ResourceClaim
    from dralloc.solver.outcome import Outcome

EXIT_OK, EXIT_UNSATISFIABLE, EXIT_BAD_INPUT = 0, 1, 2


def _objective(text: str) -> str:
    from dralloc.errors import InputError

    try:
        objective_names(text)
    except InputError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def register(sub: Any) -> None:
    p = common.add_command(sub, "allocate", __doc__)
    common.add_target_args(p)
    p.add_argument("--mode", choices=MODES, default=DEFAULT_MODE,
                   help="replay: Kubernetes' search step by step; first-fit: the same answer via CP-SAT; "
                        "optimal: CP-SAT with --objective (default: %(default)s, as for the library)")
    p.add_argument("--objective", type=_objective, metavar="LIST",
                   help="optimal mode: comma-separated objectives in priority order, from "
                        f"{', '.join(OBJECTIVES)} (default: {DEFAULT_OBJECTIVE})")
    p.add_argument("--time-limit", type=common.seconds, metavar="SECONDS",
                   help=help_text("allocate", "replay: a deadline like the scheduler's filter timeout (Kubernetes' "
                                  "error when it expires); first-fit: each CP-SAT search; optimal: the whole "
                                  "budget (hint, objectives, tie-break); by default Kubernetes' filter timeout"))
    p.add_argument("--share-ids", choices=SHARE_ID_POLICIES, default="derived",
                   help="shareIDs of shared (consumable-capacity) devices: derived from the claim and result "
                        "(the same inputs give the same output) or random UUIDs, as Kubernetes writes")
    common.add_compare_args(p)
    p.add_argument("--all-nodes", action="store_true",
                   help="try every Node in the files (as the scheduler's filter does) and print one row per node")
    common.add_output(p, common.OUTPUTS, None,
                      "output format (default: yaml, the claims with status.allocation; with --all-nodes: table)")
    p.add_argument("--explain", action="store_true",
                   help="also print how the answer was reached (search steps, reasons) on stderr")
    p.set_defaults(func=run)


def _mode(args: argparse.Namespace) -> str:
    from dralloc.errors import InputError

    mode: str = args.mode
    if args.objective is not None and mode != "optimal":
        raise InputError(f"--objective applies to --mode optimal, not {mode}")
    return mode


def claim_documents(claims: list[ResourceClaim], out: Outcome) -> list[dict[str, Any]]:
    """The claims as Kubernetes objects, ``status.allocation`` filled."""
    docs = []
    for claim, alloc in zip(claims, out.allocations or [], strict=True):
        d = claim.dump()
        status = d.setdefault("status", {})
        status["allocation"] = alloc.dump()
        docs.append(d)
    return docs


def table(claims: list[ResourceClaim], out: Outcome, wide: bool = False) -> str:
    """One row per device result (wide: the node, admin access and consumed capacity too)."""
    head = ["CLAIM", "REQUEST", "DRIVER", "POOL", "DEVICE", "SHARE"]
    if wide:
        head += ["NODE", "ADMIN", "CONSUMED"]
    rows = []
    for claim, alloc in zip(claims, out.allocations or [], strict=True):
        results = alloc.devices.results if alloc.devices and alloc.devices.results else []
        for r in results:
            row = [claim.key, r.request, r.driver, r.pool, r.device, r.share_id or "-"]
            if wide:
                consumed = ",".join(f"{k}={q}" for k, q in sorted((r.consumed_capacity or {}).items()))
                row += [out.node or "-", "yes" if r.admin_access else "-", consumed or "-"]
            rows.append(row)
        if not results:
            rows.append([claim.key] + ["-"] * (len(head) - 1))
    return common.format_table(head, rows)


def pod_status_document(pod: str, claims: list[ResourceClaim], out: Outcome) -> dict[str, Any] | None:
    """The pod's ``status.extendedResourceClaimStatus`` as the scheduler
    writes it with the claim it made for the pod's extended resources, or
    None when the answer holds no such claim."""
    from dralloc.extended import is_extended_claim

    made = next((c for c in claims if is_extended_claim(c)), None)
    if made is None or not out.request_mappings:
        return None
    ns, _, name = pod.rpartition("/")
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns or "default"},
            "status": {"extendedResourceClaimStatus": {"requestMappings": out.request_mappings,
                                                       "resourceClaimName": made.name}}}


def _print(claims: list[ResourceClaim], out: Outcome, fmt: str, pod: str | None = None) -> None:
    from dralloc.io.emit import render_objects

    if fmt in ("table", "wide"):
        common.emit(table(claims, out, wide=fmt == "wide"))
    else:
        status = pod_status_document(pod, claims, out) if pod else None
        common.emit(render_objects(claim_documents(claims, out) + ([status] if status else []), fmt))


def print_why(out: Outcome, node: str, reasons: bool = True) -> None:
    """A negative answer on stderr, with its short why (unless --explain printed it)."""
    print(f"dralloc allocate: cannot allocate {', '.join(out.claims)} on node {node or '<none>'}", file=sys.stderr)
    for r in out.reasons if reasons else []:
        print(f"  why: {r}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    from dralloc.cli.inputs import resolve
    from dralloc.cluster.pods import answered, on_node
    from dralloc.extended import ExtendedReader
    from dralloc.solver.api import allocate
    from dralloc.solver.outcome import Status

    mode = _mode(args)
    if args.all_nodes:
        from dralloc.cli.allocate_nodes import run_all_nodes

        return run_all_nodes(args, mode)
    objs, node, claims, features, admitted, variant = resolve(args)

    def run_on(todo: list[ResourceClaim]) -> Outcome:
        return allocate(objs, node, todo, features=features, mode=mode, objective=args.objective,
                        time_limit=args.time_limit, share_ids=args.share_ids, admission=admitted,
                        compare=args.compare, compare_time_limit=args.compare_time_limit, variant=variant)

    out = on_node(node, claims, mode, run_on, ExtendedReader.of(objs, features)) if args.pod else run_on(claims)
    claims = answered(out, claims)
    if args.explain:
        print(str(out), file=sys.stderr)
        for n in out.notes:
            print(f"  note: {n}", file=sys.stderr)
    elif out.kubernetes is not None and (out.kubernetes.same is False or out.kubernetes.how == "stopped"):
        # first-fit follows the rules; where Kubernetes answers otherwise (or may), say so
        print(f"dralloc allocate: note: {out.kubernetes}", file=sys.stderr)
    if out.status is Status.ALLOCATED:
        _print(claims, out, args.output or "yaml", args.pod)
        if out.device_plugin:
            print("dralloc allocate: note: from the node's device plugins, not DRA: "
                  + ", ".join(f"{n}={v}" for n, v in out.device_plugin.items()), file=sys.stderr)
        return EXIT_OK
    if out.status is Status.ERROR:
        print(f"dralloc allocate: error: {out.error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print_why(out, node.name, reasons=not args.explain)
    return EXIT_UNSATISFIABLE
