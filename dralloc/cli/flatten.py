"""``dralloc flatten FILES``: print ResourceSlices with KEP-5234 mixins applied
(every ``includes`` resolved, ``spec.mixins`` removed) and older API versions
converted to resource.k8s.io/v1: the full definition of every device.

Exit code 0: all slices printed; 2: some input could not be read or flattened
(the problems go to stderr, the slices that could be read are still printed)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import yaml

from dralloc.cli.inputs import add_input_args, progress, warn
from dralloc.io import load

EXIT_OK, EXIT_BAD_INPUT = 0, 2


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("flatten", help="print ResourceSlices with mixins applied",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="+", metavar="FILE", help="YAML/JSON files or directories ('-' for stdin)")
    p.add_argument("--format", choices=("yaml", "json"), default="yaml", help="output format")
    add_input_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    objs = load(args.files, collect=True, strict=args.strict, last_wins=args.last_wins, progress=progress(args))
    warn(args, objs.warnings)
    docs = [s.dump() for s in objs.slices]
    if args.format == "json":
        out: Any = docs[0] if len(docs) == 1 else {"apiVersion": "v1", "kind": "List", "items": docs}
        json.dump(out, sys.stdout, indent=2)
        print()
    elif docs:
        yaml.safe_dump_all(docs, sys.stdout, sort_keys=False)
    for e in objs.errors:
        print(f"dralloc flatten: error: {e}", file=sys.stderr)
    if not docs and not objs.errors:
        print("dralloc flatten: no ResourceSlice in the input", file=sys.stderr)
    return EXIT_BAD_INPUT if objs.errors else EXIT_OK
