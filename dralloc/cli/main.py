"""The ``dralloc`` command. Each subcommand lives in its own module of this
package and exposes ``register(subparsers)``; the module list is below."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from dralloc.errors import DrallocError, InputErrors

# Subcommand modules, in the order `dralloc --help` lists them. A module that
# is not there yet (work in progress) is simply left out.
SUBCOMMANDS = (
    "allocate", "check", "explain", "encode", "verify", "plan", "generate",
    "validate", "flatten", "convert",
)

EXIT_OK, EXIT_FINDINGS, EXIT_BAD_INPUT = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dralloc",
        description="Allocation engine for Kubernetes Dynamic Resource Allocation (DRA).",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        try:
            mod = importlib.import_module(f"dralloc.cli.{name}")
        except ModuleNotFoundError as e:
            if e.name == f"dralloc.cli.{name}":
                continue
            raise
        mod.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_BAD_INPUT
    try:
        return int(args.func(args))
    except InputErrors as e:  # one line per problem
        for line in e.lines():
            print(f"dralloc {args.command}: error: {line}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except DrallocError as e:
        print(f"dralloc {args.command}: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as e:  # a dralloc bug: one line, not a traceback (DRALLOC_DEBUG=1 shows it)
        if os.environ.get("DRALLOC_DEBUG"):
            raise
        print(f"dralloc {args.command}: internal error: {type(e).__name__}: {e} "
              "(this is a bug in dralloc; rerun with DRALLOC_DEBUG=1 for the traceback)", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
