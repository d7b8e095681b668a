"""Splitting counters over several v1 counter sets.

v1 allows at most 32 counters in a counter set and lets a device consume
from at most 2 counter sets. The old formats had no such limits: a composite
tree of the first KEP-4815 draft, a 2025-03 capacity pool or a dra-evolution
pool can hold more counters than one set takes. These functions decide which
counters go together:

* :func:`split_tree` for a composite tree, where every device consumes the
  counters of all its sources (its path to the root). The top of the tree
  (an ancestor-closed prefix in breadth-first order) goes into the first set,
  and every subtree hanging below that prefix into one more set, so a device
  consumes from at most 2 sets.
* :func:`split_flat` for named counters with no structure: counters that
  some device consumes together stay together (connected components); a
  component too large for one set is cut in order.

Both always return a partition; :func:`check_spans` then names the first
device that would need more than 2 sets (v1 cannot express it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from dralloc.errors import InputError

MAX_SETS_PER_DEVICE = 2


def _chunks(items: Sequence[str], size: int) -> list[list[str]]:
    return [list(items[i:i + size]) for i in range(0, len(items), size)]


def _subtree(node: str, children: Mapping[str, Sequence[str]]) -> list[str]:
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(reversed(children.get(n, ())))
    return out


def _pack(groups: list[list[str]], limit: int) -> list[list[str]]:
    """First-fit decreasing of counter groups into sets of at most ``limit``
    (a group larger than ``limit`` is cut in order); deterministic."""
    order = sorted(range(len(groups)), key=lambda i: (-len(groups[i]), i))
    bins: list[list[str]] = []
    for i in order:
        g = groups[i]
        if len(g) > limit:
            bins.extend(_chunks(g, limit))
            continue
        for b in bins:
            if len(b) + len(g) <= limit:
                b.extend(g)
                break
        else:
            bins.append(list(g))
    return bins


def _cut(bfs: list[str], k: int, children: Mapping[str, Sequence[str]],
         owned: Mapping[str, Sequence[str]], limit: int) -> tuple[int, list[list[str]]]:
    """Top = the first ``k`` nodes in breadth-first order; every subtree
    hanging below the top becomes a group. Returns (largest group, sets)."""
    top = set(bfs[:k])
    hanging = [c for n in bfs[:k] for c in children.get(n, ()) if c not in top]
    groups = [[x for m in _subtree(h, children) for x in owned.get(m, ())] for h in hanging]
    groups = [g for g in groups if g]
    largest = max((len(g) for g in groups), default=0)
    return largest, [[x for n in bfs[:k] for x in owned.get(n, ())], *_pack(groups, limit)]


def split_tree(root: str, children: Mapping[str, Sequence[str]], owned: Mapping[str, Sequence[str]],
               limit: int) -> list[list[str]]:
    """The counters of one composite tree in sets of at most ``limit``.

    ``owned[n]`` are the counters that node ``n`` holds (its capacities that
    consumers below pull from, and its exclusivity counter); every device
    consumes the counters owned by its ancestors. One set when everything
    fits; otherwise the top prefix that leaves the smallest hanging subtrees."""
    bfs, i = [root], 0
    while i < len(bfs):
        bfs.extend(children.get(bfs[i], ()))
        i += 1
    total = sum(len(owned.get(n, ())) for n in bfs)
    if total <= limit:
        return [[x for n in bfs for x in owned.get(n, ())]]
    best: tuple[int, int, list[list[str]]] | None = None
    size = 0
    for k in range(1, len(bfs) + 1):
        size += len(owned.get(bfs[k - 1], ()))
        if size > limit:
            break
        largest, sets = _cut(bfs, k, children, owned, limit)
        key = (largest > limit, len(sets))
        if best is None or key < (best[0] > limit, best[1]):
            best = (largest, len(sets), sets)
    if best is None:  # the root alone owns more than ``limit`` counters
        return _chunks([x for n in bfs for x in owned.get(n, ())], limit)
    top, *rest = best[2]
    return [top, *(s for s in rest if s)] if top else [s for s in rest if s]


def split_flat(counters: Sequence[str], consumers: Mapping[str, Sequence[str]], limit: int) -> list[list[str]]:
    """Named counters in sets of at most ``limit``: counters consumed by the
    same device share a set when their component fits, one set per component,
    in order of first appearance in ``counters``."""
    parent = {c: c for c in counters}

    def find(c: str) -> str:
        while parent[c] != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    for used in consumers.values():
        known = [c for c in used if c in parent]
        for a, b in zip(known, known[1:], strict=False):
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[max(ra, rb, key=counters.index)] = min(ra, rb, key=counters.index)
    comps: dict[str, list[str]] = {}
    for c in counters:
        comps.setdefault(find(c), []).append(c)
    out: list[list[str]] = []
    for comp in comps.values():
        out.extend(_chunks(comp, limit))
    return out


def check_spans(sets: Sequence[Sequence[str]], consumers: Mapping[str, Sequence[str]], limit: int, *,
                source: str, obj: str, fields: Mapping[str, str]) -> None:
    """An error naming the first device (in ``consumers`` order) whose
    counters lie in more than 2 of ``sets``."""
    where = {c: i for i, s in enumerate(sets) for c in s}
    worst: tuple[int, int, str] | None = None
    for dev, used in consumers.items():
        spanned = len({where[c] for c in used if c in where})
        if spanned > MAX_SETS_PER_DEVICE and (worst is None or len(used) > worst[0]):
            worst = (len(used), spanned, dev)
    if worst is None:
        return
    n, spanned, dev = worst
    why = (f"{MAX_SETS_PER_DEVICE} sets of {limit} counters hold {MAX_SETS_PER_DEVICE * limit} at most"
           if n > MAX_SETS_PER_DEVICE * limit
           else f"no split into sets of at most {limit} counters found keeps every device within "
                f"{MAX_SETS_PER_DEVICE} sets")
    raise InputError(f"device {dev!r} consumes {n} counters, which would need {spanned} counter sets "
                     f"({why}); a v1 device consumes from at most {MAX_SETS_PER_DEVICE} counter sets",
                     source=source, obj=obj, field=fields.get(dev, ""))
