"""``dralloc validate FILES``: report what the API server would reject (the
same rules every other command applies before it runs: what validate calls an
error, they refuse) and, as warnings, what the API server accepts but the
allocator will find wrong (pools, counts beyond its limit).

Documents of kinds dralloc does not read get a warning line each on stderr
(errors with --strict); two objects of one kind and name are an error
(--last-wins keeps the later one).

Output: -o table, one finding per line (file, object, field, rule), then a
summary on stderr; -o yaml/json, the findings as data. --format text|json is
the older spelling of -o table|json.

Exit code 0: valid (warnings allowed); 1: findings of severity error;
2: a file could not be read or parsed at all."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from dralloc.cli import common

if TYPE_CHECKING:
    from dralloc.validation import Finding

EXIT_OK, EXIT_INVALID, EXIT_UNREADABLE = 0, 1, 2


def register(subparsers: Any) -> None:
    p = common.add_command(subparsers, "validate", __doc__)
    p.add_argument("files", nargs="+", metavar="FILE", help="YAML/JSON files or directories ('-' for stdin)")
    common.add_output(p, ("table", "yaml", "json"), "table", "output format",
                      old_format={"text": "table", "json": "json"})
    common.add_input_args(p)
    p.set_defaults(func=run)


def _summary(findings: list[Finding], objects: int, skipped: int) -> str:
    from dralloc.validation import ERROR

    errors = sum(f.severity == ERROR for f in findings)
    return (f"{objects} object(s) read, {errors} error(s), {len(findings) - errors} warning(s), "
            f"{skipped} document(s) of other kinds skipped")


def finding_dict(f: Finding) -> dict[str, Any]:
    from dralloc.io.emit import camel

    return {camel(k): v for k, v in vars(f).items()}


def run(args: argparse.Namespace) -> int:
    from dralloc.io import load
    from dralloc.io.emit import render
    from dralloc.io.parse import UnreadableError
    from dralloc.validation import ERROR, validate

    objs = load(args.files, collect=True, strict=args.strict, last_wins=args.last_wins,
                progress=common.progress(args))
    findings = validate(objs)
    count = sum(1 for _ in objs.all())
    summary = _summary(findings, count, len(objs.skipped))
    if args.output in ("yaml", "json"):
        common.emit(render({"findings": [finding_dict(f) for f in findings], "skipped": objs.skipped,
                            "replaced": objs.replaced, "summary": summary}, args.output))
    else:
        if findings:
            common.emit("\n".join(str(f) for f in findings))
        common.warn(args, objs.warnings)
        print(summary, file=sys.stderr)
    if any(isinstance(e, UnreadableError) for e in objs.errors):
        return EXIT_UNREADABLE
    return EXIT_INVALID if any(f.severity == ERROR for f in findings) else EXIT_OK
