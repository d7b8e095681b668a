"""Corruptions of the cluster around the allocation: the slices, devices,
counters, nodes and pods change under an allocation that was right. Each
decides from the spec whether the allocation now breaks a rule."""

from __future__ import annotations

import random
from fractions import Fraction

from corrupt_base import (
    Base,
    Doc,
    all_results,
    device_doc,
    key_of,
    newest,
    node_doc,
    plain_pool,
    pods,
    request_spec,
    target_claims,
)
from corrupt_results import Corruption

from dralloc.inventory.nodesel import selector_matches
from dralloc.inventory.taints import tolerates
from dralloc.models import DeviceTaint, DeviceToleration, Node, NodeSelector
from dralloc.quantity import Quantity


def _target_device(base: Base, items: list[Doc], rng: random.Random, keep: object = None
                   ) -> tuple[Doc, Doc, Doc, Doc] | None:
    """A random (claim, result, slice, device) of a target claim."""
    found = []
    for c in target_claims(base, items):
        for r in (c["status"]["allocation"].get("devices") or {}).get("results") or []:
            sd = device_doc(items, r)
            if sd is not None and (keep is None or keep(r, *sd)):  # type: ignore[operator]
                found.append((c, r, *sd))
    return rng.choice(found) if found else None


def pod_moved(base: Base, rng: random.Random) -> Corruption | None:
    """The pod runs on the twin node: a violation only where a claim's
    nodeSelector does not admit it (nil admits every node)."""
    items = base.copy()
    ps = pods(items)
    twin = node_doc(items, base.twin)
    if not ps or twin is None:
        return None
    p = rng.choice(ps)
    p["spec"]["nodeName"] = base.twin
    node = Node.model_validate(twin)
    names = {rc["resourceClaimName"] for rc in p["spec"]["resourceClaims"]}
    ns = p["metadata"].get("namespace")
    mine = [c for c in target_claims(base, items) if c["metadata"]["name"] in names
            and c["metadata"].get("namespace") == ns]
    barred = [key_of(c) for c in mine if c["status"]["allocation"].get("nodeSelector")
              and not selector_matches(NodeSelector.model_validate(c["status"]["allocation"]["nodeSelector"]), node)]
    return Corruption(items, "pod-node" if barred else None,
                      f"pod moved to {base.twin}" + (f", which {', '.join(barred)} does not admit" if barred else ""))


def node_deleted(base: Base, rng: random.Random) -> Corruption | None:
    items = base.copy()
    if not pods(items) or node_doc(items, base.node) is None:
        return None
    items.remove(node_doc(items, base.node))  # type: ignore[arg-type]
    return Corruption(items, "pod-node", f"Node {base.node} deleted under its pods")


def pod_on_missing_node(base: Base, rng: random.Random) -> Corruption | None:
    items = base.copy()
    ps = pods(items)
    if not ps:
        return None
    rng.choice(ps)["spec"]["nodeName"] = "no-such-node"
    return Corruption(items, "pod-node", "pod bound to a node that does not exist")


def taint_added(base: Base, rng: random.Random) -> Corruption | None:
    """A violation when DRADeviceTaints is on and the request does not
    tolerate the taint (Kubernetes ignores taints with the feature off)."""
    items = base.copy()
    got = _target_device(base, items, rng, lambda r, s, d: plain_pool(items, r))
    if got is None:
        return None
    c, r, _, dev = got
    taint = {"key": "dralloc.test/corrupt", "value": "x", "effect": rng.choice(("NoSchedule", "NoExecute"))}
    dev.setdefault("taints", []).append(taint)
    dev_id = (r["driver"], r["pool"], r["device"])
    holders = [(o, x) for o, x in all_results(items) if (x["driver"], x["pool"], x["device"]) == dev_id]
    tolerated = all(_tolerates(o, x, taint) for o, x in holders)  # every request holding the device
    broken = base.features.device_taints and not tolerated
    why = "tolerated by every holder" if tolerated else "DRADeviceTaints off" if not broken else "untolerated"
    return Corruption(items, "taint" if broken else None, f"{taint['effect']} taint on {r['device']} ({why})")


def _tolerates(c: Doc, r: Doc, taint: Doc) -> bool:
    tols = (request_spec(c, r["request"]) or {}).get("tolerations") or []
    return any(tolerates(DeviceToleration.model_validate(t), DeviceTaint.model_validate(taint)) for t in tols)


