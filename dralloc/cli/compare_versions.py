"""``dralloc compare-versions FILES --from 1.36 --to 1.37``: what changes on
upgrade. The same cluster (a dump: nodes, slices, classes, claims, pods,
gangs) is run under both Kubernetes releases -- each with the gates it has
on by default (``--from-features``/``--to-features`` change them) and the
allocator variant it picks -- and every claim, pod and gang whose outcome
differs is listed with what makes the difference.

Outcomes: the pending pods and unallocated claims as the scheduler places
them, pod by pod in its queue order on the nodes in name order (Kubernetes'
own search, gangs all or nothing); the existing allocations as verify's
rule check judges them. A difference is attributed by rerunning the earlier
release with one gate (or the allocator variant) as the later one has it:
the causes that change the outcome, first those that alone give the later
one. The header names the gates that differ, the variants and the API
versions each release does not serve.

Output: -o table (cut outcomes), wide (whole), yaml/json (as data).
Exit code 0: no outcome changes; 1: some change; 2: bad input."""

from __future__ import annotations

import argparse
from typing import Any

from dralloc.cli import common

EXIT_SAME, EXIT_CHANGES = 0, 1


def register(sub: Any) -> None:
    p = common.add_command(sub, "compare-versions", __doc__)
    p.add_argument("paths", nargs="*", metavar="FILE",
                   help="the cluster: files, folders or - for stdin; none when the cluster is read "
                        "(--context, --kubeconfig, -n, -A)")
    p.add_argument("--from", dest="from_version", type=common.kubernetes_version, metavar="VERSION",
                   help="the release upgraded from (1.34, 1.35, 1.36, 1.37; default: the server's release "
                        "when a cluster is read, else required)")
    p.add_argument("--to", dest="to_version", required=True, type=common.kubernetes_version,
                   metavar="VERSION", help="the release upgraded to (1.34, 1.35, 1.36, 1.37)")
    p.add_argument("--from-features", metavar="GATES",
                   help=common.features_help("the --from release's defaults"))
    p.add_argument("--to-features", metavar="GATES", help=common.features_help("the --to release's defaults"))
    p.add_argument("--no-why", action="store_true", help="list the changes without attributing them")
    common.add_output(p, common.OUTPUTS, "table", "output format (wide: outcomes not cut)")
    common.add_source_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dralloc.errors import InputError
    from dralloc.io import load
    from dralloc.io.emit import render
    from dralloc.upgrade import compare_versions
    from dralloc.upgrade.render import header, rows, summary

    items = common.sources(args, args.paths)
    if args.from_version is None:
        src = common.live_source(args)
        if src is None:
            raise InputError("--from is required (or read a cluster: its server's release is the default)")
        args.from_version = src.kubernetes_version
    before = common.parse_features(args.from_features, args.from_version)
    after = common.parse_features(args.to_features, args.to_version)
    objs = load(items, strict=args.strict, last_wins=args.last_wins, progress=common.progress(args),
                kubernetes_version=args.from_version)
    common.warn(args, [*objs.notes, *objs.skipped, *objs.replaced])   # what each release does not serve: in the header
    result = compare_versions(objs, args.from_version, args.to_version,
                              from_features=before if args.from_features else None,
                              to_features=after if args.to_features else None, attribute=not args.no_why)
    if args.output in ("yaml", "json"):
        common.emit(render(result.to_dict(), args.output))
    else:
        table = rows(result, args.output == "wide")
        a, b = result.before.version, result.after.version
        body = [common.format_table(("KIND", "NAME", a, b, "WHY"), table)] if table else []
        common.emit("\n".join([*header(result), *body, summary(result)]))
    return EXIT_CHANGES if result.changes else EXIT_SAME
