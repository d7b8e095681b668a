"""Corruptions of the allocation results themselves: one field of one result
(or the result list, or the claim's nodeSelector/config) changed the way a
buggy allocator or a hand edit would. Each returns the corrupted state and the
rule it breaks, decided from the spec (None: not a violation)."""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass

from corrupt_base import (
    Base,
    Doc,
    all_results,
    device_doc,
    key_of,
    request_spec,
    results,
    target_claims,
)


@dataclass
class Corruption:
    items: list[Doc]
    expect: str | None      # the rule that must be flagged; None: not a violation, must stay clean
    what: str


def _pick(rng: random.Random, items: list[Doc], base: Base, keep: object = None) -> tuple[Doc, Doc] | None:
    """A random (claim, result) of a target claim; ``keep`` filters results."""
    pairs = [(c, r) for c in target_claims(base, items) for r in results(c)
             if keep is None or keep(c, r)]  # type: ignore[operator]
    return rng.choice(pairs) if pairs else None


def _mode(c: Doc, r: Doc) -> str:
    spec = request_spec(c, r["request"]) or {}
    return str(spec.get("allocationMode") or "ExactCount")


def double_allocation(base: Base, rng: random.Random) -> Corruption | None:
    """A result takes a device another result holds exclusively."""
    items = base.copy()

    def exclusive(c: Doc, r: Doc) -> bool:
        return not r.get("adminAccess") and not r.get("shareID")
    held = [(c, r) for c, r in all_results(items) if exclusive(c, r)]
    pairs = [(a, b) for a in held for b in held if a[1] is not b[1] and key_of(a[0]) in base.targets
             and (a[1]["driver"], a[1]["pool"], a[1]["device"]) != (b[1]["driver"], b[1]["pool"], b[1]["device"])]
    if not pairs:
        return None
    (c, r), (o, other) = rng.choice(pairs)
    r.update(driver=other["driver"], pool=other["pool"], device=other["device"])
    return Corruption(items, "double-allocation", f"{key_of(c)} takes {other['device']} held by {key_of(o)}")


def _rename(field: str, value: str, rule: str):  # type: ignore[no-untyped-def]
    def corrupt(base: Base, rng: random.Random) -> Corruption | None:
        items = base.copy()
        got = _pick(rng, items, base)
        if got is None:
            return None
        c, r = got
        old = r[field]
        r[field] = value
        return Corruption(items, rule, f"{key_of(c)}: result {field} {old} -> {value}")
    corrupt.__name__ = f"wrong_{field}"
    return corrupt


nonexistent_device = _rename("device", "no-such-device", "device-exists")
nonexistent_pool = _rename("pool", "no-such-pool", "device-exists")
wrong_driver = _rename("driver", "no-such-driver.example.com", "device-exists")
wrong_request = _rename("request", "no-such-request", "request")


def dropped_result(base: Base, rng: random.Random) -> Corruption | None:
    items = base.copy()
    got = _pick(rng, items, base)
    if got is None:
        return None
    c, r = got
    results(c).remove(r)
    base_name, _, sub = r["request"].partition("/")
    left = [x for x in results(c) if x["request"].partition("/")[0] == base_name]
    # a prioritized list left with no device holds none of its alternatives: a count violation
    rule = "count" if sub and not left else "all-devices" if _mode(c, r) == "All" else "count"
    return Corruption(items, rule, f"{key_of(c)}: result for {r['device']} dropped")


def extra_result(base: Base, rng: random.Random) -> Corruption | None:
    """One more device (held by nobody) for a request that has its devices."""
    items = base.copy()
    held = {(r["driver"], r["pool"], r["device"]) for _, r in all_results(items)}
    free = [(s["spec"]["driver"], s["spec"]["pool"]["name"], d["name"]) for s in items if s["kind"] == "ResourceSlice"
            for d in s["spec"].get("devices") or []]
    free = [f for f in free if f not in held]
    got = _pick(rng, items, base)
    if got is None or not free:
        return None
    c, r = got
    driver, pool, dev = rng.choice(sorted(set(free)))
    results(c).append({"request": r["request"], "driver": driver, "pool": pool, "device": dev})
    rule = "all-devices" if _mode(c, r) == "All" else "count"
    return Corruption(items, rule, f"{key_of(c)}: extra result {driver}/{pool}/{dev} for {r['request']}")


def wrong_node_selector(base: Base, rng: random.Random) -> Corruption | None:
    items = base.copy()
    cs = target_claims(base, items)
    if not cs:
        return None
    c = rng.choice(cs)
    alloc = c["status"]["allocation"]
    if alloc.get("nodeSelector"):
        if rng.random() < 0.5:
            del alloc["nodeSelector"]
            return Corruption(items, "node-selector", f"{key_of(c)}: nodeSelector removed")
    alloc["nodeSelector"] = {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["elsewhere"]}]}]}
    return Corruption(items, "node-selector", f"{key_of(c)}: nodeSelector pinned to node elsewhere")


def admin_access_on(base: Base, rng: random.Random) -> Corruption | None:
    items = base.copy()
    got = _pick(rng, items, base, lambda c, r: not r.get("adminAccess")
                and not (request_spec(c, r["request"]) or {}).get("adminAccess"))
    if got is None:
        return None
    c, r = got
    r["adminAccess"] = True
    return Corruption(items, "admin-access", f"{key_of(c)}: adminAccess set on {r['device']}")


