"""``dralloc validate FILES``: report what the API server would reject (the
same rules every other command applies before it runs: what validate calls an
error, they refuse) and, as warnings, what the API server accepts but the
allocator will find wrong (pools, counts beyond its limit).

Which objects are checked together: the files named on the command line
form one set, and each folder under a directory given forms a set of its own
(the files directly in it): a folder holds one cluster, one example. Rules
across objects (duplicates, pools, references) apply within a set. --one-set
reads everything as one set, as allocate, plan and verify read the same
arguments.

Documents of kinds dralloc does not read, and dralloc's own files that are
not objects (scenario files, the KEP prototypes dralloc convert translates,
verify reports), get a warning line each on stderr (errors with --strict);
two different objects of one kind and name in a set are an error
(--last-wins keeps the later one); the same object twice is read once.

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
    p.add_argument("files", nargs="*", metavar="FILE",
                   help="YAML/JSON files or directories ('-' for stdin); none when a cluster is read")
    common.add_output(p, ("table", "yaml", "json"), "table", "output format",
                      old_format={"text": "table", "json": "json"})
    common.add_input_args(p)
    p.add_argument("--one-set", action="store_true",
                   help="check every file as one set, folders included (what allocate, plan and verify do)")
    p.set_defaults(func=run)


def sets(paths: list[str], one_set: bool) -> list[list[str]]:
    """The sets of files checked together: the files named, then one set per
    folder under each directory given (in name order)."""
    from pathlib import Path

    from dralloc.io.loader import iter_files

    if one_set:
        return [paths]
    named = [p for p in paths if p == "-" or not Path(p).is_dir()]
    out = [named] if named else []
    for p in paths:
        if p == "-" or not Path(p).is_dir():
            continue
        folders: dict[Path, list[str]] = {}
        for f in iter_files([p]):
            if f is not None:
                folders.setdefault(f.parent, []).append(str(f))
        out.extend(folders[d] for d in sorted(folders))
    return out or [paths]


def with_cluster(args: argparse.Namespace, groups: list[list[str]]) -> list[list[Any]]:
    """The sets to check with the live cluster the options name: it joins
    the files named (the first set :func:`sets` gives; with --one-set, the
    only one), or is a set of its own before the folders' sets."""
    from pathlib import Path

    if common.live_source(args) is None:
        return groups or [common.sources(args, [])]  # nothing at all: the one error
    named = bool(groups) and (args.one_set or any(p == "-" or not Path(p).is_dir() for p in args.files))
    if named:
        return [common.sources(args, groups[0]), *groups[1:]]
    return [common.sources(args, []), *groups]


def _summary(findings: list[Finding], objects: int, skipped: int, groups: int = 1) -> str:
    from dralloc.validation import ERROR

    errors = sum(f.severity == ERROR for f in findings)
    where = f" in {groups} set(s)" if groups > 1 else ""
    return (f"{objects} object(s) read{where}, {errors} error(s), {len(findings) - errors} warning(s), "
            f"{skipped} document(s) of other kinds skipped")


def finding_dict(f: Finding) -> dict[str, Any]:
    from dralloc.io.emit import camel

    return {camel(k): v for k, v in vars(f).items()}


def run(args: argparse.Namespace) -> int:
    from dralloc.io import load
    from dralloc.io.emit import render
    from dralloc.io.parse import UnreadableError
    from dralloc.validation import ERROR, validate

    findings: list[Finding] = []
    count, skipped, replaced, unserved, warnings, unreadable = 0, [], [], [], [], False
    groups = with_cluster(args, sets(list(args.files), args.one_set) if args.files else [])
    for group in groups:
        objs = load(group, collect=True, strict=args.strict, last_wins=args.last_wins,
                    progress=common.progress(args), kubernetes_version=common.release_of(args))
        findings.extend(validate(objs))
        count += sum(1 for _ in objs.all())
        skipped.extend(objs.skipped)
        replaced.extend(objs.replaced)
        unserved.extend(objs.unserved)
        warnings.extend(objs.warnings)
        unreadable = unreadable or any(isinstance(e, UnreadableError) for e in objs.errors)
    summary = _summary(findings, count, len(skipped), len(groups))
    if args.output in ("yaml", "json"):
        common.emit(render({"findings": [finding_dict(f) for f in findings], "skipped": skipped,
                            "replaced": replaced, "unserved": unserved, "summary": summary}, args.output))
    else:
        if findings:
            common.emit("\n".join(str(f) for f in findings))
        common.warn(args, warnings)
        print(summary, file=sys.stderr)
    if unreadable:
        return EXIT_UNREADABLE
    return EXIT_INVALID if any(f.severity == ERROR for f in findings) else EXIT_OK
