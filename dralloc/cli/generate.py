"""``dralloc generate``: realistic clusters (GPUs with real MIG profile tables,
NICs) and demand mixes, as plain resource.k8s.io/v1 YAML."""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction
from typing import Any

from dralloc.cli import common, objects
from dralloc.errors import InputError
from dralloc.planner.generate.profiles import gpu_models


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
    c = what.add_parser("cluster", help="nodes with GPUs (MIG counters) and NICs, or TPU blocks",
                        description="Nodes, ResourceSlices and DeviceClasses as the NVIDIA DRA driver (and "
                                    "dra.net for NICs) publish them.", formatter_class=common.HelpFormatter)
    c.add_argument("--nodes", type=common.POSITIVE, default=4, help="nodes in the cluster")
    c.add_argument("--gpu", default="a100-40gb", choices=models, help="GPU model")
    c.add_argument("--gpus", type=common.NON_NEGATIVE, default=8, help="GPUs per node")
    c.add_argument("--nics", type=common.NON_NEGATIVE, default=0, help="NICs per node")
    c.add_argument("--tpu", action="store_true",
                   help="multi-host TPU slices instead of GPUs (KEP-4815): --nodes/4 blocks of four hosts, each "
                        "block a 4x4 slice with 2x4 and 2x2 partitions")
    c.add_argument("--profiles", metavar="LIST", help="comma-separated MIG profiles to publish (default: all)")
    c.add_argument("--prefix", default="node", help="node name prefix (nodes are PREFIX-0000, PREFIX-0001...)")
    c.add_argument("--out-dir", metavar="DIR",
                   help="write files of --per-file nodes into this directory (created if missing) instead of "
                        "stdout (the loader reads files up to 64 MiB: ~350 nodes of 8 GPUs)")
    c.add_argument("--per-file", type=common.POSITIVE, default=100, help="nodes per file with --out-dir")
    common.add_output(c, objects.OUTPUTS, "yaml", "output format on stdout")
    c.set_defaults(func=run_cluster)
    d = what.add_parser("demand", help="workloads asking for MIG devices or TPU slices",
                        description="ResourceClaimTemplates and Pods (or claims) asking for MIG profiles "
                                    "in the given mix.", formatter_class=common.HelpFormatter)
    d.add_argument("--gpu", default="a100-40gb", choices=models, help="GPU model")
    d.add_argument("--mix", required=True, help="PROFILE=WEIGHT,... e.g. 1g.5gb=3,3g.20gb=1 "
                                                "(with --tpu: TOPOLOGY=WEIGHT, e.g. 4x4=1,2x4=2,2x2=4)")
    d.add_argument("--tpu", action="store_true",
                   help="TPU slices: per slice a shared claim and one pod per host (--claims counts slices)")
    size = d.add_mutually_exclusive_group(required=True)
    size.add_argument("--claims", type=common.NON_NEGATIVE, help="claims in all")
    size.add_argument("--load", type=common.positive_fraction,
                      help="compute slices asked for / the cluster's (e.g. 1.3); needs --nodes")
    d.add_argument("--nodes", type=common.NON_NEGATIVE, default=0, help="nodes of the cluster --load refers to")
    d.add_argument("--gpus", type=common.POSITIVE, default=8, help="GPUs per node of that cluster")
    d.add_argument("--priorities", type=common.POSITIVE, default=1,
                   help="spread each profile over this many priorities")
    common.add_output(d, objects.OUTPUTS, "yaml", "output format")
    d.set_defaults(func=run_demand)


def _emit(docs: list[dict[str, Any]], fmt: str) -> int:
    objects.emit(docs, fmt)
    return 0


def _write_dir(docs: list[dict[str, Any]], out: str, per_file: int) -> int:
    from dralloc.io.emit import render_objects

    head = [d for d in docs if d["kind"] == "DeviceClass"]
    rest = [d for d in docs if d["kind"] != "DeviceClass"]
    starts = [i for i, d in enumerate(rest) if d["kind"] == "Node"] + [len(rest)]
    chunks = [rest[starts[i]:starts[min(i + per_file, len(starts) - 1)]] for i in range(0, len(starts) - 1, per_file)]
    root = common.output_dir(out, "--out-dir")
    (root / "classes.yaml").write_text(render_objects(head, "yaml"))
    for n, chunk in enumerate(chunks):
        (root / f"nodes-{n:04d}.yaml").write_text(render_objects(chunk, "yaml"))
    print(f"wrote {root}/classes.yaml and {len(chunks)} node files", file=sys.stderr)
    return 0


def run_cluster(args: argparse.Namespace) -> int:
    from dralloc.planner.generate import clusters as gen
    from dralloc.planner.generate import tpu

    if args.tpu:
        if args.nodes % 4:
            raise InputError(f"--nodes {args.nodes}: TPU blocks have four hosts; give a multiple of 4")
        docs = tpu.tpu_cluster(args.nodes // 4, args.prefix)
    else:
        profiles = [p.strip() for p in args.profiles.split(",")] if args.profiles else None
        docs = gen.cluster(args.nodes, args.gpu, args.gpus, args.nics, profiles, args.prefix)
    return _write_dir(docs, args.out_dir, args.per_file) if args.out_dir else _emit(docs, args.output)


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


def run_demand(args: argparse.Namespace) -> int:
    from dralloc.planner.generate import clusters as gen
    from dralloc.planner.generate import tpu

    load: Fraction | None = args.load
    if load is not None and args.nodes <= 0:
        raise InputError("--load needs --nodes (the size of the cluster it is relative to)")
    if args.tpu:
        return _emit(tpu.tpu_demand(_mix(args.mix), _tpu_slices(args, load), args.priorities), args.output)
    return _emit(gen.mig_demand(args.gpu, _mix(args.mix), args.claims, load, args.nodes, args.gpus,
                                args.priorities), args.output)
