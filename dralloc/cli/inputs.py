"""Shared command-line inputs for the commands that look at one allocation
question: files, node, claims, features."""

from __future__ import annotations

import argparse

from dralloc.errors import InputError
from dralloc.features import Features
from dralloc.inventory.problem import Problem, build_problem
from dralloc.io import ObjectSet, load
from dralloc.models import Node, ObjectMeta, ResourceClaim

DEFAULT_GATES = ("DRAPrioritizedList", "DRAPartitionableDevices", "DRADeviceTaints", "DRAAdminAccess",
                 "DRAConsumableCapacity", "DRADeviceBindingConditions")


def add_problem_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help="YAML/JSON files or folders (- for stdin)")
    p.add_argument("--node", help="node to allocate on (default: the only Node in the files)")
    p.add_argument("--claim", action="append", default=[], metavar="NS/NAME",
                   help="claim to allocate (repeatable; default: every unallocated claim, in order)")
    p.add_argument("--features", default=",".join(DEFAULT_GATES),
                   help="comma-separated feature gates (default: %(default)s)")


def resolve(args: argparse.Namespace) -> tuple[ObjectSet, Node, list[ResourceClaim], Features]:
    objs = load(args.files, skip_unknown=True)
    if objs.errors:
        raise objs.errors[0]
    features = Features.from_gates([g for g in args.features.split(",") if g])
    if args.node:
        node = objs.node(args.node) or Node(metadata=ObjectMeta(name=args.node))
    elif len(objs.nodes) == 1:
        node = objs.nodes[0]
    else:
        raise InputError("--node is required (the files hold " + str(len(objs.nodes)) + " Node objects)")
    if args.claim:
        claims = []
        for key in args.claim:
            c = objs.claim(key)
            if c is None:
                raise InputError(f"claim {key} not found in the files")
            claims.append(c)
    else:
        claims = [c for c in objs.claims if not (c.status and c.status.allocation)]
    return objs, node, claims, features


def problem_from_args(args: argparse.Namespace) -> Problem:
    objs, node, claims, features = resolve(args)
    ids = {id(c) for c in claims}
    allocated = [c for c in objs.claims if id(c) not in ids and c.status and c.status.allocation]
    return build_problem(objs.slices, objs.classes, node, claims, allocated, features)
