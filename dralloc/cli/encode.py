"""``dralloc encode FILES``: the CP-SAT model of an allocation question, with
readable variable names (``x[claim|request|driver/pool/device]`` per device
choice, ``opt[claim|request]`` per alternative).

Output: ``-o text`` the model in protobuf text format (what CP-SAT reads back),
``-o json``/``-o yaml`` the same model as data (protobuf's JSON mapping,
camelCase), ``-o table`` its statistics."""

from __future__ import annotations

import argparse
from typing import Any

from dralloc.cli import common


def register(sub: Any) -> None:
    p = common.add_command(sub, "encode", __doc__)
    common.add_target_args(p)
    common.add_output(p, ("text", "json", "yaml", "table"), "text",
                      "output format: the model as protobuf text, as JSON/YAML data, or a table of its size")
    p.add_argument("--stats", action="store_true", help="the same as -o table (kept for older scripts)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from google.protobuf import json_format, text_format
    from ortools.sat import cp_model_pb2

    from dralloc.cli.inputs import Settled, problem_from_args
    from dralloc.encoders import encode
    from dralloc.errors import InputError
    from dralloc.io.emit import render

    try:
        problem = problem_from_args(args)
    except Settled as e:
        raise InputError(f"--pod {args.pod}: no model to encode: {e}") from None
    enc = encode(problem)
    fmt = "table" if args.stats else args.output
    text = str(enc.model.proto)
    if fmt == "text":
        common.emit(text)
        return 0
    # a protobuf message (OR-Tools' own proto wrappers are not one)
    proto = text_format.Parse(text, cp_model_pb2.CpModelProto())
    if fmt == "table":
        kinds: dict[str, int] = {}
        for c in proto.constraints:
            kind = c.WhichOneof("constraint") or "empty"
            kinds[kind] = kinds.get(kind, 0) + 1
        rows = [["variables", str(len(proto.variables))], ["constraints", str(len(proto.constraints))]]
        rows += [[f"  {k}", str(n)] for k, n in sorted(kinds.items())]
        common.emit(common.format_table(["MODEL", "COUNT"], rows))
    else:
        common.emit(render(json_format.MessageToDict(proto), fmt))
    return 0
