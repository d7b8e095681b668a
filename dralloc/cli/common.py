"""What every command shares, so every command behaves the same way: the
command table (``dralloc --help`` lists it without loading any command), the
help layout (choices and defaults listed), ``-o``/``--output``, ``--features``,
``--kubernetes-version``,
range-checked numeric options, and writing files.

This module is light on purpose (the standard library and small dralloc
modules only): building the parser or printing help loads no engine."""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dralloc.cli.sources import live_source, sources
from dralloc.errors import DrallocError, InputError

if TYPE_CHECKING:
    from dralloc.features import Features
    from dralloc.io.progress import Reporter

__all__ = ["live_source", "sources"]  # the sources of objects: dralloc.cli.sources, used through here

# name -> one line for `dralloc --help`, in the order it lists them
COMMANDS = {
    "allocate": "allocate claims on a node (or try every node) and print them with status.allocation",
    "explain": "why claims cannot be allocated on a node: a minimal conflicting set, in words",
    "check": "run scenario files and compare each engine's answer with the expected one",
    "verify": "verify the allocations in a cluster dump, compare them with Kubernetes' answer, "
              "explain pending pods",
    "plan": "capacity questions over a cluster: fit, add-nodes, layout, fragmentation",
    "availability": "what is left in each resource pool (ResourcePoolStatusRequest) and how many more of "
                    "each request shape fit, exactly",
    "generate": "generate clusters (GPUs with MIG counters, NICs, TPU blocks) and demand mixes",
    "validate": "check objects as the API server and the allocator would",
    "flatten": "print ResourceSlices with mixins applied, in resource.k8s.io/v1",
    "convert": "translate pre-v1 formats (composite devices, capacity pools, k8srm, dra-evolution) to v1",
    "encode": "print the CP-SAT model of an allocation question",
    "compare-versions": "what changes on upgrade: the same cluster under two Kubernetes releases, each change "
                        "with the gate or rule that makes it",
}

OUTPUTS = ("table", "wide", "yaml", "json")

_BACKTICKS = re.compile(r"``([^`]*)``")


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions as written (docstrings, RST ``literals`` shown plain);
    every option's help ends with its choices and its default when the text
    does not give them already."""

    def _format_text(self, text: str) -> str:
        return super()._format_text(_BACKTICKS.sub(r"\1", text))

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = _BACKTICKS.sub(r"\1", action.help or "")
        if action.help == argparse.SUPPRESS:
            return action.help
        extra = []
        if action.choices is not None and action.metavar is not None \
                and not isinstance(action, argparse._SubParsersAction) \
                and "%(choices)" not in text and "choices" not in text:  # a metavar hides the choices
            extra.append("choices: " + ", ".join(str(c) for c in action.choices))
        default = action.default
        shown = not (default is None or default is False or default == argparse.SUPPRESS or default in ([], ""))
        if shown and "default" not in text \
                and not isinstance(action, argparse._VersionAction):
            extra.append("default: %(default)s")
        return text + (f" ({'; '.join(extra)})" if extra else "")


def add_command(sub: Any, name: str, doc: str | None) -> argparse.ArgumentParser:
    """The parser of one command: its line from :data:`COMMANDS`, its module
    docstring as the description."""
    p: argparse.ArgumentParser = sub.add_parser(name, help=COMMANDS[name], description=doc,
                                                formatter_class=HelpFormatter)
    return p


# --- output -----------------------------------------------------------------

class _Deprecated(argparse.Action):
    """An old spelling of an option: works, with a warning naming the new one."""

    def __init__(self, *args: Any, new: str = "", mapping: dict[str, str] | None = None, **kw: Any) -> None:
        self.new = new
        self.mapping = mapping or {}
        super().__init__(*args, **kw)

    def __call__(self, parser: argparse.ArgumentParser, ns: argparse.Namespace, values: Any,
                 option: str | None = None) -> None:
        value = self.mapping.get(str(values), values)
        print(f"{parser.prog}: warning: {option} is deprecated; use {self.new} {value}", file=sys.stderr)
        setattr(ns, self.dest, value)


def add_output(p: argparse.ArgumentParser, choices: Sequence[str], default: str | None, what: str,
               old_format: dict[str, str] | None = None) -> None:
    """``-o/--output`` with ``choices`` (a subset of table, wide, yaml, json,
    in that spelling everywhere). ``old_format`` keeps an older ``--format``
    option working (old value -> new value), with a deprecation warning."""
    p.add_argument("-o", "--output", choices=tuple(choices), default=default, help=what)
    if old_format is not None:
        p.add_argument("--format", dest="output", choices=tuple(old_format), action=_Deprecated,
                       new="-o", mapping=old_format, help="deprecated spelling of -o")


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns aligned as kubectl aligns them (three spaces apart, the last
    column unpadded)."""
    allrows = [tuple(header), *[tuple(r) for r in rows]]
    widths = [max(len(r[i]) for r in allrows) for i in range(len(header))]
    return "\n".join("   ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip()
                     for r in allrows)


