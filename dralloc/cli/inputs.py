"""Shared command-line inputs for the commands that look at one allocation
question (allocate, explain, encode): files, node, claims or pod, features.

Which claims: ``--claim NS/NAME`` (repeatable), or ``--pod NS/NAME`` (the
pod's claims; templates instantiated as the resource-claim controller would),
or every claim in the files that has no allocation yet, in file order. Which
node: ``--node``, the pod's ``spec.nodeName``, or the only Node in the files.
A scenario file (the conformance format) is accepted too: its node, features,
allocated claims and claims are used."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import yaml

from dralloc.errors import InputError
from dralloc.features import Features
from dralloc.inventory.problem import Problem, build_problem
from dralloc.io import ObjectSet, load
from dralloc.io.scenario import Scenario, parse_scenario
from dralloc.models import Node, ObjectMeta, Pod, ResourceClaim

DEFAULT_GATES = ("DRAPrioritizedList", "DRAPartitionableDevices", "DRADeviceTaints", "DRAAdminAccess",
                 "DRAConsumableCapacity", "DRADeviceBindingConditions")


def add_target_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="YAML/JSON files or folders (- for stdin), or one scenario file")
    p.add_argument("--node", help="node to allocate on (default: the pod's node, or the only Node in the files)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--claim", action="append", default=[], metavar="NS/NAME",
                     help="claim to allocate (repeatable; default: every unallocated claim, in order)")
    who.add_argument("--pod", metavar="NS/NAME", help="allocate the claims of this pod")
    p.add_argument("--features", default=None,
                   help="comma-separated feature gates, 'all' or 'none' (default: "
                        + ",".join(DEFAULT_GATES) + "; a scenario's own list for scenario files)")


def parse_features(text: str) -> Features:
    if text.strip() == "all":
        return Features.all()
    if text.strip() == "none":
        return Features()
    return Features.from_gates([g.strip() for g in text.split(",") if g.strip()])


def _find_pod(objs: ObjectSet, key: str) -> Pod:
    ns, _, name = key.rpartition("/")
    for pod in objs.pods:
        if pod.name == name and (pod.namespace or "default") == (ns or "default"):
            return pod
    raise InputError(f"pod {key} not found among the {len(objs.pods)} Pod(s) in the files")


def pod_claims(objs: ObjectSet, pod: Pod) -> list[ResourceClaim]:
    """The pod's claims, in ``spec.resourceClaims`` order. A template is
    instantiated as the controller does (its spec, labels and annotations),
    named ``<pod>-<entry>`` where Kubernetes would add a random suffix."""
    ns = pod.namespace or "default"
    where = f"Pod {ns}/{pod.name}"
    out = []
    for i, pc in enumerate(pod.spec.resource_claims or []):
        field = f"spec.resourceClaims[{i}]"
        if pc.resource_claim_name:
            c = objs.claim(f"{ns}/{pc.resource_claim_name}")
            if c is None:
                raise InputError(f"claim {ns}/{pc.resource_claim_name} is not in the files", obj=where, field=field)
            out.append(c)
            continue
        if not pc.resource_claim_template_name:
            raise InputError("neither resourceClaimName nor resourceClaimTemplateName is set", obj=where, field=field)
        t = next((t for t in objs.templates if t.name == pc.resource_claim_template_name
                  and (t.namespace or "default") == ns), None)
        if t is None:
            raise InputError(f"ResourceClaimTemplate {ns}/{pc.resource_claim_template_name} is not in the files",
                             obj=where, field=field)
        meta = t.spec.metadata.dump() if t.spec.metadata is not None else {}
        meta.update({"name": f"{pod.name}-{pc.name}", "namespace": ns})
        out.append(ResourceClaim.model_validate({"metadata": meta, "spec": t.spec.spec.dump()}))
    if not out:
        raise InputError("the pod has no resource claims", obj=where, field="spec.resourceClaims")
    return out


def _node(objs: ObjectSet, name: str | None, pod: Pod | None) -> Node:
    name = name or (pod.spec.node_name if pod is not None else None)
    if name:
        return objs.node(name) or Node(metadata=ObjectMeta(name=name))
    if len(objs.nodes) == 1:
        return objs.nodes[0]
    raise InputError(f"--node is required: the files hold {len(objs.nodes)} Node objects, not exactly one")


def _scenario(paths: list[str]) -> Scenario | None:
    """The scenario when ``paths`` is one scenario file, else None."""
    if len(paths) != 1 or paths[0] == "-" or not Path(paths[0]).is_file():
        return None
    try:
        doc: Any = yaml.safe_load(Path(paths[0]).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None  # the loader reports it properly
    if isinstance(doc, dict) and "objects" in doc and "claims" in doc and "kind" not in doc:
        return parse_scenario(doc, paths[0])
    return None


def _from_scenario(sc: Scenario, args: argparse.Namespace) -> tuple[ObjectSet, Node, list[ResourceClaim], Features]:
    objs = ObjectSet()
    objs.extend(sc.objects)
    for c in [*sc.allocated, *sc.claims]:
        objs.add(c)
    features = parse_features(args.features) if args.features else Features.from_gates(sc.features)
    node = sc.node or Node(metadata=ObjectMeta(name=""))
    if args.node:
        node = Node(metadata=ObjectMeta(name=args.node))
    claims = [_claim(objs, k) for k in args.claim] if args.claim else list(sc.claims)
    return objs, node, claims, features


def _claim(objs: ObjectSet, key: str) -> ResourceClaim:
    c = objs.claim(key)
    if c is None:
        raise InputError(f"claim {key} not found among the {len(objs.claims)} ResourceClaim(s) in the files")
    return c


def resolve(args: argparse.Namespace) -> tuple[ObjectSet, Node, list[ResourceClaim], Features]:
    sc = _scenario(args.files)
    if sc is not None:
        return _from_scenario(sc, args)
    objs = load(args.files, skip_unknown=True)
    if objs.errors:
        raise objs.errors[0]
    features = parse_features(args.features or ",".join(DEFAULT_GATES))
    pod = _find_pod(objs, args.pod) if args.pod else None
    if getattr(args, "all_nodes", False):
        node = Node(metadata=ObjectMeta(name=""))  # the caller tries every Node
    else:
        node = _node(objs, args.node, pod)
    if pod is not None:
        claims = pod_claims(objs, pod)
    elif args.claim:
        claims = [_claim(objs, k) for k in args.claim]
    else:
        claims = [c for c in objs.claims if not (c.status and c.status.allocation)]
        if not claims:
            raise InputError("no unallocated ResourceClaim in the files (give --claim or --pod)")
    return objs, node, claims, features


def problem_from_args(args: argparse.Namespace) -> Problem:
    objs, node, claims, features = resolve(args)
    ids = {id(c) for c in claims}
    allocated = [c for c in objs.claims if id(c) not in ids and c.status and c.status.allocation]
    return build_problem(objs.slices, objs.classes, node, claims, allocated, features)


def _seconds(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not v > 0 or v == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text}")
    return v


def add_compare_args(p: argparse.ArgumentParser) -> None:
    """first-fit against Kubernetes' own answer (``allocate(compare=...)``)."""
    p.add_argument("--compare", choices=("auto", "always", "never"), default="auto",
                   help="first-fit: find out Kubernetes' own answer -- auto: replay its search only where a "
                        "documented defect can fire and no proof settles it; always: replay every time; "
                        "never: skip (default: %(default)s)")
    p.add_argument("--compare-time-limit", type=_seconds, metavar="SECONDS", default=None,
                   help="first-fit: time limit of that replay (default: 2)")
