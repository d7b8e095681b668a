"""Documented defects of the Kubernetes allocator (spec §8). Replay reproduces
them; the CP-SAT modes follow the rules; every difference names one of these.
When each can fire is decided statically by :mod:`dralloc.inventory.triggers`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Defect:
    id: str
    spec: str
    title: str


DEFECTS = {d.id: d for d in (
    Defect("distinct-attribute-duplicates", "CT-12/T-19",
           "distinctAttribute remembers only the last device of each request, so a value can repeat"),
    Defect("match-attribute-stale-intersection", "CT-8/T-21",
           "matchAttribute over list attributes never widens its intersection after backtracking "
           "(before Kubernetes 1.37)"),
    Defect("counter-leak-on-late-refusal", "T-11",
           "counters of a device refused after the counter check (taint, constraint, capacity) stay consumed"),
    Defect("shared-device-counter-leak", "T-12",
           "a shared device's counters are not returned when its first share is undone"),
    Defect("counters-keyed-by-pool-name", "T-13/CN-1",
           "counter bookkeeping is keyed by pool name only: same-named pools of different drivers mix"),
    Defect("overdrawn-counter-blocks-pool", "T-14/CN-3",
           "one overdrawn counter blocks every counter-consuming device of the pool"),
    Defect("shared-capacity-entry-kept", "T-41",
           "an empty tentative-capacity entry of a shared device is never removed, skipping later counter checks"),
    Defect("quantity-dec-aliasing", "CC-1/CC-2",
           "a capacity request Go holds as inf.Dec (e.g. '0.5Gi') is shared by the consumed amount, "
           "so the over-capacity check adds the device's tentative capacity into the claim's request"),
)}

# replay event -> defect id
EVENT_DEFECT = {
    "distinct-attribute-forgets": "distinct-attribute-duplicates",
    "match-attribute-stale-intersection": "match-attribute-stale-intersection",
    "counter-leak-after-taint": "counter-leak-on-late-refusal",
    "counter-leak-after-constraint": "counter-leak-on-late-refusal",
    "counter-leak-after-capacity": "counter-leak-on-late-refusal",
    "all-mode-capacity-leak": "counter-leak-on-late-refusal",
    "shared-device-counter-leak": "shared-device-counter-leak",
    "shared-capacity-entry-kept": "shared-capacity-entry-kept",
    "quantity-dec-aliasing": "quantity-dec-aliasing",
}


def describe(defect_id: str) -> str:
    d = DEFECTS.get(defect_id)
    return f"{defect_id} ({d.spec}): {d.title}" if d else defect_id
