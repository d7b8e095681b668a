"""``dralloc encode``: print the CP-SAT model of an allocation question."""

from __future__ import annotations

import argparse

from dralloc.cli.inputs import add_target_args, problem_from_args
from dralloc.encoders import encode


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("encode", help="print the CP-SAT model (protobuf text) of an allocation question")
    add_target_args(p)
    p.add_argument("--stats", action="store_true", help="print model statistics instead of the model")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    enc = encode(problem_from_args(args))
    if args.stats:
        print(f"variables: {len(enc.model.proto.variables)}, constraints: {len(enc.model.proto.constraints)}")
    else:
        print(enc.model.proto)
    return 0
