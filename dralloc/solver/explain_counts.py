"""The short why of a negative answer, in words (no solver: the inventory's
exclusions, device by device).

First one plain line for the node (how many devices are free for the request
that is short, and how many it needs; or, when every request has enough on
its own, why they do not fit together), then one line per request
alternative with every exclusion the inventory made and how many devices it
removed, quantities in Kubernetes units."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction

from dralloc.inventory.candidates import searched_devices
from dralloc.inventory.exclusions import COUNTERS, KINDS, Exclusion, exclusion
from dralloc.inventory.pools import CounterMap, PoolDevice
from dralloc.inventory.problem import Problem
from dralloc.inventory.requests import ClaimPlan, RequestSlot, RequestSpec
from dralloc.quantity import amount_text

SHOWN_DETAILS = 3  # particulars listed per exclusion kind


@dataclass
class Tally:
    """One request alternative on the node: free devices and exclusions."""

    plan: ClaimPlan
    spec: RequestSpec
    searched: int = 0
    free: list[PoolDevice] = field(default_factory=list)
    kinds: Counter[str] = field(default_factory=Counter)
    details: dict[str, list[str]] = field(default_factory=dict)
    counters: dict[str, tuple[Fraction, Fraction, Fraction]] = field(default_factory=dict)  # path -> min, max need, left

    @property
    def need(self) -> int:
        return self.spec.num_devices

    @property
    def enough(self) -> bool:
        if self.spec.is_all:
            return bool(self.spec.num_devices) and len(self.free) == self.spec.num_devices
        return len(self.free) >= self.spec.num_devices

    def add(self, why: Exclusion) -> None:
        self.kinds[why.kind] += 1
        if why.counter and why.need is not None and why.left is not None:
            lo, hi, _ = self.counters.get(why.counter, (why.need, why.need, why.left))
            self.counters[why.counter] = (min(lo, why.need), max(hi, why.need), why.left)
            return
        seen = self.details.setdefault(why.kind, [])
        if why.detail and why.detail not in seen:
            seen.append(why.detail)

    def excluded(self) -> str:
        """``2 in use; 6 counters exhausted (gpu-0/memory: needs 5Gi, 0 left)``, in filter order."""
        parts = []
        for kind in KINDS:
            n = self.kinds.get(kind)
            if not n:
                continue
            shown = self._counters() if kind == COUNTERS else self.details.get(kind, [])
            more = f"; +{len(shown) - SHOWN_DETAILS} more" if len(shown) > SHOWN_DETAILS else ""
            parts.append(f"{n} {kind}" + (f" ({'; '.join(shown[:SHOWN_DETAILS])}{more})" if shown else ""))
        return ", ".join(parts)


    def _counters(self) -> list[str]:
        """Per counter: what is left and what the excluded devices need of it."""
        out = []
        for path, (lo, hi, left) in self.counters.items():
            need = amount_text(lo) if lo == hi else f"{amount_text(lo)} to {amount_text(hi)}"
            out.append(f"{path}: {amount_text(left)} left, device(s) need {need}")
        return out


def tallies(problem: Problem) -> list[list[list[Tally]]]:
    """Per claim, per request slot, per alternative: what the inventory left."""
    available: dict[tuple[str, str], CounterMap] = {}
    out = []
    for plan in problem.plans:
        slots = []
        for slot in plan.slots:
            alts = []
            for spec in slot.options:
                t = Tally(plan, spec)
                devices = searched_devices(problem, spec)
                t.searched = len(devices)
                for pd in devices:
                    why = exclusion(problem, spec, pd, available)
                    if why is None:
                        t.free.append(pd)
                    else:
                        t.add(why)
                alts.append(t)
            slots.append(alts)
        out.append(slots)
    return out


def _want(t: Tally) -> str:
    return f"all {t.need}" if t.spec.is_all else str(t.need)


def _short(slot: RequestSlot, alts: list[Tally]) -> str:
    """One short request, plainly."""
    t = alts[0]
    who = f"request {t.plan.key}/{slot.name}"
    if len(alts) == 1:
        if t.spec.is_all and not t.need:
            return f"no device of class {t.spec.device_class_name} matches {who} (it asks for all of them)"
        return f"{len(t.free)} device(s) of class {t.spec.device_class_name} free for {who}, {_want(t)} needed"
    each = "; ".join(f"{a.spec.sub}: {len(a.free)} of class {a.spec.device_class_name} free, {_want(a)} needed"
                     for a in alts)
    return f"no alternative of {who} has enough ({each})"


def _together(problem: Problem, found: list[list[list[Tally]]]) -> str:
    """Why requests that each have enough on their own do not fit together:
    too few devices for all of them, counters their devices share, constraints."""
    firsts = [next((a for a in alts if a.enough), alts[0]) for slots in found for alts in slots]
    each = ", ".join(f"{t.plan.key}/{t.spec.name}: {len(t.free)} free, {_want(t)} needed" for t in firsts)
    why = []
    union = {pd.id for t in firsts for pd in t.free}
    total = sum(t.need for t in firsts)
    if len(union) < total:
        why.append(f"together they need {total} devices, only {len(union)} {'is' if len(union) == 1 else 'are'} "
                   "free for them")
    shared = sorted({f"{pd.pool.driver}/{pd.pool.name}/{cc.counter_set}" for t in firsts for pd in t.free
                     for cc in pd.device.consumes_counters or []})
    if shared:
        more = f" (+{len(shared) - SHOWN_DETAILS} more)" if len(shared) > SHOWN_DETAILS else ""
        why.append(f"their devices draw on shared counters ({', '.join(shared[:SHOWN_DETAILS])}{more})")
    constraints = [f"{'matchAttribute ' + c.match_attribute if c.match_attribute else 'distinctAttribute ' + str(c.distinct_attribute)}"
                   f" in claim {p.key}" for p in problem.plans for c in p.constraints]
    if constraints:
        why.append("constraints limit the combinations (" + "; ".join(constraints[:SHOWN_DETAILS]) + ")")
    head = f"each request has enough free devices on its own ({each}), but not all together"
    return head + (": " + "; ".join(why) if why else " (dralloc explain finds the conflicting set)")


def summary_line(problem: Problem, found: list[list[list[Tally]]]) -> str:
    """The node's one plain line: the first short request, else why not together."""
    node = problem.node.name or "<none>"
    for plan, slots in zip(problem.plans, found, strict=True):
        for slot, alts in zip(plan.slots, slots, strict=True):
            if alts and not any(a.enough for a in alts):
                return f"{node}: {_short(slot, alts)}"
    if not any(slots for slots in found):
        return f"{node}: the claims request no devices"
    return f"{node}: {_together(problem, found)}"


def candidate_report(problem: Problem) -> list[str]:
    """The short why: the node's summary line, then per request alternative
    how many devices are free and every exclusion the inventory made."""
    found = tallies(problem)
    lines = [summary_line(problem, found)]
    node = problem.node.name or "<none>"
    for slots in found:
        for alts in slots:
            for t in alts:
                excluded = t.excluded()
                lines.append(f"claim {t.plan.key} request {t.spec.name} wants {_want(t)} device(s) of class "
                             f"{t.spec.device_class_name}: {len(t.free)} of {t.searched} device(s) on node "
                             f"{node} free" + (f"; excluded: {excluded}" if excluded else ""))
    skipped = [f"{p.driver}/{p.name}" + (f" ({p.invalid})" if p.invalid else " (incomplete)")
               for p in problem.pools if not p.usable]
    if skipped:
        lines.append("pools skipped as incomplete or invalid: " + ", ".join(skipped))
    return lines
