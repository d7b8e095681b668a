"""``dralloc generate``: clusters shaped like what real drivers publish (the
NVIDIA GPU driver's whole GPUs and DynamicMIG devices over shared counters,
dranet's NICs on the GPUs' PCIe roots, KEP-4815 TPU blocks), deterministic for
a seed, and demand mixes, as resource.k8s.io/v1 YAML (or one JSON List).

    dralloc generate cluster --nodes 1000 > cluster.yaml               # DynamicMIG A100 nodes
    dralloc generate cluster --types gpu=600,mig=400 --nics 4 --out-dir cluster/
    dralloc generate cluster --types mig:h100-80gb-sxm5=8,tpu=16 --seed 7

Large clusters go to ``--out-dir``: ``classes.yaml`` and files of
``--per-file`` nodes each (``nodes-0000.yaml``...), with progress on stderr."""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from dralloc.cli import common, objects
from dralloc.errors import InputError
from dralloc.planner.generate.aidemand import GANG_APIS
from dralloc.planner.generate.nodes import KINDS, NodeType
from dralloc.planner.generate.profiles import gpu_models

if TYPE_CHECKING:
    from dralloc.planner.generate.emit import Progress

PROGRESS_EVERY = 100     # nodes between progress lines when writing to stdout


def _mix(text: str) -> dict[str, int]:
    out = {}
    for part in text.split(","):
        name, _, weight = part.partition("=")
        try:
            w = int(weight or "1")
        except ValueError:
            raise InputError(f"--mix: {part!r} is not PROFILE=WEIGHT with an integer weight") from None
        if w < 0:
            raise InputError(f"--mix: {part!r}: a weight cannot be negative")
        out[name.strip()] = w
    return out


def register(sub: Any) -> None:
    p = common.add_command(sub, "generate", __doc__)
    what = p.add_subparsers(dest="what", metavar="WHAT", required=True)
    models = sorted(gpu_models())
    c = what.add_parser("cluster", help="nodes as the GPU, NIC and TPU drivers publish them",
                        description="Nodes, ResourceSlices and DeviceClasses as the NVIDIA GPU driver, dranet "
                                    "and a TPU driver publish them, deterministic for a seed.",
                        formatter_class=common.HelpFormatter)
    c.add_argument("--nodes", type=common.POSITIVE, default=4, help="nodes of --type")
    c.add_argument("--type", choices=KINDS, default="mig",
                   help="mig: GPUs under the NVIDIA driver's DynamicMIG (MIG devices over shared counters); "
                        "gpu: whole GPUs (MIG off); tpu: blocks of four TPU hosts (KEP-4815)")
    c.add_argument("--types", metavar="KIND[:GPU]=NODES,...",
                   help="a mixed cluster, e.g. gpu=600,mig=400 or mig:h100-80gb-sxm5=8,tpu=16 (replaces --nodes/--type)")
    c.add_argument("--gpu", default="a100-40gb", choices=models, help="GPU model")
    c.add_argument("--gpus", type=common.NON_NEGATIVE, default=8, help="GPUs per node")
    c.add_argument("--nics", type=common.NON_NEGATIVE, default=0,
                   help="RDMA NICs per GPU node (dranet), spread over the PCIe roots")
    c.add_argument("--tpu", action="store_true", help="same as --type tpu")
    c.add_argument("--profiles", metavar="LIST",
                   help="comma-separated MIG profiles to publish (default: all, as the driver does)")
    c.add_argument("--full-gpu", action=argparse.BooleanOptionalAction, default=None,
                   help="publish the full GPU next to its MIG devices (default: as the driver does, Hopper and later)")
    c.add_argument("--seed", type=common.NON_NEGATIVE, default=0, help="seed for UUIDs, slice names and addresses")
    c.add_argument("--prefix", help="node name prefix (default: the kind); one type only")
    c.add_argument("--out-dir", metavar="DIR",
                   help="write classes.yaml and files of --per-file nodes into this directory (created if missing)")
    c.add_argument("--per-file", type=common.POSITIVE, default=100,
                   help="nodes per file with --out-dir (a TPU block of four hosts counts as one)")
    common.add_output(c, objects.OUTPUTS, "yaml", "output format (--out-dir: yaml or json, one JSON List per "
                      "file); table/wide list the objects", old_format={"yaml": "yaml", "json": "json"})
    c.set_defaults(func=run_cluster)
    _demand_parser(what, models)


