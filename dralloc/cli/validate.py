"""``dralloc validate FILES``: report what the API server would reject (the
same rules every other command applies before it runs: what validate calls an
error, they refuse) and, as warnings, what the API server accepts but the
allocator will find wrong (pools, counts beyond its limit).

Documents of kinds dralloc does not read get a warning line each on stderr
(errors with --strict); two objects of one kind and name are an error
(--last-wins keeps the later one).

Exit code 0: valid (warnings allowed); 1: findings of severity error;
2: a file could not be read or parsed at all."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from dralloc.cli.inputs import add_input_args, progress, warn
from dralloc.io import load
from dralloc.io.parse import UnreadableError
from dralloc.validation import ERROR, Finding, validate

EXIT_OK, EXIT_INVALID, EXIT_UNREADABLE = 0, 1, 2


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("validate", help="check objects as the API server and the allocator would",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="+", metavar="FILE", help="YAML/JSON files or directories ('-' for stdin)")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    add_input_args(p)
    p.set_defaults(func=run)


def _summary(findings: list[Finding], objects: int, skipped: int) -> str:
    errors = sum(f.severity == ERROR for f in findings)
    return (f"{objects} object(s) read, {errors} error(s), {len(findings) - errors} warning(s), "
            f"{skipped} document(s) of other kinds skipped")


def run(args: argparse.Namespace) -> int:
    objs = load(args.files, collect=True, strict=args.strict, last_wins=args.last_wins, progress=progress(args))
    findings = validate(objs)
    count = sum(1 for _ in objs.all())
    if args.format == "json":
        json.dump({"findings": [f.__dict__ for f in findings], "skipped": objs.skipped,
                   "replaced": objs.replaced, "summary": _summary(findings, count, len(objs.skipped))},
                  sys.stdout, indent=2)
        print()
    else:
        for f in findings:
            print(f)
        warn(args, objs.warnings)
        print(_summary(findings, count, len(objs.skipped)), file=sys.stderr)
    if any(isinstance(e, UnreadableError) for e in objs.errors):
        return EXIT_UNREADABLE
    return EXIT_INVALID if any(f.severity == ERROR for f in findings) else EXIT_OK
