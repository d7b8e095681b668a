"""``dralloc plan make-room`` and ``dralloc plan drain``: their options and
their run (the rest of ``dralloc plan`` is in :mod:`dralloc.cli.plan`)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from dralloc.cli import common

QUESTIONS = ("make-room", "drain")


def add_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("make-room and drain")
    g.add_argument("--for", dest="for_pod", metavar="NS/POD", help="make-room: the pending pod to make room for")
    g.add_argument("--for-gang", metavar="KEY",
                   help="make-room: the pending gang (ns/podgroup, ns/workload/group or the annotation's ns/name)")
    g.add_argument("--mode", choices=("evict", "move"), default="evict",
                   help="make-room, drain: disrupted pods are gone (evict) or placed again elsewhere (move)")
    g.add_argument("--cost", choices=("count", "priority"), default="count",
                   help="make-room, drain: minimise the number of disrupted pods, or weigh them by priority "
                        "(one pod of a priority outweighs all pods of lower priorities)")
    g.add_argument("--node", action="append", default=[], metavar="NAME",
                   help="drain: a node to drain (repeatable)")
    g.add_argument("--device-taint", metavar="RULE.yaml",
                   help="drain: DeviceTaintRule(s) to apply (resource.k8s.io v1alpha3, v1beta2 or v1)")


def check_not_used(args: argparse.Namespace) -> None:
    """Options of one question given to another: an input error."""
    from dralloc.errors import InputError

    mine = {"make-room": ("for_pod", "for_gang"), "drain": ("node", "device_taint")}
    for q, opts in mine.items():
        for o in opts:
            if getattr(args, o) and args.question != q:
                raise InputError(f"--{o.replace('_', '-').replace('for-pod', 'for')} is for plan {q}")
    if args.question not in QUESTIONS and (args.mode != "evict" or args.cost != "count"):
        raise InputError("--mode and --cost are for plan make-room and plan drain")
    if args.question in QUESTIONS and (args.template or args.template_file or args.add):
        raise InputError(f"plan {args.question} takes no --template, --template-file or --add")


def run(args: argparse.Namespace) -> int:
    from dralloc.cli.inputs import read
    from dralloc.errors import InputError
    from dralloc.planner.makeroom.answer import answer_make_room
    from dralloc.planner.makeroom.drain import drain
    from dralloc.planner.makeroom.report import render
    from dralloc.planner.makeroom.room import Options
    from dralloc.planner.makeroom.work import select_work

    check_not_used(args)
    opts = Options(args.mode, args.cost, args.time_limit, args.workers, common.reporter(args))
    feats = common.parse_features(args.features, common.release_of(args))
    objs = read(args, [*args.paths, *args.demand])
    if args.question == "make-room":
        names = None
        if args.demand:
            names = {f"{p.metadata.namespace or 'default'}/{p.name}" for p in read(args, args.demand, cluster=False).pods}
        work = select_work(objs, args.for_pod, args.for_gang, names, ", ".join(args.demand), feats)
        answer: Any = answer_make_room(objs, feats, work, opts)
        data = answer.data
    else:
        if args.demand:
            raise InputError("plan drain takes no --demand: the displaced pods are the demand")
        rules = list(read(args, [args.device_taint], cluster=False).taint_rules) if args.device_taint else []
        if args.device_taint and not rules:
            raise InputError(f"--device-taint {args.device_taint}: no DeviceTaintRule in it")
        answer = drain(objs, feats, args.node, rules, opts)
        data = answer.data
    common.emit(render([data], "table" if args.output == "wide" else args.output))
    room = data.get("makeRoom", data) if data["question"] == "drain" else data
    if args.png:
        from dralloc.planner.makeroom.pictures import write_pictures

        common.output_path(f"{args.png.removesuffix('.png')}-before-after.png", "--png")
        for path in write_pictures(answer, objs, args.png):
            print(f"wrote {path}", file=sys.stderr)
    if data["question"] == "drain" and not data.get("makeRoom"):
        return 0
    return 0 if room.get("status") == "plan" else 1
