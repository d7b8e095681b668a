"""``dralloc verify``: check the allocations in a cluster state."""

from __future__ import annotations

import argparse
import sys

from dralloc.audit import verify_state
from dralloc.audit.render import render
from dralloc.checker.finding import LEVELS
from dralloc.cli.inputs import add_input_args, read
from dralloc.errors import InputError
from dralloc.features import DEFAULT_GATES, KUBERNETES_RELEASE, Features, Variant

EXIT_OK, EXIT_FINDINGS, EXIT_BAD_INPUT = 0, 1, 2


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("verify", help="verify the allocations in a cluster dump, compare them with the "
                       "Kubernetes answer and explain pending pods")
    p.add_argument("paths", nargs="+", metavar="STATE",
                   help="cluster dump(s): kubectl get nodes,pods,resourceslices,deviceclasses,"
                        "resourceclaims,resourceclaimtemplates -A -o yaml (files, folders or -)")
    p.add_argument("--features", default=",".join(DEFAULT_GATES),
                   help=f"comma-separated feature gates switched on in the cluster (default: Kubernetes "
                        f"{KUBERNETES_RELEASE}'s: %(default)s)")
    add_input_args(p)
    p.add_argument("--variant", choices=[v.value for v in Variant], help="allocator variant (default: "
                   "the one Kubernetes picks for the features)")
    p.add_argument("--order", help="comma-separated pod keys (namespace/name) in the order their claims "
                   "were allocated (default: the claims' allocationTimestamp)")
    p.add_argument("--no-compare", action="store_true", help="skip the replay against the Kubernetes allocator")
    p.add_argument("--no-pending", action="store_true", help="skip the analysis of pending pods")
    p.add_argument("--budget", type=int, default=400, help="allocation calls the pending-pod analysis may "
                   "make (default: %(default)s)")
    p.add_argument("-o", "--output", choices=("table", "yaml", "json"), default="table")
    p.add_argument("--fail-on", choices=LEVELS, default="error",
                   help="lowest finding level that makes the exit code 1 (default: %(default)s)")
    p.set_defaults(func=run)


def _features(text: str) -> Features:
    names = [n.strip() for n in text.split(",") if n.strip()]
    return Features.from_gates(names)


def run(args: argparse.Namespace) -> int:
    try:
        features = _features(args.features)
    except InputError as e:
        print(f"dralloc verify: --features: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    objs = read(args, args.paths)
    order = [s.strip() for s in args.order.split(",") if s.strip()] if args.order else None
    variant = Variant(args.variant) if args.variant else None
    report = verify_state(objs, features, variant, compare=not args.no_compare, order=order,
                          pending=not args.no_pending, budget=args.budget)
    print(render(report, args.output))
    return EXIT_FINDINGS if report.failing(args.fail_on) else EXIT_OK
