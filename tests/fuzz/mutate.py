"""Mutations of scenario documents: light ones that keep the question valid
(counts, quantities, feature gates, order) and hostile ones at and beyond the
API's limits (counts, quantities beyond int64, names, missing and extra
fields, wrong types, duplicates, list sizes, hostile CEL). Every mutation
walks the document generically and picks a site by its key, so every field
of every kind is reachable."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

from tests.fuzz import celgen

Path = tuple[Any, ...]
QUANTITY_KEYS = {"sharedCounters", "consumesCounters", "capacity", "consumedCapacity", "requests",
                 "requestPolicy", "validRange", "validValues"}
QUANTITIES = ["0", "1", "-1", "1n", "0.5n", "999999999999999999", "9223372036854775807", "9223372036854775808",
              "18446744073709551616", "1e18", "1e19", "2e19", "1Ei", "8Ei", "16Ei", "1e1000", "1e1001",
              "-1e19", "1.5Gi", "80Gi", "0.1", "1m", "abc", "", "1e", "--1", 5, -5, 1.5, 10**20, True, None, [], {}]
COUNTS = [0, -1, 1, 2, 3, 31, 32, 33, 64, 2**31, 2**63 - 1, 2**63, 2**64, 10**30, "3", 1.5, None, True, [], -(2**63)]
NAMES = ["", "a" * 63, "a" * 64, "a" * 253, "a" * 254, "UPPER", "dots.in.name", "-lead", "trail-", "é", "a/b",
         "x" * 2000, 123, None, "a b", "gpu.nvidia.com/x", "dra.k8s.io", "k8s.io/x"]
INTS = [0, -1, 1, 2**31 - 1, 2**31, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 10**100, 1.5, "1", None, True]
ANY = [None, True, 0, -1, 2**64, 1.5, "", "x", "1Gi", [], [1], {}, {"a": 1}, [[[]]], {"": None}]


def sites(doc: Any, path: Path = ()) -> list[Path]:
    """Every path into ``doc`` (dict keys and list indexes)."""
    out: list[Path] = []
    stack: list[tuple[Any, Path]] = [(doc, path)]
    while stack:
        node, p = stack.pop()
        if isinstance(node, dict):
            for k, v in node.items():
                out.append((*p, k))
                stack.append((v, (*p, k)))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                out.append((*p, i))
                stack.append((v, (*p, i)))
    return out


def _get(doc: Any, path: Path) -> Any:
    for k in path:
        doc = doc[k]
    return doc


def _set(doc: Any, path: Path, value: Any) -> None:
    _get(doc, path[:-1])[path[-1]] = value


def _key(path: Path) -> str:
    return next((str(k) for k in reversed(path) if isinstance(k, str)), "")


def _edge_for(path: Path, old: Any, rng: random.Random) -> Any:
    key = _key(path)
    if key == "expression":
        return celgen.expression(rng, old if isinstance(old, str) else "")
    if key == "count" or key == "resourceSliceCount":
        return rng.choice(COUNTS)
    if key in ("generation", "int", "priority"):
        return rng.choice(INTS)
    if any(isinstance(k, str) and k in QUANTITY_KEYS for k in path) and key not in ("name", "counterSet"):
        return rng.choice(QUANTITIES)
    if key.endswith("name") or key.endswith("Name") or key in ("driver", "request", "device", "pool", "counterSet"):
        return rng.choice(NAMES)
    return rng.choice(ANY)


def _light(old: Any, rng: random.Random) -> Any:
    if isinstance(old, bool):
        return not old
    if isinstance(old, int):
        return max(0, old + rng.choice([-1, 1, 2]))
    if isinstance(old, str) and old[:1].isdigit():
        return rng.choice([old + "0", old[:-1] or "1", "2" + old])
    return old


# ------------------------------------------------------------------ operators
def op_value(doc: dict[str, Any], rng: random.Random) -> str:
    paths = [p for p in sites(doc) if not isinstance(_get(doc, p), dict | list)]
    if not paths:
        return "value: none"
    p = rng.choice(paths)
    _set(doc, p, _edge_for(p, _get(doc, p), rng))
    return f"value at {'.'.join(map(str, p))}"


def op_light(doc: dict[str, Any], rng: random.Random) -> str:
    paths = [p for p in sites(doc) if not isinstance(_get(doc, p), dict | list) and p[0] != "expect"]
    if not paths:
        return "light: none"
    p = rng.choice(paths)
    _set(doc, p, _light(_get(doc, p), rng))
    return f"light at {'.'.join(map(str, p))}"


def op_delete(doc: dict[str, Any], rng: random.Random) -> str:
    paths = [p for p in sites(doc) if isinstance(p[-1], str)]
    p = rng.choice(paths)
    del _get(doc, p[:-1])[p[-1]]
    return f"delete {'.'.join(map(str, p))}"


def op_extra(doc: dict[str, Any], rng: random.Random) -> str:
    dicts = [p for p in sites(doc) if isinstance(_get(doc, p), dict)] or [()]
    p = rng.choice(dicts)
    key = rng.choice(["extra", "spec", "status", "metadata", "apiVersion", "kind", "devices", "count", "nodeName"])
    _get(doc, p)[key] = rng.choice(ANY)
    return f"extra {key} at {'.'.join(map(str, p))}"


def op_type(doc: dict[str, Any], rng: random.Random) -> str:
    paths = sites(doc)
    p = rng.choice(paths)
    old = _get(doc, p)
    _set(doc, p, rng.choice([v for v in ANY if type(v) is not type(old)]))
    return f"type at {'.'.join(map(str, p))}"


def op_duplicate(doc: dict[str, Any], rng: random.Random) -> str:
    lists = [p for p in sites(doc) if isinstance(_get(doc, p), list) and _get(doc, p)]
    if not lists:
        return "duplicate: none"
    p = rng.choice(lists)
    lst = _get(doc, p)
    times = rng.choice([1, 1, 1, 32, 64, 127, 128, 129, 300])
    item = rng.choice(lst)
    lst.extend(copy.deepcopy(item) for _ in range(times))
    return f"duplicate x{times} in {'.'.join(map(str, p))}"


def op_grow(doc: dict[str, Any], rng: random.Random) -> str:
    """Many distinct devices, requests or counters: list sizes at the limits."""
    lists = [p for p in sites(doc) if isinstance(_get(doc, p), list) and _get(doc, p)
             and isinstance(_get(doc, p)[0], dict) and "name" in _get(doc, p)[0]]
    if not lists:
        return "grow: none"
    p = rng.choice(lists)
    lst = _get(doc, p)
    named = [x for x in lst if isinstance(x, dict)]
    n = rng.choice([16, 32, 33, 64, 65, 128, 129, 500])
    for i in range(n):
        item = copy.deepcopy(rng.choice(named))
        item["name"] = f"{item.get('name')}-g{i}"
        lst.append(item)
    return f"grow {'.'.join(map(str, p))} by {n}"


def op_cel(doc: dict[str, Any], rng: random.Random) -> str:
    paths = [p for p in sites(doc) if p[-1] == "expression"]
    if not paths:
        return "cel: none"
    p = rng.choice(paths)
    _set(doc, p, celgen.expression(rng, str(_get(doc, p))))
    return f"cel at {'.'.join(map(str, p))}"


def op_features(doc: dict[str, Any], rng: random.Random) -> str:
    gates = ["DRAPartitionableDevices", "DRAPrioritizedList", "DRAConsumableCapacity", "DRADeviceTaints",
             "DRAAdminAccess", "DRADeviceBindingConditions", "DRAListTypeAttributes", "DRAResourceSliceMixins"]
    doc["features"] = sorted(set(doc.get("features") or []) ^ {rng.choice(gates)})
    if rng.random() < 0.3:
        doc["variant"] = rng.choice(["stable", "incubating", "experimental"])
    else:
        doc.pop("variant", None)
    return "features"


def op_order(doc: dict[str, Any], rng: random.Random) -> str:
    key = rng.choice(["claims", "objects", "allocated"])
    lst = doc.get(key)
    if isinstance(lst, list):
        rng.shuffle(lst)
        if lst and rng.random() < 0.3:
            lst.pop(rng.randrange(len(lst)))
    return f"order {key}"


LIGHT: list[Callable[[dict[str, Any], random.Random], str]] = [op_light, op_features, op_order]
HOSTILE: list[Callable[[dict[str, Any], random.Random], str]] = [
    op_value, op_value, op_value, op_delete, op_extra, op_type, op_duplicate, op_grow, op_cel]


MAX_NODES = 100_000   # a mutated document larger than this is not made (duplicates of duplicates grow fast)


def _too_big(doc: Any) -> bool:
    n, stack = 0, [doc]
    while stack:
        node = stack.pop()
        n += 1
        if n > MAX_NODES:
            return True
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def mutate(doc: dict[str, Any], rng: random.Random, hostile: bool) -> list[str]:
    """Mutate ``doc`` in place; return what was done."""
    doc.pop("expect", None)
    doc.pop("skip_reason", None)
    ops = HOSTILE if hostile else LIGHT
    done = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        before = copy.deepcopy(doc)
        op = rng.choice(ops)
        try:
            what = op(doc, rng)
        except (LookupError, TypeError, AttributeError, ValueError) as e:   # a site an earlier mutation broke
            doc.clear()
            doc.update(before)
            done.append(f"{op.__name__}: not applicable ({type(e).__name__})")
            continue
        if _too_big(doc):
            doc.clear()
            doc.update(before)
            what += " (undone: too big)"
        done.append(what)
    return done
