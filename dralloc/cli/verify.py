"""``dralloc verify STATE...``: check the allocations in a cluster dump (every
allocated claim against the rules), compare them with the answer of the
Kubernetes allocator replayed in allocation order, and say why pending pods
wait (fit now, fit jointly, fit after moves, or why not).

Output: -o table (a summary line, then one row per finding), wide (with each
finding's objects and fields), yaml/json (the report as data, camelCase).

Exit code 0: no finding at or above --fail-on; 1: some; 2: bad input."""

from __future__ import annotations

import argparse
from typing import Any

from dralloc.checker.finding import LEVELS
from dralloc.cli import common
from dralloc.features import Variant

EXIT_OK, EXIT_FINDINGS, EXIT_BAD_INPUT = 0, 1, 2


def register(sub: Any) -> None:
    p = common.add_command(sub, "verify", __doc__)
    p.add_argument("paths", nargs="*", metavar="STATE",
                   help="cluster dump(s): kubectl get nodes,pods,resourceslices,deviceclasses,"
                        "resourceclaims,resourceclaimtemplates -A -o yaml (files, folders or -); none when "
                        "the cluster is read (--context, --kubeconfig, -n, -A)")
    p.add_argument("--features", default=None, metavar="GATES",
                   help=common.features_help(common.default_gates_text()))
    common.add_input_args(p)
    p.add_argument("--variant", choices=[v.value for v in Variant],
                   help="allocator variant (default: the one --kubernetes-version picks for the features)")
    p.add_argument("--order", metavar="PODS",
                   help="comma-separated pod keys (namespace/name; a bare name is in namespace default) in the "
                        "order their claims were allocated (default: the claims' allocationTimestamp)")
    p.add_argument("--no-compare", action="store_true", help="skip the replay against the Kubernetes allocator")
    p.add_argument("--no-pending", action="store_true", help="skip the analysis of pending pods")
    p.add_argument("--budget", type=common.NON_NEGATIVE, default=400,
                   help="allocation calls the pending-pod and gang analysis may make (default: %(default)s); "
                        "an answer it leaves open is reported as not decided, never as does not fit")
    common.add_output(p, common.OUTPUTS, "table", "output format")
    p.add_argument("--fail-on", choices=LEVELS, default="error",
                   help="lowest finding level that makes the exit code 1")
    p.set_defaults(func=run)


def _order(text: str | None, pods: list[str]) -> list[str] | None:
    """The --order pod keys, each one of the dump's pods."""
    from dralloc.errors import InputError

    if not text:
        return None
    known = set(pods)
    keys = []
    for k in (k.strip() for k in text.split(",") if k.strip()):
        found = next((c for c in ([k] if "/" in k else [f"default/{k}", k]) if c in known), None)
        if found is None:
            raise InputError(f"--order: pod {k if '/' in k else 'default/' + k} not found among the "
                             f"{len(pods)} Pod(s) in the dump")
        keys.append(found)
    return keys


def run(args: argparse.Namespace) -> int:
    from dralloc.audit import verify_state
    from dralloc.audit.render import render
    from dralloc.audit.state import pod_key
    from dralloc.cli.inputs import read

    features = common.parse_features(args.features, common.release_of(args))  # a bad flag before any reading
    objs = read(args, args.paths)
    order = _order(args.order, [pod_key(p) for p in objs.pods])
    variant = Variant(args.variant) if args.variant else None
    report = verify_state(objs, features, variant, compare=not args.no_compare, order=order,
                          pending=not args.no_pending, budget=args.budget, progress=common.reporter(args))
    common.emit(render(report, args.output))
    return EXIT_FINDINGS if report.failing(args.fail_on) else EXIT_OK
