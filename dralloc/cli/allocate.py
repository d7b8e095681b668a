"""``dralloc allocate FILES``: allocate claims on a node, as the Kubernetes
scheduler asks its allocator to for the claims of one pod, and print the
claims with ``status.allocation`` filled.

Which claims: ``--claim NS/NAME`` (repeatable), or ``--pod NS/NAME`` (the
pod's claims; claims from templates are instantiated as the resource-claim
controller would, named ``<pod>-<entry>``), or by default every claim in the
files that has no allocation yet, in file order. Which node: ``--node NAME``,
or the pod's ``spec.nodeName``, or the only Node in the files.

Exit code 0: allocated; 1: the claims cannot be allocated on the node;
2: bad input (unreadable files, unknown names, or an input Kubernetes'
allocator rejects with an error)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import yaml

from dralloc.cli.inputs import DEFAULT_GATES
from dralloc.errors import InputError
from dralloc.features import Features
from dralloc.io import ObjectSet, load
from dralloc.models import Node, ObjectMeta, Pod, ResourceClaim
from dralloc.solver.api import MODES, allocate
from dralloc.solver.outcome import Outcome, Status

EXIT_OK, EXIT_UNSATISFIABLE, EXIT_BAD_INPUT = 0, 1, 2


def default_mode() -> str:
    """first-fit (CP-SAT) when OR-Tools and the CP-SAT module are available."""
    try:
        import dralloc.solver.cpsat  # noqa: F401
    except ImportError:
        return "replay"
    return "first-fit"


def register(sub: Any) -> None:
    p = sub.add_parser("allocate", help="allocate claims on a node and print them with status.allocation",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="+", metavar="FILE", help="YAML/JSON files or folders (- for stdin)")
    p.add_argument("--node", help="node to allocate on (default: the pod's node, or the only Node in the files)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--claim", action="append", default=[], metavar="NS/NAME",
                     help="claim to allocate (repeatable; default: every unallocated claim, in order)")
    who.add_argument("--pod", metavar="NS/NAME", help="allocate the claims of this pod")
    p.add_argument("--mode", choices=MODES, default=None,
                   help="replay: Kubernetes' search step by step; first-fit: the same answer via CP-SAT; "
                        "optimal: CP-SAT with --objective (default: first-fit, replay without OR-Tools)")
    p.add_argument("--features", default=",".join(DEFAULT_GATES),
                   help="comma-separated feature gates, 'all' or 'none' (default: %(default)s)")
    p.add_argument("--objective", help="optimal mode: comma-separated objectives, in priority order")
    p.add_argument("--time-limit", type=float, metavar="SECONDS", help="CP-SAT time limit")
    p.add_argument("-o", "--output", choices=("yaml", "json", "table"), default="yaml", help="output format")
    p.add_argument("--explain", action="store_true",
                   help="also print how the answer was reached (search steps, reasons) on stderr")
    p.set_defaults(func=run)


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


def resolve(args: argparse.Namespace) -> tuple[ObjectSet, Node, list[ResourceClaim], Features]:
    objs = load(args.files, skip_unknown=True)
    if objs.errors:
        raise objs.errors[0]
    features = parse_features(args.features)
    pod = _find_pod(objs, args.pod) if args.pod else None
    node = _node(objs, args.node, pod)
    if pod is not None:
        claims = pod_claims(objs, pod)
    elif args.claim:
        claims = []
        for key in args.claim:
            c = objs.claim(key)
            if c is None:
                raise InputError(f"claim {key} not found among the {len(objs.claims)} ResourceClaim(s) in the files")
            claims.append(c)
    else:
        claims = [c for c in objs.claims if not (c.status and c.status.allocation)]
        if not claims:
            raise InputError("no unallocated ResourceClaim in the files (give --claim or --pod)")
    return objs, node, claims, features


def claim_documents(claims: list[ResourceClaim], out: Outcome) -> list[dict[str, Any]]:
    """The claims as Kubernetes objects, ``status.allocation`` filled."""
    docs = []
    for claim, alloc in zip(claims, out.allocations or [], strict=True):
        d = claim.dump()
        status = d.setdefault("status", {})
        status["allocation"] = alloc.dump()
        docs.append(d)
    return docs


def table(claims: list[ResourceClaim], out: Outcome) -> str:
    rows = [("CLAIM", "REQUEST", "DRIVER", "POOL", "DEVICE", "SHARE")]
    for claim, alloc in zip(claims, out.allocations or [], strict=True):
        key = f"{claim.namespace or 'default'}/{claim.name}"
        results = alloc.devices.results if alloc.devices and alloc.devices.results else []
        for r in results:
            rows.append((key, r.request, r.driver, r.pool, r.device, r.share_id or "-"))
        if not results:
            rows.append((key, "-", "-", "-", "-", "-"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip() for row in rows)


def _print(claims: list[ResourceClaim], out: Outcome, fmt: str) -> None:
    if fmt == "table":
        print(table(claims, out))
        return
    docs = claim_documents(claims, out)
    if fmt == "json":
        body: Any = docs[0] if len(docs) == 1 else {"apiVersion": "v1", "kind": "List", "items": docs}
        print(json.dumps(body, indent=2))
    else:
        print(yaml.safe_dump_all(docs, sort_keys=False, default_flow_style=False), end="")


def run(args: argparse.Namespace) -> int:
    objs, node, claims, features = resolve(args)
    mode = args.mode or default_mode()
    out = allocate(objs, node, claims, features=features, mode=mode, objective=args.objective,
                   time_limit=args.time_limit)
    if args.explain:
        print(str(out), file=sys.stderr)
        for n in out.notes:
            print(f"  note: {n}", file=sys.stderr)
    if out.status is Status.ALLOCATED:
        _print(claims, out, args.output)
        return EXIT_OK
    keys = ", ".join(out.claims)
    if out.status is Status.ERROR:
        print(f"dralloc allocate: error: {out.error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(f"dralloc allocate: cannot allocate {keys} on node {node.name or '<none>'}", file=sys.stderr)
    if not args.explain:
        for r in out.reasons:
            print(f"  why: {r}", file=sys.stderr)
    return EXIT_UNSATISFIABLE