# --- reading files -----------------------------------------------------------

def add_input_args(p: argparse.ArgumentParser) -> None:
    """--kubernetes-version and the sources (:func:`add_source_args`), for
    every command that reads objects (the front door:
    :func:`dralloc.cli.inputs.read`)."""
    add_release_arg(p, live=True)
    add_source_args(p)


def add_source_args(p: argparse.ArgumentParser) -> None:
    """Where objects come from besides the files named, and how they are
    read: a live cluster (--kubeconfig, --context, -n, -A, --chunk-size,
    --request-timeout), --strict, --last-wins, --progress."""
    p.add_argument("--strict", action="store_true",
                   help="documents of kinds dralloc does not read are errors, not warnings")
    p.add_argument("--last-wins", action="store_true",
                   help="two objects of one kind and name: keep the later one (with a warning) "
                        "instead of refusing the input")
    p.add_argument("--progress", action="store_true",
                   help="show progress on stderr (a load over 2 s shows it anyway on a terminal)")
    live = p.add_argument_group(
        "a live cluster", "Any of these options reads the cluster's objects through the kubernetes client,\n"
        "as kubectl reads them, before the files named (if any).")
    live.add_argument("--kubeconfig", metavar="FILE",
                      help="the kubeconfig to use (default: $KUBECONFIG, else ~/.kube/config)")
    live.add_argument("--context", metavar="NAME", help="the kubeconfig context to use (default: its current one)")
    scope = live.add_mutually_exclusive_group()
    scope.add_argument("-n", "--namespace", metavar="NAMESPACE",
                       help="read the namespaced kinds (claims, templates, pods, gangs) of this namespace only; "
                            "devices held by claims of other namespaces then count as free")
    scope.add_argument("-A", "--all-namespaces", action="store_true",
                       help="read every namespace (the default when a cluster is read)")
    live.add_argument("--chunk-size", type=integer(0), default=500, metavar="N",
                      help="objects per list request (0: one request per kind; default: 500, as kubectl)")
    live.add_argument("--request-timeout", type=seconds, default=60.0, metavar="SECONDS",
                      help="time each request to the API server may take (default: 60)")


def progress(args: argparse.Namespace) -> bool | None:
    """--progress forces progress lines; without it, a terminal decides."""
    return True if getattr(args, "progress", False) else None


def reporter(args: argparse.Namespace) -> Reporter:
    """The command's progress reporter (:mod:`dralloc.io.progress`), one per
    run: engines get it as their ``progress`` callback."""
    from dralloc.io.progress import Reporter

    rep = getattr(args, "_reporter", None)
    if rep is None:
        rep = Reporter(progress(args))
        args._reporter = rep
    return rep


def warn(args: argparse.Namespace, lines: Sequence[str]) -> None:
    """One warning line per item on stderr, prefixed with the command."""
    for line in lines:
        print(f"dralloc {getattr(args, 'command', '') or ''}: warning: {line}".replace("  ", " "), file=sys.stderr)


# --- the release and its feature gates -------------------------------------

