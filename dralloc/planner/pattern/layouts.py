"""Layouts: the multisets of device kinds one unit (one GPU) can hold at the
same time. They are enumerated from the unit's real devices -- every MIG
profile at every published placement, each consuming its memory slices -- so
placement rules hold by construction. Only maximal layouts are kept (any
smaller one is a subset of a maximal one), each with one witness: the devices
that realise it."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from dralloc.planner.view.cluster import UnitType

Multiset = tuple[tuple[int, int], ...]   # sorted (kind, count)


@dataclass(frozen=True)
class Layout:
    kinds: Multiset
    witness: tuple[int, ...]   # device indices in the unit type

    def count(self, kind: int) -> int:
        return dict(self.kinds).get(kind, 0)

    @property
    def size(self) -> int:
        return sum(n for _, n in self.kinds)


def _fits(caps: tuple[int, ...], use: tuple[int, ...]) -> bool:
    return all(u <= c for u, c in zip(use, caps, strict=True))


def _dominated(a: Multiset, b: Multiset) -> bool:
    """a <= b componentwise and a != b."""
    db = dict(b)
    return a != b and all(n <= db.get(k, 0) for k, n in a)


def enumerate_layouts(ut: UnitType, useful: frozenset[int] | None = None) -> list[Layout]:
    """The maximal layouts of ``ut`` over devices whose kind is in ``useful``
    (all devices when None), deterministic order."""
    devs = [(i, use, k) for i, (use, k) in enumerate(ut.devices) if useful is None or k in useful]

    @cache
    def go(j: int, caps: tuple[int, ...]) -> dict[Multiset, tuple[int, ...]]:
        if j == len(devs):
            return {(): ()}
        out = dict(go(j + 1, caps))
        i, use, k = devs[j]
        if _fits(caps, use):
            rest = tuple(c - u for c, u in zip(caps, use, strict=True))
            for ms, wit in go(j + 1, rest).items():
                counts = dict(ms)
                counts[k] = counts.get(k, 0) + 1
                key = tuple(sorted(counts.items()))
                out.setdefault(key, (i, *wit))
        return out

    found = go(0, ut.caps)
    keys = sorted(found, key=lambda m: (-sum(n for _, n in m), m))
    maximal: list[Multiset] = []
    for m in keys:
        if not any(_dominated(m, other) for other in maximal):
            maximal.append(m)
    return [Layout(m, found[m]) for m in maximal if m]