def _demand_parser(what: Any, models: list[str]) -> None:
    d = what.add_parser("demand", help="workloads asking for MIG devices, TPU slices or an AI cluster's mix",
                        description="ResourceClaimTemplates and Pods (or claims) asking for MIG profiles, TPU "
                                    "slices, or (--ai) an AI cluster's mix: training gangs of 8-GPU pods with "
                                    "their NICs on the GPUs' PCIe roots, 1-GPU inference pods and MIG pods.",
                        formatter_class=common.HelpFormatter)
    d.add_argument("--gpu", default="a100-40gb", choices=models, help="GPU model")
    d.add_argument("--mix", help="PROFILE=WEIGHT,... e.g. 1g.5gb=3,3g.20gb=1 (with --tpu: TOPOLOGY=WEIGHT, e.g. "
                                 "4x4=1,2x4=2,2x2=4; with --ai: train, infer and MIG profiles, default "
                                 "train=75,infer=25,1g.5gb=5,2g.10gb=3,3g.20gb=2: train and infer share the "
                                 "whole-GPU nodes' GPUs, the profiles the MIG pods)")
    d.add_argument("--tpu", action="store_true",
                   help="TPU slices: per slice a shared claim and one pod per host (--claims counts slices)")
    d.add_argument("--ai", action="store_true",
                   help="an AI cluster's mix for the nodes of --types (gpu and mig kinds), at --load")
    size = d.add_mutually_exclusive_group(required=True)
    size.add_argument("--claims", type=common.NON_NEGATIVE, help="claims in all")
    size.add_argument("--load", type=common.positive_fraction,
                      help="compute asked for / the cluster's (e.g. 1.3); needs --nodes (or --types with --ai)")
    d.add_argument("--nodes", type=common.NON_NEGATIVE, default=0, help="nodes of the cluster --load refers to")
    d.add_argument("--gpus", type=common.POSITIVE, default=8, help="GPUs per node of that cluster")
    d.add_argument("--priorities", type=common.POSITIVE, default=1,
                   help="spread each profile (with --ai: each kind of plain pod) over this many priorities")
    ai = d.add_argument_group("AI mix (--ai)")
    ai.add_argument("--types", metavar="KIND[:GPU]=NODES,...",
                    help="the cluster --load refers to, as for generate cluster (e.g. gpu=50,mig=50)")
    ai.add_argument("--nics", type=common.NON_NEGATIVE, default=0,
                    help="RDMA NICs per whole-GPU node of that cluster (training pods get theirs on their GPUs' roots)")
    ai.add_argument("--train-gpus", type=common.POSITIVE, metavar="N",
                    help="GPUs per training pod (default: a whole-GPU node's)")
    ai.add_argument("--gang-sizes", default="2-8", metavar="MIN-MAX",
                    help="pods per training gang, drawn with --seed (the last gang takes what is left)")
    ai.add_argument("--min-count", default="all", metavar="all|N|FRACTION",
                    help="a gang's minCount: every pod, N pods, or a fraction of the gang rounded up (e.g. 0.5)")
    ai.add_argument("--gang-api", choices=GANG_APIS, default="podgroup",
                    help="gangs as PodGroups, Workloads with PodGroups (1.35: a Workload's pod groups) or the "
                         "planner's annotation planner.dralloc.dev/gang; scheduling.k8s.io objects in the "
                         "versions --kubernetes-version serves (1.37: v1beta1)")
    ai.add_argument("--gang-priority", type=int, metavar="P",
                    help="priority of the training pods (default: above every other pod, --priorities)")
    ai.add_argument("--seed", type=common.NON_NEGATIVE, default=0, help="seed for the gang sizes")
    common.add_release_arg(d)
    common.add_output(d, objects.OUTPUTS, "yaml", "output format")
    d.set_defaults(func=run_demand)


def node_types(args: argparse.Namespace) -> list[tuple[NodeType, int]]:
    profiles = tuple(p.strip() for p in args.profiles.split(",")) if args.profiles else None

    def make(kind: str, gpu: str, name: str = "") -> NodeType:
        return NodeType(kind, gpu, args.gpus, args.nics, profiles, args.full_gpu, name)

    if not args.types:
        kind = "tpu" if args.tpu else args.type
        return [(make(kind, args.gpu, args.prefix or "node"), args.nodes)]
    if args.prefix:
        raise InputError("--prefix names the nodes of one type; with --types each kind names its own")
    return parse_types(args.types, args.gpu, make)


def parse_types(text: str, gpu: str, make: Callable[[str, str, str], NodeType]) -> list[tuple[NodeType, int]]:
    """``--types KIND[:GPU]=NODES,...``: node types with counts (``make(kind, gpu, name)``)."""
    out = []
    for part in text.split(","):
        spec, _, count = part.partition("=")
        kind, _, model = spec.strip().partition(":")
        try:
            n = int(count)
        except ValueError:
            raise InputError(f"--types: {part!r} is not KIND[:GPU]=NODES") from None
        name = f"{kind}-{model}" if model else kind
        out.append((make(kind, model or gpu, name), n))
    return out


