"""``dralloc plan QUESTION FILES...``: capacity questions over a whole
cluster, first-fit (what the scheduler would do, pod by pod) and the optimum
side by side.

Questions: fit (how many of the demand fit), add-nodes (how many nodes of a
type to add so that all fit), layout (which MIG layout serves the demand),
fragmentation (how much capacity is stranded), make-room (the fewest
disruptions of running pods that let pending work fit), drain (what draining
nodes or a DeviceTaintRule displaces, and whether it fits elsewhere). The
answer is printed first; pictures (--png) are written after it, into folders
created as needed."""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dralloc.cli import common, makeroom
from dralloc.planner.objective import DEFAULT as DEFAULT_OBJECTIVE
from dralloc.planner.objective import OBJECTIVES
from dralloc.planner.questions import QUESTIONS
from dralloc.planner.simulate import POLICIES
from dralloc.solver.limits import help_text

if TYPE_CHECKING:
    from dralloc.planner.answer import Answer
    from dralloc.planner.api import Options


def register(sub: Any) -> None:
    p = common.add_command(sub, "plan", __doc__)
    p.add_argument("question", choices=(*QUESTIONS, *makeroom.QUESTIONS), help="the capacity question")
    p.add_argument("paths", nargs="*", metavar="FILE",
                   help="cluster files (nodes, slices, classes, claims) and the demand "
                        "(pods with templates, unallocated claims); a live cluster read (--context, "
                        "--kubeconfig, -n, -A) comes before them")
    p.add_argument("--demand", action="append", default=[], metavar="FILE",
                   help="a demand file; repeat for a what-if sweep (one answer per demand)")
    p.add_argument("--template", metavar="NODE", help="add-nodes: the node to add copies of")
    p.add_argument("--template-file", action="append", default=[], metavar="FILE",
                   help="add-nodes: a node type (Node + slices) not part of the cluster; repeat for a sweep")
    p.add_argument("--add", type=common.NON_NEGATIVE, default=0, metavar="N",
                   help="fit: what if N copies of --template NODE (or of the --template-file node or block) are added")
    p.add_argument("--policy", choices=POLICIES, default="first",
                   help="node choice of the first-fit simulation: first feasible by name, or the feasible "
                        "node with the most / least DRA utilisation (as cluster-autoscaler computes it)")
    p.add_argument("--objective", choices=tuple(OBJECTIVES), default=DEFAULT_OBJECTIVE,
                   help="what the optimum maximises: " + "; ".join(f"{k}: {v}" for k, v in OBJECTIVES.items())
                        + " (add-nodes and layout place the whole demand whatever it is)")
    p.add_argument("--time-limit", type=common.seconds, metavar="SECONDS",
                   help=help_text("plan", "time limit of each CP-SAT model a question solves (each component or "
                                  "part, each node count add-nodes tries; the configuration model's stages share "
                                  "it)"))
    p.add_argument("--workers", type=common.POSITIVE, default=2, help="CP-SAT workers and sweep processes")
    p.add_argument("--scheduler", metavar="ADDRESS", help="run sweeps on this Dask scheduler (tcp://host:port)")
    common.add_output(p, common.OUTPUTS, "table",
                      "output format (wide: every unit of a layout, not the first 20)")
    p.add_argument("--png", metavar="PREFIX",
                   help="write pictures to PREFIX-compare.png, PREFIX-workloads.png, PREFIX-nodes.png, "
                        "PREFIX-utilisation.png, PREFIX-occupancy.png, as the question calls for (folders are "
                        "created; the files written are listed on stderr)")
    p.add_argument("--timings", action="store_true",
                   help="also print how long each model took (wall-clock: left out by default, so that the "
                        "same inputs always print the same bytes)")
    p.add_argument("--features", default=None, metavar="GATES",
                   help=common.features_help(common.default_gates_text()))
    makeroom.add_args(p)
    common.add_input_args(p)
    p.set_defaults(func=run)


def _sweep(args: argparse.Namespace, opts: Options) -> list[Answer]:
    from dralloc.planner.answer import Answer
    from dralloc.planner.api import answer_files
    from dralloc.planner.parallel import run_all

    demands = [[d] for d in args.demand] or [[]]
    templates = [[t] for t in args.template_file] or [[]]
    opts = replace(opts, progress=None)   # each answer runs in its own process: the sweep reports per answer
    with tempfile.TemporaryDirectory(prefix="dralloc-plan-") as folder:
        cluster = [*_snapshot(args, Path(folder)), *args.paths]
        if not cluster and not args.demand:
            common.sources(args, [])  # nothing to read: the one error
        tasks = [(args.question, cluster, d, opts, t, args.strict, args.last_wins)
                 for d in demands for t in templates]
        dicts = run_all(answer_files, tasks, args.scheduler, args.workers, common.reporter(args))
    common.warn(args, sorted({w for d in dicts for w in d.get("warnings", [])}))
    return [Answer(d["question"], d["firstFit"], d["optimal"], d["gap"], {**d.get("detail", {}), **{
        "inputs": d["inputs"]}}, objective=d.get("objective", {})) for d in dicts]


def _snapshot(args: argparse.Namespace, folder: Path) -> list[str]:
    """A sweep's workers read files: the live cluster, if one is read, is
    saved once into ``folder`` for them (its notes printed here)."""
    src = common.live_source(args)
    if src is None:
        return []
    path = folder / "cluster.json"
    common.warn(args, src.save(path))
    return [str(path)]


def run(args: argparse.Namespace) -> int:
    from dralloc.cli.inputs import read
    from dralloc.errors import InputError
    from dralloc.planner.api import Options, answer
    from dralloc.planner.report.tables import render

    if args.question in makeroom.QUESTIONS:
        return makeroom.run(args)
    makeroom.check_not_used(args)
    feats = common.parse_features(args.features, common.release_of(args))
    opts = Options(policy=args.policy, time_limit=args.time_limit, workers=args.workers,
                   template=args.template, progress=common.reporter(args), add=args.add, gates=tuple(feats.gates()),
                   kubernetes_version=feats.kubernetes_version, objective=args.objective)
    if len(args.demand) > 1 or len(args.template_file) > 1 or args.scheduler:
        answers = _sweep(args, opts)
    else:
        objs = read(args, [*args.paths, *args.demand])
        tmpl = read(args, args.template_file, cluster=False) if args.template_file else None
        if tmpl is not None:
            if not tmpl.nodes:
                raise InputError(f"--template-file {args.template_file[0]}: no Node in it")
            opts.template = opts.template or tmpl.nodes[0].name
        answers = [answer(args.question, objs, opts, tmpl)]
    common.emit(render(answers, args.output, args.timings))
    if args.png:
        _pictures(args, answers)
    return 0


def _pictures(args: argparse.Namespace, answers: list[Answer]) -> None:
    """After the answer: a picture that cannot be written is a one-line error (exit 2)."""
    from dralloc.planner.report import plots

    common.output_path(f"{args.png.removesuffix('.png')}-compare.png", "--png")  # folders, or a one-line error
    for path in plots.write_all(answers, args.png):
        print(f"wrote {path}", file=sys.stderr)