def _used_counters(items: list[Doc], driver: str, pool: str) -> dict[tuple[str, str], Fraction]:
    """What the devices held (by a result without admin access) consume of each
    (counter set, counter) of the pool, each device once."""
    held = {r["device"] for _, r in all_results(items)
            if (r["driver"], r["pool"]) == (driver, pool) and not r.get("adminAccess")}
    used: dict[tuple[str, str], Fraction] = {}
    for s in newest(items, driver, pool):
        for d in s["spec"].get("devices") or []:
            if d["name"] not in held:
                continue
            for cc in d.get("consumesCounters") or []:
                for name, v in (cc.get("counters") or {}).items():
                    k = (cc["counterSet"], name)
                    used[k] = used.get(k, Fraction(0)) + Quantity.parse(v["value"]).value
    return used


def counter_shrunk(base: Base, rng: random.Random) -> Corruption | None:
    """A counter the held devices consume is set below their consumption."""
    items = base.copy()
    pools = sorted({(r["driver"], r["pool"]) for _, r in all_results(items) if plain_pool(items, r)})
    cands = []
    for driver, pool in pools:
        used = _used_counters(items, driver, pool)
        for s in newest(items, driver, pool):
            for cs in s["spec"].get("sharedCounters") or []:
                for name in sorted(cs.get("counters") or {}):
                    if used.get((cs["name"], name), 0) > 0:
                        cands.append((cs, name, used[(cs["name"], name)]))
    if not cands:
        return None
    cs, name, used = rng.choice(cands)
    cs["counters"][name]["value"] = str(int(used // 2))
    if not base.features.partitionable_devices:  # no counters without the feature (PG-2, DC-10)
        return Corruption(items, None, f"counter {cs['name']}/{name} shrunk, DRAPartitionableDevices off")
    return Corruption(items, "counters", f"counter {cs['name']}/{name} set to half of what is held ({used} -> {used // 2})")


def capacity_shrunk(base: Base, rng: random.Random) -> Corruption | None:
    """A shared device's capacity set below what its shares consume."""
    items = base.copy()
    total: dict[tuple[str, str, str, str], Fraction] = {}
    for _, r in all_results(items):
        if r.get("shareID") and not r.get("adminAccess"):
            for name, q in (r.get("consumedCapacity") or {}).items():
                k = (r["driver"], r["pool"], r["device"], name)
                total[k] = total.get(k, Fraction(0)) + Quantity.parse(q).value
    cands = sorted(k for k, v in total.items() if v > 0
                   and plain_pool(items, {"driver": k[0], "pool": k[1]}))
    if not cands:
        return None
    k = rng.choice(cands)
    sd = device_doc(items, {"driver": k[0], "pool": k[1], "device": k[2]})
    if sd is None or k[3] not in (sd[1].get("capacity") or {}):
        return None
    sd[1]["capacity"][k[3]]["value"] = str(int(total[k] // 2))
    return Corruption(items, "capacity", f"capacity {k[3]} of {k[2]} set to half of what its shares consume")


def device_moved(base: Base, rng: random.Random) -> Corruption | None:
    """A chosen device now sits in a slice (same pool, complete) of the twin node."""
    if not base.node:
        return None
    items = base.copy()
    got = _target_device(base, items, rng, lambda r, s, d: not s["spec"].get("perDeviceNodeSelection")
                         and plain_pool(items, r))
    if got is None:
        return None
    c, r, s, dev = got
    s["spec"]["devices"].remove(dev)
    for other in newest(items, r["driver"], r["pool"]):
        other["spec"]["pool"]["resourceSliceCount"] += 1
    moved = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
             "metadata": {"name": f"{s['metadata']['name']}-moved"},
             "spec": {"driver": r["driver"], "pool": dict(s["spec"]["pool"]), "nodeName": base.twin, "devices": [dev]}}
    items.append(moved)
    return Corruption(items, "device-on-node", f"{r['device']} of {key_of(c)} moved to a slice of {base.twin}")


def pool_incomplete(base: Base, rng: random.Random) -> Corruption | None:
    items = base.copy()
    got = _target_device(base, items, rng, lambda r, s, d: plain_pool(items, r))
    if got is None:
        return None
    _, r, _, _ = got
    for s in newest(items, r["driver"], r["pool"]):
        s["spec"]["pool"]["resourceSliceCount"] += 1
    return Corruption(items, "pool-usable", f"pool {r['driver']}/{r['pool']} made incomplete")


CLASSES = (pod_moved, node_deleted, pod_on_missing_node, taint_added, counter_shrunk, capacity_shrunk,
           device_moved, pool_incomplete)
