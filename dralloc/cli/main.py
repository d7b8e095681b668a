"""The ``dralloc`` command. Each subcommand lives in its own module of this
package and exposes ``register(subparsers)``; :data:`dralloc.cli.common.COMMANDS`
lists them. Only the command being run is loaded (``dralloc --help`` loads
none), and a command module loads its engines only when it runs.

Exit codes, for every command: 0 done (and a positive answer), 1 a negative
answer (cannot allocate, findings, failures), 2 bad input or an OS error
(unreadable or unwritable files), 3 a bug in dralloc, 130 interrupted."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Iterable, Sequence

from dralloc import __version__
from dralloc.cli.common import COMMANDS, HelpFormatter, OutputError, flush_stdout
from dralloc.errors import DrallocError, InputErrors
from dralloc.solver.cancel import interrupts

EXIT_OK, EXIT_FINDINGS, EXIT_BAD_INPUT, EXIT_BUG = 0, 1, 2, 3


def build_parser(commands: Iterable[str] | None = None) -> argparse.ArgumentParser:
    """The parser, with the full options of ``commands`` (default: all of
    them); the other commands are listed by name and summary only."""
    full = set(COMMANDS) if commands is None else set(commands)
    parser = argparse.ArgumentParser(
        prog="dralloc", formatter_class=HelpFormatter,
        description="Allocation engine for Kubernetes Dynamic Resource Allocation (DRA).\n"
                    "Run 'dralloc COMMAND --help' for a command's options.",
        epilog="Every command that prints results takes -o (table, wide, yaml, json: the formats\n"
               "it offers). Exit codes: 0 done, 1 a negative answer (cannot allocate, findings,\n"
               "failures), 2 bad input or an OS error, 3 a bug in dralloc.")
    parser.add_argument("--version", action="version", version=f"dralloc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, summary in COMMANDS.items():
        if name in full:
            module = importlib.import_module(f"dralloc.cli.{name.replace('-', '_')}")
            module.register(sub)
        else:
            sub.add_parser(name, help=summary)
    return parser


def _command_in(argv: Sequence[str]) -> str | None:
    """The command named on the command line (the first word that is not an option)."""
    word = next((a for a in argv if not a.startswith("-")), None)
    return word if word in COMMANDS else None


def _silence_stdout() -> None:
    """After a failed write to standard output, point it at /dev/null so the
    interpreter's final flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _os_error(e: OSError) -> str:
    """One line for an OS error: the file and the reason."""
    what = e.strerror or str(e)
    return f"{e.filename}: {what}" if e.filename is not None else what


def _clear_progress() -> None:
    """Erase a progress line in place (if any progress was reported)."""
    progress = sys.modules.get("dralloc.io.progress")
    if progress is not None:
        progress.clear_line()


def main(argv: Sequence[str] | None = None) -> int:
    args_in = list(sys.argv[1:] if argv is None else argv)
    cmd = _command_in(args_in)
    parser = build_parser([cmd] if cmd else [])
    args = parser.parse_args(args_in)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_BAD_INPUT
    prefix = f"dralloc {args.command}"
    try:
        with interrupts():   # Ctrl-C stops a running CP-SAT search too
            code = int(args.func(args))
            flush_stdout()
        return code
    except OutputError as e:  # standard output cannot be written (a full disk)
        _silence_stdout()
        print(f"{prefix}: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except InputErrors as e:  # one line per problem
        for line in e.lines():
            print(f"{prefix}: error: {line}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except DrallocError as e:
        print(f"{prefix}: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        _clear_progress()
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (| head): nothing more to say
        _silence_stdout()
        return EXIT_OK
    except OSError as e:  # a file where a folder should be, permissions, a full disk
        print(f"{prefix}: error: {_os_error(e)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as e:  # a dralloc bug: one line, not a traceback (DRALLOC_DEBUG=1 shows it)
        if os.environ.get("DRALLOC_DEBUG"):
            raise
        print(f"{prefix}: internal error: {type(e).__name__}: {e} "
              "(this is a bug in dralloc; rerun with DRALLOC_DEBUG=1 for the traceback)", file=sys.stderr)
        return EXIT_BUG


if __name__ == "__main__":
    sys.exit(main())
