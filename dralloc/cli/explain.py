"""``dralloc explain``: why the claims cannot be allocated on a node, in words."""

from __future__ import annotations

import argparse

from dralloc.cli.inputs import add_target_args, problem_from_args
from dralloc.errors import AllocationError
from dralloc.solver.explain import explain


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("explain", help="explain why claims cannot be allocated on a node (minimal core)")
    add_target_args(p)
    p.add_argument("--time-limit", type=float, default=10.0, help="seconds for the whole search (default 10)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        problem = problem_from_args(args)
    except AllocationError as e:
        print(f"the Kubernetes allocator fails before searching: {e}")
        return 1
    for line in explain(problem, args.time_limit):
        print(line)
    return 0
