"""``dralloc explain FILES``: why the claims cannot be allocated on a node, in
words: a minimal set of requirements that cannot hold together (found by
CP-SAT with one assumption per request, device, counter set and constraint,
then shrunk), and per request how many devices each filter of the inventory
excluded.

Exit code 0: explained (or nothing to explain: the claims fit); 1: the
Kubernetes allocator fails before searching (the reason is printed); 2: bad
input."""

from __future__ import annotations

import argparse
from typing import Any

from dralloc.cli import common
from dralloc.solver.limits import DEFAULTS, help_text


def register(sub: Any) -> None:
    p = common.add_command(sub, "explain", __doc__)
    common.add_target_args(p)
    p.add_argument("--time-limit", type=common.seconds, default=DEFAULTS["explain"], metavar="SECONDS",
                   help=help_text("explain", "seconds for the whole search (its CP-SAT calls share one deadline)"))
    common.add_output(p, ("table", "yaml", "json"), "table",
                      "output format: table is the explanation in words, yaml/json the same as data")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dralloc.cli.inputs import problem_from_args
    from dralloc.errors import AllocationError
    from dralloc.extended import NodeRefuses
    from dralloc.io.emit import render
    from dralloc.solver.explain import explanation

    try:
        problem = problem_from_args(args)
    except NodeRefuses as e:
        if args.output == "table":
            common.emit(f"the node does not take the pod, before any device is searched: {e}")
        else:
            common.emit(render({"status": "refused", "why": str(e)}, args.output))
        return 1
    except AllocationError as e:
        if args.output == "table":
            common.emit(f"the Kubernetes allocator fails before searching: {e}")
        else:
            common.emit(render({"status": "error", "error": str(e)}, args.output))
        return 1
    found = explanation(problem, args.time_limit)
    if args.output == "table":
        common.emit("\n".join(found.lines()))
    else:
        common.emit(render(found.to_dict(), args.output))
    return 0