def add_release_arg(p: argparse.ArgumentParser, live: bool = False) -> None:
    """``--kubernetes-version``: the release answered for (dralloc.release);
    where a cluster can be read (``live``), its server's release is the default."""
    from dralloc.release import DEFAULT_RELEASE, RELEASES

    default = (f"the server's release when a cluster is read, else {DEFAULT_RELEASE}" if live
               else DEFAULT_RELEASE)
    p.add_argument("--kubernetes-version", type=kubernetes_version, default=None if live else DEFAULT_RELEASE,
                   metavar="VERSION",
                   help="the Kubernetes release to answer for: the feature gates it has on by default, "
                        "the API versions it serves (objects in others are read, with a warning) and the "
                        "allocator variant it picks (choices: " + ", ".join(RELEASES) + "; default: "
                        + default + ")")


def kubernetes_version(text: str) -> str:
    """An argparse type: a release dralloc answers for (``1.37``, ``v1.37``,
    ``1.37.2``), as its minor version."""
    from dralloc.release import release

    try:
        return release(text).version
    except InputError as e:
        raise argparse.ArgumentTypeError(e.message) from None


def release_of(args: argparse.Namespace) -> str | None:
    """The release answered for: --kubernetes-version, else the release of
    the cluster read (its server's /version, asked once), else None (the
    default)."""
    version: str | None = getattr(args, "kubernetes_version", None)
    if version is None:
        src = live_source(args)
        if src is not None:
            version = src.kubernetes_version
            args.kubernetes_version = version
    return version


def default_gates_text() -> str:
    """The default gates, as help texts list them."""
    from dralloc.features import DEFAULT_GATES, KUBERNETES_RELEASE

    return (f"those --kubernetes-version has on; Kubernetes {KUBERNETES_RELEASE}'s: "
            + ", ".join(DEFAULT_GATES))


def features_help(default: str) -> str:
    return ("comma-separated feature gates: names (exactly those on), Name=true|false entries (the "
            "release's defaults with those changed, as --feature-gates does), 'all' or 'none' (gates: "
            + ", ".join(_gate_names()) + f"; default: {default})")


def _gate_names() -> list[str]:
    from dralloc.features import GATES

    return sorted(GATES)


_TRUE = ("1", "t", "true")
_FALSE = ("0", "f", "false")


def parse_features(text: str | None, kubernetes_version: str | None = None) -> Features:
    """``--features`` of release ``kubernetes_version`` -> Features: None for
    the release's defaults, ``all``, ``none``, a comma-separated list of gate
    names (exactly those on) or of ``Name=true|false`` overrides of the
    release's defaults (an unknown gate, or one the release does not have,
    is an input error)."""
    from dralloc.features import Features

    if text is None:
        return Features.default(kubernetes_version)
    t = text.strip()
    if t == "all":
        return Features.all(kubernetes_version)
    if t == "none":
        return Features(kubernetes_version=Features.default(kubernetes_version).kubernetes_version)
    items = [g.strip() for g in t.split(",") if g.strip()]
    pairs = [i for i in items if "=" in i]
    if not pairs:
        return Features.from_gates(items, kubernetes_version)
    if len(pairs) != len(items):
        raise InputError("--features: give gate names (exactly those on) or Name=true|false overrides of "
                         "the release's defaults, not both")
    overrides: dict[str, bool] = {}
    for item in pairs:
        name, _, value = item.partition("=")
        v = value.strip().lower()
        if v not in _TRUE + _FALSE:
            raise InputError(f"--features: {item!r}: the value of a gate is true or false")
        overrides[name.strip()] = v in _TRUE
    return Features.with_overrides(overrides, kubernetes_version)


# --- one allocation question (allocate, explain, encode) ---------------------

def add_target_args(p: argparse.ArgumentParser) -> None:
    """Files, node, claims or pod, feature gates (resolved by
    :func:`dralloc.cli.inputs.resolve`)."""
    p.add_argument("files", nargs="*", metavar="FILE",
                   help="YAML/JSON files or folders (- for stdin), or one scenario file; none when a cluster "
                        "is read")
    add_input_args(p)
    p.add_argument("--node", help="node to allocate on (default: the pod's node, or the only Node in the files)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--claim", action="append", default=[], metavar="NS/NAME",
                     help="claim to allocate (repeatable; default: every unallocated claim, in file order)")
    who.add_argument("--pod", metavar="NS/NAME", help="allocate the claims of this pod")
    p.add_argument("--features", default=None, metavar="GATES",
                   help=features_help(default_gates_text() + "; a scenario's own list for scenario files"))


