"""``dralloc generate``: realistic clusters (GPUs with real MIG profile tables,
NICs) and demand mixes, as plain resource.k8s.io/v1 YAML."""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction
from pathlib import Path

import yaml

from dralloc.errors import InputError
from dralloc.planner.generate import clusters as gen
from dralloc.planner.generate import tpu
from dralloc.planner.generate.profiles import gpu_models


def _mix(text: str) -> dict[str, int]:
    out = {}
    for part in text.split(","):
        name, _, weight = part.partition("=")
        try:
            out[name.strip()] = int(weight or "1")
        except ValueError:
            raise InputError(f"--mix: {part!r} is not PROFILE=WEIGHT with an integer weight") from None
    return out


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("generate", help="generate clusters and demands for the planner", description=__doc__)
    what = p.add_subparsers(dest="what", metavar="WHAT", required=True)
    c = what.add_parser("cluster", help="nodes with GPUs (MIG counters) and NICs")
    c.add_argument("--nodes", type=int, default=4)
    c.add_argument("--gpu", default="a100-40gb", choices=sorted(gpu_models()))
    c.add_argument("--gpus", type=int, default=8, help="GPUs per node")
    c.add_argument("--nics", type=int, default=0, help="NICs per node")
    c.add_argument("--tpu", action="store_true",
                   help="multi-host TPU slices instead of GPUs (KEP-4815): --nodes/4 blocks of four hosts, each "
                        "block a 4x4 slice with 2x4 and 2x2 partitions")
    c.add_argument("--profiles", help="comma-separated MIG profiles to publish (default: all)")
    c.add_argument("--prefix", default="node")
    c.add_argument("--out-dir", help="write files of --per-file nodes into this directory instead of stdout "
                                     "(the loader reads files up to 64 MiB: ~350 nodes of 8 GPUs)")
    c.add_argument("--per-file", type=int, default=100)
    c.set_defaults(func=run_cluster)
    d = what.add_parser("demand", help="workloads asking for MIG devices")
    d.add_argument("--gpu", default="a100-40gb", choices=sorted(gpu_models()))
    d.add_argument("--mix", required=True, help="PROFILE=WEIGHT,... e.g. 1g.5gb=3,3g.20gb=1 "
                                                "(with --tpu: TOPOLOGY=WEIGHT, e.g. 4x4=1,2x4=2,2x2=4)")
    d.add_argument("--tpu", action="store_true",
                   help="TPU slices: per slice a shared claim and one pod per host (--claims counts slices)")
    size = d.add_mutually_exclusive_group(required=True)
    size.add_argument("--claims", type=int, help="claims in all")
    size.add_argument("--load", help="compute slices asked for / the cluster's (e.g. 1.3); needs --nodes")
    d.add_argument("--nodes", type=int, default=0)
    d.add_argument("--gpus", type=int, default=8)
    d.add_argument("--priorities", type=int, default=1, help="spread each profile over this many priorities")
    d.set_defaults(func=run_demand)


DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def _emit(docs: list[dict[str, object]]) -> int:
    yaml.dump_all(docs, sys.stdout, Dumper=DUMPER, sort_keys=False)
    return 0


def _write_dir(docs: list[dict[str, object]], out: str, per_file: int) -> int:
    if per_file < 1:
        raise InputError("--per-file must be at least 1")
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    head = [d for d in docs if d["kind"] == "DeviceClass"]
    rest = [d for d in docs if d["kind"] != "DeviceClass"]
    starts = [i for i, d in enumerate(rest) if d["kind"] == "Node"] + [len(rest)]
    chunks = [rest[starts[i]:starts[min(i + per_file, len(starts) - 1)]] for i in range(0, len(starts) - 1, per_file)]
    (root / "classes.yaml").write_text(yaml.dump_all(head, Dumper=DUMPER, sort_keys=False))
    for n, chunk in enumerate(chunks):
        (root / f"nodes-{n:04d}.yaml").write_text(yaml.dump_all(chunk, Dumper=DUMPER, sort_keys=False))
    print(f"wrote {root}/classes.yaml and {len(chunks)} node files", file=sys.stderr)
    return 0


def run_cluster(args: argparse.Namespace) -> int:
    if args.tpu:
        if args.nodes % 4:
            raise InputError(f"--nodes {args.nodes}: TPU blocks have four hosts; give a multiple of 4")
        docs = tpu.tpu_cluster(args.nodes // 4, args.prefix)
        return _write_dir(docs, args.out_dir, args.per_file) if args.out_dir else _emit(docs)
    profiles = [p.strip() for p in args.profiles.split(",")] if args.profiles else None
    docs = gen.cluster(args.nodes, args.gpu, args.gpus, args.nics, profiles, args.prefix)
    if args.out_dir:
        return _write_dir(docs, args.out_dir, args.per_file)
    return _emit(docs)


def _tpu_slices(args: argparse.Namespace, load: Fraction | None) -> int:
    if load is None:
        return int(args.claims)
    mix = _mix(args.mix)
    wsum = sum(mix.values())
    if wsum <= 0 or any(t not in tpu.TOPOLOGIES for t in mix):
        raise InputError(f"--mix {args.mix}: give TOPOLOGY=WEIGHT with topologies {', '.join(tpu.TOPOLOGIES)}")
    mean = Fraction(sum(tpu.TOPOLOGIES[t][0] * w for t, w in mix.items()), wsum)
    return int(load * args.nodes * tpu.HOST_TPUS / mean)


def run_demand(args: argparse.Namespace) -> int:
    load = None
    if args.load is not None:
        try:
            load = Fraction(args.load)
        except ValueError:
            raise InputError(f"--load: {args.load!r} is not a number") from None
        if args.nodes <= 0:
            raise InputError("--load needs --nodes (the size of the cluster it is relative to)")
    if args.tpu:
        return _emit(tpu.tpu_demand(_mix(args.mix), _tpu_slices(args, load), args.priorities))
    return _emit(gen.mig_demand(args.gpu, _mix(args.mix), args.claims, load, args.nodes, args.gpus,
                                args.priorities))
