"""``dralloc flatten FILES``: print ResourceSlices with KEP-5234 mixins applied
(every ``includes`` resolved, ``spec.mixins`` removed) and older API versions
converted to resource.k8s.io/v1: the full definition of every device.

Exit code 0: all slices printed; 2: some input could not be read or flattened
(the problems go to stderr, the slices that could be read are still printed)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from dralloc.cli import common, objects

EXIT_OK, EXIT_BAD_INPUT = 0, 2


def register(subparsers: Any) -> None:
    p = common.add_command(subparsers, "flatten", __doc__)
    p.add_argument("files", nargs="*", metavar="FILE",
                   help="YAML/JSON files or directories ('-' for stdin); none when a cluster is read")
    common.add_output(p, objects.OUTPUTS, "yaml", "output format: the slices as YAML or JSON, "
                      "or one row per slice (wide: with its device names)",
                      old_format={"yaml": "yaml", "json": "json"})
    common.add_input_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dralloc.io import load

    objs = load(common.sources(args, args.files), collect=True, strict=args.strict, last_wins=args.last_wins,
                progress=common.progress(args), kubernetes_version=common.release_of(args))
    common.warn(args, objs.warnings)
    docs = [s.dump() for s in objs.slices]
    if docs or args.output == "json":
        objects.emit(docs, args.output)
    for e in objs.errors:
        print(f"dralloc flatten: error: {e}", file=sys.stderr)
    if not docs and not objs.errors:
        print("dralloc flatten: no ResourceSlice in the input", file=sys.stderr)
    return EXIT_BAD_INPUT if objs.errors else EXIT_OK
