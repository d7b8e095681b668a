"""``devices.config`` of an allocation: the configuration Kubernetes copies
from the classes and the claim for the requests it served (spec OUT-5),
recomputed from the claim, its classes and the alternatives the results
show, and compared entry by entry (order matters: drivers apply later
entries over earlier ones)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dralloc.checker.finding import Finding, error
from dralloc.inventory.requests import RequestSlot, RequestSpec
from dralloc.models import (
    DeviceAllocationConfiguration,
    DeviceRequestAllocationResult,
    ResourceClaim,
)

Entry = tuple[str, tuple[str, ...] | None, Any]  # source, requests (sorted; None = all), opaque


def _chosen(slot: RequestSlot, results: Sequence[DeviceRequestAllocationResult]) -> RequestSpec | None:
    if slot.plain is not None:
        return slot.plain
    used = {r.request.partition("/")[2] for r in results if r.request.partition("/")[0] == slot.name}
    for sub in slot.subs:
        if sub.sub in used:
            return sub
    # no device: the first alternative asking for none is the one the search settles on
    return next((s for s in slot.subs if s.mode == "ExactCount" and s.count == 0), slot.subs[0] if slot.subs else None)


def expected_config(claim: ResourceClaim, slots: Sequence[RequestSlot],
                    results: Sequence[DeviceRequestAllocationResult]) -> list[Entry]:
    chosen = [(slot.name, spec) for slot in slots if (spec := _chosen(slot, results)) is not None]
    entries: list[tuple[str, list[str], Any]] = []
    by_class: dict[str, list[int]] = {}
    for _, spec in chosen:
        cls = spec.device_class
        if cls is None:
            continue
        if cls.name in by_class:
            for i in by_class[cls.name]:
                entries[i][1].append(spec.name)
            continue
        by_class[cls.name] = []
        for cfg in cls.spec.config or []:
            by_class[cls.name].append(len(entries))
            entries.append(("FromClass", [spec.name], _opaque(cfg.opaque)))
    names = {spec.name for _, spec in chosen} | {base for base, _ in chosen}
    for ccfg in claim.spec.devices.config or []:
        if not ccfg.requests or any(n in names for n in ccfg.requests):
            entries.append(("FromClaim", list(ccfg.requests or []), _opaque(ccfg.opaque)))
    out: list[Entry] = []
    for source, reqs, opaque in entries:
        covers = bool(reqs) and all(spec.name in reqs or base in reqs for base, spec in chosen)
        out.append((source, None if covers or not reqs else tuple(sorted(reqs)), opaque))
    return out


def _opaque(o: Any) -> Any:
    return o.dump() if o is not None else None


def _entry(c: DeviceAllocationConfiguration) -> Entry:
    return (c.source, tuple(sorted(c.requests)) if c.requests else None, _opaque(c.opaque))


def check_config(key: str, claim: ResourceClaim, slots: Sequence[RequestSlot],
                 results: Sequence[DeviceRequestAllocationResult],
                 config: Sequence[DeviceAllocationConfiguration] | None) -> list[Finding]:
    want = expected_config(claim, slots, results)
    got = [_entry(c) for c in config or []]
    if want == got:
        return []
    return [error("config", key, f"devices.config holds {_show(got)}, Kubernetes writes {_show(want)}",
                  (f"ResourceClaim {key}",), ("status.allocation.devices.config",))]


def _show(entries: Sequence[Entry]) -> str:
    if not entries:
        return "no entries"
    parts = []
    for source, reqs, opaque in entries:
        driver = opaque.get("driver", "?") if isinstance(opaque, dict) else "?"
        parts.append(f"{source}({driver}, requests {'all' if reqs is None else list(reqs)})")
    return "[" + ", ".join(parts) + "]"
