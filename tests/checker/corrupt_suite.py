"""The corruption suite: valid states (the replay's answers on a corpus),
each corrupted one way at a time by every class, checked by the independent
checker. A corruption that breaks a rule must be flagged with that rule; one
that does not (decided per class from the spec) must leave the state clean.

Run from the tests (small budget) and from
``benchmarks/corruption_suite.py`` (any corpus, any seed, any budget)."""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import corrupt_attrs
import corrupt_cluster
import corrupt_kep137
import corrupt_results
from corrupt_base import Base, base_from_scenario
from corrupt_results import Corruption

from dralloc.io.scenario import Scenario

Corrupter = Callable[[Base, random.Random], Corruption | None]
CLASSES: tuple[Corrupter, ...] = (*corrupt_results.CLASSES, *corrupt_cluster.CLASSES, *corrupt_attrs.CLASSES,
                                  *corrupt_kep137.CLASSES)


@dataclass
class ClassStats:
    tried: int = 0
    flagged: int = 0          # a violation, flagged with the expected rule
    not_violation: int = 0    # not a violation, and the state stayed clean
    missed: list[str] = field(default_factory=list)       # a violation the checker did not flag as expected
    false_alarms: list[str] = field(default_factory=list)  # not a violation, yet flagged
    door: int = 0             # a violation the front door (admission) refuses too, on an admissible state


@dataclass
class SuiteResult:
    seed: int
    bases: int = 0
    admissible: int = 0       # of the states, those the front door accepts as they are
    excluded: dict[str, int] = field(default_factory=dict)   # why a scenario gave no valid state
    classes: dict[str, ClassStats] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def failures(self) -> list[str]:
        return [f"{name}: {m}" for name, s in self.classes.items() for m in (*s.missed, *s.false_alarms)]

    def table(self) -> str:
        rows = ["| corruption | tried | flagged | not a violation | missed | false alarms | also refused at admission |",
                "|---|---:|---:|---:|---:|---:|---:|"]
        for name, s in self.classes.items():
            rows.append(f"| {name} | {s.tried} | {s.flagged} | {s.not_violation} | {len(s.missed)} | "
                        f"{len(s.false_alarms)} | {s.door} |")
        return "\n".join(rows)


def bases(scenarios: Iterable[Scenario], excluded: dict[str, int] | None = None) -> list[Base]:
    out = []
    for sc in scenarios:
        got = base_from_scenario(sc)
        if isinstance(got, Base):
            out.append(got)
        elif excluded is not None:
            why = got.split(":")[0]
            excluded[why] = excluded.get(why, 0) + 1
    return out


def apply(base: Base, corrupt: Corrupter, rng: random.Random, stats: ClassStats) -> None:
    c = corrupt(base, rng)
    if c is None:
        return
    stats.tried += 1
    found = base.errors(c.items)
    rules = {f.split(":", 1)[0] for f in found}
    where = f"{base.name}: {c.what}"
    if c.expect is None:
        if found:
            stats.false_alarms.append(f"{where}: not a violation, yet {found[0]}")
        else:
            stats.not_violation += 1
    elif c.expect in rules:
        stats.flagged += 1
        if base.admissible and base.door_refuses(c.items):
            stats.door += 1
    else:
        stats.missed.append(f"{where}: expected [{c.expect}], got {sorted(rules) or 'a clean state'}")


def run(base_list: list[Base], seed: int, per_class: int = 1, classes: tuple[Corrupter, ...] = CLASSES,
        progress: bool = False) -> SuiteResult:
    """``per_class`` corruptions of every class on every base."""
    res = SuiteResult(seed, len(base_list), sum(b.admissible for b in base_list))
    res.classes = {c.__name__: ClassStats() for c in classes}
    t0 = time.perf_counter()
    for i, base in enumerate(base_list):
        for corrupt in classes:
            for k in range(per_class):
                rng = random.Random(f"{seed}/{base.name}/{corrupt.__name__}/{k}")
                apply(base, corrupt, rng, res.classes[corrupt.__name__])
        if progress:
            print(f"\r{i + 1}/{len(base_list)} states, {time.perf_counter() - t0:.0f} s", end="", file=sys.stderr)
    if progress:
        print(file=sys.stderr)
    res.seconds = time.perf_counter() - t0
    return res
