"""Make-room and drain next to device plugins (KEP-5004). A pod asking for
an extended resource a DeviceClass serves (``nvidia.com/gpu: 2``) gets
DRA devices through the scheduler's extended-resource claim -- except on a
node whose device plugin advertises that resource (``status.allocatable``
above zero), where the device plugin serves it and takes precedence.

The make-room model holds DRA devices only. So, as Kubernetes would:

* work whose pods fit **now** on device-plugin nodes (each pod's extended
  resources served there with enough free, nothing else asked of DRA) needs
  no disruption at all: the answer is that placement, before any search;
* otherwise the search's answer is over DRA devices only, and where device
  plugins advertise what the work asks for, it says so: evicting pods that
  hold device-plugin devices is not modelled, so "minimal" and "no plan"
  are not proven over the whole cluster (``proven: false``, ``scope``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dralloc.extended import ExtendedReader, plugin_nodes, plugin_summary, plugin_use
from dralloc.features import Features
from dralloc.io import ObjectSet
from dralloc.models import Node, Pod
from dralloc.planner.makeroom.plan import RoomAnswer
from dralloc.planner.makeroom.work import Work
from dralloc.planner.view.demand import EXTENDED_ENTRY
from dralloc.planner.view.pods import PodDemand

SCOPE = "DRA devices only"


def _pods(objs: ObjectSet, extra: Mapping[str, Pod] | None) -> dict[str, Pod]:
    """Pods by key: those of ``objs`` and ``extra`` (drain's displaced pods, gone from ``objs``)."""
    return {**{f"{p.metadata.namespace or 'default'}/{p.name}": p for p in objs.pods}, **(extra or {})}


def work_plugin_nodes(objs: ObjectSet, features: Features, keys: list[str],
                      extra: Mapping[str, Pod] | None = None) -> dict[str, list[str]]:
    """Nodes whose device plugins advertise an extended resource that one
    of the pods ``keys`` asks for and a DeviceClass serves."""
    reader = ExtendedReader.of(objs, features)
    pods = _pods(objs, extra)
    asked: set[str] = set()
    for k in keys:
        demand = reader.demand(pods[k]) if k in pods else None
        asked |= set(demand.classes) if demand is not None else set()
    return plugin_nodes(objs.nodes, asked)


def _plugin_only(p: PodDemand) -> bool:
    """The pod asks DRA for nothing but its extended resources."""
    return not p.shared and all(entry == EXTENDED_ENTRY for entry, _ in p.templates)


def place_on_plugins(objs: ObjectSet, features: Features, work: Work,
                     extra: Mapping[str, Pod] | None = None) -> dict[str, tuple[str, dict[str, int]]] | None:
    """Each replica of the work (``ns/pod#i``) on a node whose device
    plugins serve all its extended resources with enough free (nodes in name
    order, replicas in the work's order, each taking what it uses), or None
    when some replica does not fit that way."""
    reader = ExtendedReader.of(objs, features)
    pods = _pods(objs, extra)
    nodes: list[Node] = sorted(objs.nodes, key=lambda n: n.name.encode())
    taken: dict[str, dict[str, int]] = {}
    out: dict[str, tuple[str, dict[str, int]]] = {}
    for p in work.demand.pods:
        pod = pods.get(p.name)
        demand = reader.demand(pod) if pod is not None else None
        if demand is None or not _plugin_only(p):
            return None
        for r in range(p.replicas):
            for node in nodes:
                mine = taken.get(node.name, {})
                base = reader.used(node.name)
                used = {n: base.get(n, 0) + mine.get(n, 0) for n in set(base) | set(mine)}
                share = demand.share(node, used)
                if not share.dra and share.refusal(node.name) is None:
                    got = plugin_use(share)
                    taken[node.name] = {n: mine.get(n, 0) + got.get(n, 0) for n in set(mine) | set(got)}
                    out[f"{p.name}#{r}"] = (node.name, got)
                    break
            else:
                return None
    return out


def plugin_answer(objs: ObjectSet, work: Work, mode: str, placed: dict[str, tuple[str, dict[str, int]]],
                  detail: dict[str, Any]) -> RoomAnswer:
    """The answer when the work fits now on device-plugin nodes: no disruption."""
    bound_on: dict[str, list[str]] = {}
    for p in objs.pods:
        if p.spec.node_name and (p.status is None or p.status.phase not in ("Succeeded", "Failed")):
            bound_on.setdefault(p.spec.node_name, []).append(f"{p.metadata.namespace or 'default'}/{p.name}")
    steps: list[dict[str, Any]] = []
    nodes: dict[str, dict[str, list[str]]] = {}
    for i, (key, (node, got)) in enumerate(placed.items()):
        devices = [f"{n} x{v} (device plugin)" for n, v in sorted(got.items())]
        steps.append({"step": i + 1, "action": "place", "pod": key, "node": node, "devices": devices})
        before = nodes.setdefault(node, {"before": sorted(bound_on.get(node, [])),
                                         "after": sorted(bound_on.get(node, []))})
        before["after"] = sorted([*before["after"], key])
    data: dict[str, Any] = {
        "question": "make-room", "work": work.what, "mode": mode, "status": "plan", "proven": True,
        "disruptions": 0, "cost": 0, "bound": 0, "gap": 0, "evictions": [], "moves": {},
        "placed": {k: {"node": n, "devices": [], "devicePlugin": dict(sorted(g.items()))}
                   for k, (n, g) in placed.items()},
        "steps": steps, "nodes": dict(sorted(nodes.items(), key=lambda kv: kv[0].encode())), "budgets": [],
        "check": "not run: the work takes no DRA devices (its extended resources are device plugins' there)",
        "releasedClaims": 0,
        "notes": ["fits now without disruptions: the device plugins of " + ", ".join(sorted(nodes, key=str.encode))
                  + " serve the work's extended resources (status.allocatable, which takes precedence over "
                  "DRA); Kubernetes picks among the nodes that fit by its scores"],
        "detail": detail,
    }
    return RoomAnswer("make-room", data)    # no DRA device changes hands: nothing to draw


def scoped(data: dict[str, Any], hits: dict[str, list[str]], what: str) -> None:
    """Mark an answer found over DRA devices only, where device plugins
    advertise what ``what`` asks for: its proofs do not cover those nodes."""
    note = (f"{plugin_summary(hits)} (status.allocatable) that {what} asks for; make-room models DRA devices "
            "only, so the pods holding device-plugin devices there are not considered for disruption and this "
            "answer is not proven over the whole cluster")
    data["scope"] = SCOPE
    data["provenInScope"] = bool(data.get("proven"))
    if data.get("status") == "no plan":
        data["status"] = "not decided"
    data["proven"] = False
    data["notes"] = [*data.get("notes", []), note]