def admin_access_off(base: Base, rng: random.Random) -> Corruption | None:
    items = base.copy()
    got = _pick(rng, items, base, lambda c, r: bool(r.get("adminAccess")))
    if got is None:
        return None
    c, r = got
    del r["adminAccess"]
    return Corruption(items, "admin-access", f"{key_of(c)}: adminAccess dropped from {r['device']}")


def admin_access_false(base: Base, rng: random.Random) -> Corruption | None:
    """Not a violation: ``adminAccess: false`` means what an absent field means."""
    items = base.copy()
    got = _pick(rng, items, base, lambda c, r: not r.get("adminAccess"))
    if got is None:
        return None
    c, r = got
    r["adminAccess"] = False
    return Corruption(items, None, f"{key_of(c)}: adminAccess: false written on {r['device']}")


def tolerations_changed(base: Base, rng: random.Random) -> Corruption | None:
    items = base.copy()
    got = _pick(rng, items, base)
    if got is None:
        return None
    c, r = got
    if r.get("tolerations"):
        del r["tolerations"]
        return Corruption(items, "tolerations", f"{key_of(c)}: tolerations dropped from {r['device']}")
    r["tolerations"] = [{"key": "dralloc.test/extra", "operator": "Exists"}]
    return Corruption(items, "tolerations", f"{key_of(c)}: a toleration added to {r['device']}")


def results_reordered(base: Base, rng: random.Random) -> Corruption | None:
    """Not a violation: the results are a set of devices per request; order
    carries no meaning for drivers or the scheduler."""
    items = base.copy()
    cs = [c for c in target_claims(base, items) if len(results(c)) > 1]
    if not cs:
        return None
    c = rng.choice(cs)
    results(c).reverse()
    return Corruption(items, None, f"{key_of(c)}: results in reverse order")


def _is_share(items: list[Doc], r: Doc) -> bool:
    found = device_doc(items, r)
    return bool(found and found[1].get("allowMultipleAllocations")) and bool(r.get("shareID"))


def share_id_dropped(base: Base, rng: random.Random) -> Corruption | None:
    items = base.copy()
    got = _pick(rng, items, base, lambda c, r: bool(r.get("shareID")))
    if got is None:
        return None
    c, r = got
    del r["shareID"]
    return Corruption(items, "share-id", f"{key_of(c)}: shareID dropped from {r['device']}")


def share_id_added(base: Base, rng: random.Random) -> Corruption | None:
    items = base.copy()
    got = _pick(rng, items, base, lambda c, r: not r.get("shareID"))
    if got is None:
        return None
    c, r = got
    r["shareID"] = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    return Corruption(items, "share-id", f"{key_of(c)}: shareID added to {r['device']}")


def share_id_duplicated(base: Base, rng: random.Random) -> Corruption | None:
    items = base.copy()
    shares = [r for _, r in all_results(items) if _is_share(items, r)]
    pairs = [(a, b) for a in shares for b in shares if a is not b
             and (a["driver"], a["pool"], a["device"]) == (b["driver"], b["pool"], b["device"])]
    if not pairs:
        return None
    a, b = rng.choice(pairs)
    a["shareID"] = b["shareID"]
    return Corruption(items, "share-id", f"two shares of {a['device']} with one shareID")


def consumed_capacity_changed(base: Base, rng: random.Random) -> Corruption | None:
    items = base.copy()
    got = _pick(rng, items, base, lambda c, r: bool(r.get("consumedCapacity")))
    if got is None:
        return None
    c, r = got
    name = rng.choice(sorted(r["consumedCapacity"]))
    r["consumedCapacity"][name] = "12345"
    return Corruption(items, "consumed-capacity", f"{key_of(c)}: consumedCapacity {name} of {r['device']} changed")


def binding_conditions_changed(base: Base, rng: random.Random) -> Corruption | None:
    items = base.copy()
    got = _pick(rng, items, base)
    if got is None:
        return None
    c, r = got
    if r.get("bindingConditions"):
        del r["bindingConditions"]
        return Corruption(items, "binding-conditions", f"{key_of(c)}: bindingConditions dropped from {r['device']}")
    r["bindingConditions"] = ["dralloc.test/ready"]
    return Corruption(items, "binding-conditions", f"{key_of(c)}: bindingConditions added to {r['device']}")


def config_changed(base: Base, rng: random.Random) -> Corruption | None:
    items = base.copy()
    cs = target_claims(base, items)
    if not cs:
        return None
    c = rng.choice(cs)
    devices = c["status"]["allocation"].setdefault("devices", {})
    config = devices.get("config") or []
    if config:
        config.pop(rng.randrange(len(config)))
        devices["config"] = config
        return Corruption(items, "config", f"{key_of(c)}: a config entry dropped")
    devices["config"] = [{"source": "FromClaim", "opaque": {"driver": "dralloc.test", "parameters": {"x": 1}}}]
    return Corruption(items, "config", f"{key_of(c)}: a config entry added")


CLASSES = (double_allocation, nonexistent_device, nonexistent_pool, wrong_driver, wrong_request,
           dropped_result, extra_result, wrong_node_selector, admin_access_on, admin_access_off,
           admin_access_false, tolerations_changed, results_reordered, share_id_dropped, share_id_added,
           share_id_duplicated, consumed_capacity_changed, binding_conditions_changed, config_changed)