def add_compare_args(p: argparse.ArgumentParser) -> None:
    """first-fit against Kubernetes' own answer (``allocate(compare=...)``)."""
    from dralloc.solver.limits import help_text

    p.add_argument("--compare", choices=("auto", "always", "never"), default="auto",
                   help="first-fit: find out Kubernetes' own answer -- auto: replay its search only where a "
                        "documented defect can fire and no proof settles it; always: replay every time; "
                        "never: skip")
    p.add_argument("--compare-time-limit", type=seconds, metavar="SECONDS", default=None,
                   help=help_text("compare", "first-fit: time limit of that replay"))


# --- range-checked numbers ----------------------------------------------------

def integer(minimum: int = 0) -> Callable[[str], int]:
    """An argparse type: an integer of at least ``minimum``."""

    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if v < minimum:
            raise argparse.ArgumentTypeError(f"{v} is below the minimum of {minimum}")
        return v

    parse.__name__ = f"integer >= {minimum}"
    return parse


def seconds_or_none(text: str) -> float:
    """An argparse type: :func:`seconds`, or ``none`` for no limit
    (:data:`dralloc.solver.limits.NO_LIMIT`)."""
    if text.strip().lower() == "none":
        from dralloc.solver.limits import NO_LIMIT

        return NO_LIMIT
    try:
        return seconds(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"{text!r} is neither a positive number of seconds nor none") from None


def seconds(text: str) -> float:
    """An argparse type: a positive, finite number of seconds."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(v) or v <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number of seconds")
    return v


def positive_fraction(text: str) -> Fraction:
    """An argparse type: a positive exact number (``1.3``, ``13/10``)."""
    try:
        v = Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if v <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not positive")
    return v


POSITIVE = integer(1)
NON_NEGATIVE = integer(0)


# --- files ------------------------------------------------------------------

def output_dir(folder: str | Path, option: str, given: str | Path | None = None) -> Path:
    """A folder about to be written into for ``option`` (``--out-dir``...),
    created with its parents if missing; a file in the way, permissions or a
    full disk are an input error naming the option and what was given."""
    d = Path(folder)
    shown = f"{option} {given if given is not None else folder}"
    try:
        d.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocker = next((a for a in [d, *d.parents] if a.exists() and not a.is_dir()), d)
        raise InputError(f"{shown}: cannot create folder {d}: {blocker} is a file") from None
    except OSError as e:
        raise InputError(f"{shown}: cannot create folder {d}: {e.strerror or e}") from None
    return d


def output_path(path: str | Path, option: str) -> Path:
    """A file about to be written for ``option`` (``--png``...), its missing
    folders created (see :func:`output_dir`)."""
    p = Path(path)
    output_dir(p.parent, option, path)
    if p.is_dir():
        raise InputError(f"{option} {path}: {p} is a folder, not a file")
    return p


class OutputError(DrallocError):
    """Standard output cannot be written (a full disk, a closed device)."""


def flush_stdout() -> None:
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as e:
        raise OutputError(f"cannot write to standard output: {e.strerror or e}") from None


def to_stdout(write: Callable[[Any], object]) -> None:
    """``write(sys.stdout)``, then flush: a write error is an :class:`OutputError`.
    A progress line in place on the terminal is erased first."""
    from dralloc.io.progress import clear_line

    clear_line()
    try:
        write(sys.stdout)
    except BrokenPipeError:
        raise
    except OSError as e:
        raise OutputError(f"cannot write to standard output: {e.strerror or e}") from None
    flush_stdout()


def emit_objects(docs: list[dict[str, Any]], fmt: str) -> None:
    """Kubernetes objects on standard output, streamed (yaml or json)."""
    from dralloc.io.emit import write_objects

    to_stdout(lambda out: write_objects(docs, fmt, out))


def emit(text: str) -> None:
    """Print a result (the text as is, ending with one newline) and flush,
    so the answer is out before anything else (pictures, files) is written."""
    to_stdout(lambda out: out.write(text if text.endswith("\n") or not text else text + "\n"))