def run_cluster(args: argparse.Namespace) -> int:
    from dralloc.io.progress import Reporter, counter
    from dralloc.planner.generate import clusters as gen
    from dralloc.planner.generate.emit import write_dir, write_groups

    types = node_types(args)
    total = sum(n for _, n in types)
    groups = gen.iter_cluster(types, args.seed)
    classes = next(groups)
    if args.out_dir:
        if args.output not in ("yaml", "json"):
            raise InputError(f"--out-dir writes yaml or json files, not {args.output}")
        root = common.output_dir(args.out_dir, "--out-dir")
        rep = Reporter(True)   # files written: progress in a log too
        paths = write_dir(classes, groups, root, args.per_file, total, args.output, counter(rep, "generate: nodes"))
        rep.finish()
        print(f"wrote {paths[0]} and {len(paths) - 1} node file(s) ({total} nodes) in {args.out_dir}", file=sys.stderr)
        return 0
    show = counter(Reporter(True), "generate: nodes") if total >= 2 * PROGRESS_EVERY else None
    everything = itertools.chain([classes], _counting(groups, total, show))  # streamed
    if args.output in ("table", "wide"):
        objects.emit([d for g in everything for d in g], args.output)
    else:
        common.to_stdout(lambda out: write_groups(everything, out, args.output))
    return 0


def _counting(groups: Iterator[list[dict[str, Any]]], total: int,
              show: Progress | None) -> Iterator[list[dict[str, Any]]]:
    done = 0
    for g in groups:
        yield g
        before, done = done, done + sum(1 for d in g if d.get("kind") == "Node")
        if show and (done // PROGRESS_EVERY > before // PROGRESS_EVERY or done == total):
            show(done, total)


def _tpu_slices(args: argparse.Namespace, load: Fraction | None) -> int:
    from dralloc.planner.generate import tpu

    if load is None:
        return int(args.claims)
    mix = _mix(args.mix)
    wsum = sum(mix.values())
    if wsum <= 0 or any(t not in tpu.TOPOLOGIES for t in mix):
        raise InputError(f"--mix {args.mix}: give TOPOLOGY=WEIGHT with topologies {', '.join(tpu.TOPOLOGIES)}")
    mean = Fraction(sum(tpu.TOPOLOGIES[t][0] * w for t, w in mix.items()), wsum)
    return int(load * args.nodes * tpu.HOST_TPUS / mean)


def _sizes(text: str) -> tuple[int, int]:
    lo, _, hi = text.partition("-")
    try:
        return int(lo), int(hi or lo)
    except ValueError:
        raise InputError(f"--gang-sizes {text}: give MIN-MAX (e.g. 2-8) or one size") from None


def _ai_demand(args: argparse.Namespace, load: Fraction | None) -> list[dict[str, Any]]:
    from dralloc.planner.generate.aidemand import Gangs, ai_demand

    if load is None or not args.types:
        raise InputError("--ai needs --load and --types (the cluster the load refers to, e.g. gpu=50,mig=50)")
    types = parse_types(args.types, args.gpu, lambda kind, gpu, name: NodeType(kind, gpu, args.gpus, args.nics,
                                                                                name=name))
    gangs = Gangs(_sizes(args.gang_sizes), args.min_count, args.gang_api, args.gang_priority,
                  common.release_of(args))
    return ai_demand(types, load, _mix(args.mix) if args.mix else None, gangs, args.train_gpus,
                     args.priorities, args.seed)


def run_demand(args: argparse.Namespace) -> int:
    from dralloc.planner.generate import clusters as gen
    from dralloc.planner.generate import tpu
    from dralloc.planner.generate.emit import write_groups

    load: Fraction | None = args.load
    if args.ai and args.tpu:
        raise InputError("--ai and --tpu: choose one")
    if args.ai:
        docs = _ai_demand(args, load)
    else:
        if not args.mix:
            raise InputError("--mix is needed (PROFILE=WEIGHT,...; with --tpu TOPOLOGY=WEIGHT,...)")
        if args.types:
            raise InputError("--types describes the cluster of an AI mix: give --ai, or --nodes and --gpus")
        if load is not None and args.nodes <= 0:
            raise InputError("--load needs --nodes (the size of the cluster it is relative to)")
        if args.tpu:
            docs = tpu.tpu_demand(_mix(args.mix), _tpu_slices(args, load), args.priorities)
        else:
            docs = gen.mig_demand(args.gpu, _mix(args.mix), args.claims, load, args.nodes, args.gpus,
                                  args.priorities)
    if args.output in ("table", "wide"):
        objects.emit(docs, args.output)
    else:
        common.to_stdout(lambda out: write_groups([docs], out, args.output))
    return 0
