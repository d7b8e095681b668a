"""The front door every command reads object files through (:func:`read`:
load, a warning line per skipped document or replaced duplicate, admission),
and the target of one allocation question (allocate, explain, encode; their
options are in :func:`dralloc.cli.common.add_target_args`): files, node,
claims or pod, features (of ``--kubernetes-version``).

Which claims: ``--claim NS/NAME`` (repeatable), or ``--pod NS/NAME`` (the
pod's claims; templates instantiated as the resource-claim controller would),
or every claim in the files that has no allocation yet, in file order. Which
node: ``--node``, the pod's ``spec.nodeName``, or the only Node in the files.
A scenario file (the conformance format) is accepted too: its node, features,
allocated claims and claims are used, as the allocator's own input (no
admission; a --node without a Node object is fine there)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from dralloc.cli.common import parse_features, progress, release_of, sources, warn
from dralloc.cluster.pods import for_node
from dralloc.cluster.pods import pod_claims as claims_of_pod
from dralloc.errors import InputError
from dralloc.extended import ExtendedReader, NodeRefuses
from dralloc.features import DEFAULT_GATES, Features, Variant  # noqa: F401 (DEFAULT_GATES: read here by older callers)
from dralloc.gangs import GangReader
from dralloc.inventory.problem import Problem, build_problem
from dralloc.io import ObjectSet, load
from dralloc.io.parse import iter_documents
from dralloc.io.scenario import Scenario, parse_scenario
from dralloc.models import Node, ObjectMeta, Pod, ResourceClaim, ResourceClaimTemplate
from dralloc.solver.api import allocated_claims, find_node
from dralloc.validation.admission import admit


def read(args: argparse.Namespace, paths: Sequence[str], admission: bool = True, cluster: bool = True) -> ObjectSet:
    """The objects of the live cluster the options name (unless not
    ``cluster``) and of ``paths``, through the front door: every problem
    raised at once (exit 2), a warning line per skipped document, replaced
    duplicate or note on a source on stderr, then admission (API-server
    defaults and validation)."""
    objs = load(sources(args, paths, cluster), strict=getattr(args, "strict", False),
                last_wins=getattr(args, "last_wins", False), progress=progress(args),
                kubernetes_version=release_of(args))
    warn(args, objs.warnings)
    return admit(objs) if admission else objs


def find_pod(objs: ObjectSet, key: str) -> Pod:
    ns, _, name = key.rpartition("/")
    for pod in objs.pods:
        if pod.name == name and pod.namespace == (ns or "default"):
            return pod
    raise InputError(f"pod {key} not found among the {len(objs.pods)} Pod(s) read")


def pod_claims(objs: ObjectSet, pod: Pod, features: Features | None = None) -> list[ResourceClaim]:
    """The pod's claims (:func:`dralloc.cluster.pods.pod_claims`) among
    ``objs``, its extended-resource claim as ``features`` decide."""
    def template(key: str) -> ResourceClaimTemplate | None:
        ns, _, name = key.partition("/")
        return next((t for t in objs.templates if t.name == name and (t.namespace or "default") == ns), None)

    return claims_of_pod(pod, objs.claim, template, GangReader(objs),
                         ExtendedReader.of(objs, features or Features.default()))


def _node(args: argparse.Namespace, objs: ObjectSet, name: str | None, pod: Pod | None) -> Node:
    """The node asked for: it must be one of the Nodes in the files when they
    hold any ("node X not found", not "does not fit"); without Nodes it is
    taken by name, with a note when no slice names it either."""
    name = name or (pod.spec.node_name if pod is not None else None)
    if name:
        node = find_node(objs, name)
        if not objs.nodes and not any(s.spec.node_name == name for s in objs.slices):
            warn(args, [f"node {name}: the files hold no Node and no ResourceSlice names it; it is taken "
                        "without labels, so only slices for all nodes can serve it"])
        return node
    if len(objs.nodes) == 1:
        return objs.nodes[0]
    raise InputError(f"--node is required: {len(objs.nodes)} Node objects were read, not exactly one")


def _scenario(paths: list[str]) -> Scenario | None:
    """The scenario when ``paths`` is one scenario file, else None."""
    if len(paths) != 1 or paths[0] == "-" or not Path(paths[0]).is_file():
        return None
    docs = list(iter_documents(Path(paths[0]), lists=False))
    if len(docs) != 1 or isinstance(docs[0], InputError):
        return None  # the loader reports it properly
    doc: Any = docs[0].data
    if isinstance(doc, dict) and "objects" in doc and "claims" in doc and "kind" not in doc:
        return parse_scenario(doc, paths[0])
    return None


class Target(NamedTuple):
    """One allocation question from the command line."""

    objs: ObjectSet
    node: Node
    claims: list[ResourceClaim]
    features: Features
    admitted: bool = True  # False for a scenario file: the allocator's own input, as it is
    variant: Variant | None = None  # a scenario's own allocator variant


def _from_scenario(sc: Scenario, args: argparse.Namespace) -> Target:
    objs = ObjectSet()
    objs.extend(sc.objects)
    for c in [*sc.allocated, *sc.claims]:
        objs.add(c)
    rel = release_of(args) or sc.kubernetes_version  # --kubernetes-version, else the scenario's own
    features = parse_features(args.features, rel) if args.features else Features.from_gates(sc.features, rel)
    node = sc.node or Node(metadata=ObjectMeta(name=""))
    if args.node:
        node = Node(metadata=ObjectMeta(name=args.node))
    claims = [_claim(objs, k) for k in args.claim] if args.claim else list(sc.claims)
    return Target(objs, node, claims, features, admitted=False,
                  variant=Variant(sc.variant) if sc.variant else None)


def _claim(objs: ObjectSet, key: str) -> ResourceClaim:
    c = objs.claim(key)
    if c is None:
        raise InputError(f"claim {key} not found among the {len(objs.claims)} ResourceClaim(s) read")
    return c


def resolve(args: argparse.Namespace) -> Target:
    sc = _scenario(args.files)
    if sc is not None:
        return _from_scenario(sc, args)
    objs = read(args, args.files)
    features = parse_features(args.features, release_of(args))
    pod = find_pod(objs, args.pod) if args.pod else None
    if getattr(args, "all_nodes", False):
        node = Node(metadata=ObjectMeta(name=""))  # the caller tries every Node
    else:
        node = _node(args, objs, args.node, pod)
    if pod is not None:
        claims = pod_claims(objs, pod, features)
    elif args.claim:
        claims = [_claim(objs, k) for k in args.claim]
    else:
        claims = [c for c in objs.claims if not (c.status and c.status.allocation)]
        if not claims:
            raise InputError("no unallocated ResourceClaim read (give --claim or --pod)")
    return Target(objs, node, claims, features)


def problem_from_args(args: argparse.Namespace) -> Problem:
    """The allocator's problem for the target; for a pod, its claims not
    allocated yet (one allocated already, e.g. its PodGroup's, is held)."""
    t = resolve(args)
    claims = t.claims
    if getattr(args, "pod", None):
        claims, _, share, _ = for_node(t.node, claims, ExtendedReader.of(t.objs, t.features))
        if share is not None and (why := share.refusal(t.node.name)) is not None:
            raise NodeRefuses(f"pod {args.pod}: {why}")
        claims = [c for c in claims if not (c.status and c.status.allocation)] or claims
    return build_problem(t.objs.slices, t.objs.classes, t.node, claims, allocated_claims(t.objs, claims),
                         t.features, t.variant)

