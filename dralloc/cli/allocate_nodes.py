"""``dralloc allocate --all-nodes``: the claims tried on every Node, as the
scheduler's filter does and in its node order (zones in turn, nodes in file
order: :class:`dralloc.cluster.Cluster`); one row per node with the devices it would take or,
when it cannot take them, its reason (the plain summary line of the short
why), then a summary naming the pod (or the claims) asked about. A long run
shows how many nodes were tried so far (dralloc.io.progress: on a terminal,
or with --progress)."""

from __future__ import annotations

import argparse
from typing import Any

from dralloc.cli import common
from dralloc.cli.inputs import find_pod, resolve
from dralloc.cluster import Cluster
from dralloc.errors import InputError
from dralloc.solver.outcome import Outcome, Status

EXIT_OK, EXIT_UNSATISFIABLE = 0, 1


def _devices(out: Outcome) -> list[dict[str, str]]:
    return [{"claim": key, "request": r.request, "driver": r.driver, "pool": r.pool, "device": r.device}
            for key, a in zip(out.claims, out.allocations or [], strict=False)
            for r in (a.devices.results if a.devices and a.devices.results else [])]


def node_row(node: str, out: Outcome) -> dict[str, Any]:
    """One node's answer as data (camelCase, as every machine-readable output)."""
    row: dict[str, Any] = {"node": node, "result": "fits" if out.status is Status.ALLOCATED else out.status.value}
    if out.status is Status.ALLOCATED:
        row["devices"] = _devices(out)
        if out.device_plugin:
            row["devicePlugin"] = dict(out.device_plugin)
    elif out.status is Status.ERROR:
        row["reason"] = out.error or "error"
    else:
        row["reason"] = out.reasons[0] if out.reasons else "cannot allocate"
        row["why"] = list(out.reasons)
    if out.defects:
        row["defects"] = list(out.defects)
    return row


def _subject(args: argparse.Namespace, claim_keys: list[str]) -> str:
    return f"pod {args.pod}" if args.pod else ", ".join(claim_keys)


def _table(rows: list[dict[str, Any]], wide: bool) -> str:
    head = ["NODE", "RESULT", "DEVICES" if wide else "DEVICES OR REASON"] + (["WHY"] if wide else [])
    lines = []
    for r in rows:
        devs = ", ".join([f"{d['request']}={d['pool']}/{d['device']}" for d in r.get("devices", [])]
                         + [f"{n}={v} (device plugin)" for n, v in r.get("devicePlugin", {}).items()])
        if wide:
            lines.append([r["node"], r["result"], devs or "-", "; ".join(r.get("why") or [r.get("reason", "")]) or "-"])
        else:
            lines.append([r["node"], r["result"], devs or r.get("reason", "-")])
    return common.format_table(head, lines)


def run_all_nodes(args: argparse.Namespace, mode: str) -> int:
    """One answer per Node, in name order."""
    objs, _, claims, features, admitted, _ = resolve(args)
    if not objs.nodes:
        raise InputError("--all-nodes needs Node objects in the files")
    rows = []
    total = len(objs.nodes)
    progress = common.reporter(args)
    cluster = Cluster(objs, features=features, admission=admitted)
    pod = find_pod(objs, args.pod) if args.pod else None
    for node, out in cluster.each_node(None if pod else claims, pod=pod, mode=mode, objective=args.objective, time_limit=args.time_limit,
                                       compare=args.compare, compare_time_limit=args.compare_time_limit,
                                       share_ids=args.share_ids):
        rows.append(node_row(node.name, out))
        progress("nodes tried", len(rows), total)
    fits = sum(r["result"] == "fits" for r in rows)
    keys = [c.key for c in claims]
    summary = f"{fits} of {len(rows)} node(s) fit {_subject(args, keys)}"
    fmt = args.output or "table"
    if fmt in ("table", "wide"):
        common.emit(_table(rows, fmt == "wide") + "\n" + summary)
    else:
        from dralloc.io.emit import render

        data = {"pod": args.pod, "claims": keys, "mode": mode, "nodes": rows,
                "summary": {"fit": fits, "nodes": len(rows), "text": summary}}
        if not args.pod:
            del data["pod"]
        common.emit(render(data, fmt))
    return EXIT_OK if fits else EXIT_UNSATISFIABLE
