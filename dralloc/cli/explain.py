"""``dralloc explain FILES``: why the claims cannot be allocated on a node, in
words: a minimal set of requirements that cannot hold together (found by
CP-SAT with one assumption per request, device, counter set and constraint,
then shrunk), and per request how many devices each filter of the inventory
excluded.

For ``--pod``, claims allocated already are kept, as the scheduler keeps
them: a pod whose claims are all allocated is explained by their
allocations ("allocated already ... nothing to allocate", or the claim
whose allocation does not admit the node), not allocated again.

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
    from dralloc.cli.inputs import Settled, problem_from_args
    from dralloc.errors import AllocationError
    from dralloc.extended import NodeRefuses
    from dralloc.io.emit import render
    from dralloc.solver.explain import explanation

    def early(table: str, data: dict[str, str], code: int) -> int:
        """An answer found before any search: a line, or the object in the asked format."""
        common.emit(table if args.output == "table" else render(data, args.output))
        return code

    try:
        problem = problem_from_args(args)
    except Settled as e:   # a pod whose claims are allocated already: their allocations answer
        return early(str(e), {"status": "settled", "reason": str(e)}, 0)
    except NodeRefuses as e:
        return early(f"the node does not take the pod, before any device is searched: {e}",
                     {"status": "refused", "why": str(e)}, 1)
    except AllocationError as e:
        return early(f"the Kubernetes allocator fails before searching: {e}", {"status": "error", "error": str(e)}, 1)
    found = explanation(problem, args.time_limit)
    if args.output == "table":
        common.emit("\n".join(found.lines()))
    else:
        common.emit(render(found.to_dict(), args.output))
    return 0
