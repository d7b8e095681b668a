"""How many devices each request of a claim holds: ExactCount, All and the
choice among firstAvailable alternatives."""

from __future__ import annotations

from collections.abc import Sequence

from dralloc.checker.finding import Finding, error
from dralloc.inventory.requests import RequestSlot, RequestSpec
from dralloc.models import DeviceRequestAllocationResult

FIELD = "status.allocation.devices.results"


def _label(r: DeviceRequestAllocationResult) -> str:
    return f"{r.driver}/{r.pool}/{r.device}"


def check_counts(claim: str, slots: Sequence[RequestSlot],
                 results: Sequence[DeviceRequestAllocationResult]) -> list[Finding]:
    out: list[Finding] = []
    for ri, slot in enumerate(slots):
        mine = [r for r in results if r.request.partition("/")[0] == slot.name]
        fp = f"spec.devices.requests[{ri}]"
        if slot.plain is not None:
            out.extend(_one(claim, slot.plain, mine, fp))
            continue
        used = sorted({r.request.partition("/")[2] for r in mine})
        if len(used) > 1:
            out.append(error("first-available", claim, f"request {slot.name} uses several alternatives "
                             f"({', '.join(used)}); a prioritized list allows exactly one", (), (fp, FIELD)))
            continue
        if not used:
            if not any(o.mode == "ExactCount" and o.count == 0 for o in slot.subs):
                out.append(error("count", claim, f"request {slot.name} holds no device, but none of its "
                                 "alternatives asks for zero devices", (), (fp, FIELD)))
            continue
        spec = next((o for o in slot.subs if o.sub == used[0]), None)
        if spec is not None:
            out.extend(_one(claim, spec, mine, f"{fp}.firstAvailable[{slot.subs.index(spec)}]"))
    return out


def _one(claim: str, spec: RequestSpec, mine: list[DeviceRequestAllocationResult], fp: str) -> list[Finding]:
    if spec.mode == "ExactCount":
        if len(mine) != spec.count:
            return [error("count", claim, f"request {spec.name} asks for {spec.count} device(s) and holds "
                          f"{len(mine)}", tuple(_label(r) for r in mine), (f"{fp}.count", FIELD))]
        return []
    want = [pd.label for pd in spec.all_devices or []]
    got = {_label(r) for r in mine}
    if not want:
        return [error("all-devices", claim, f"request {spec.name} asks for all devices, but no device on the "
                      "node matches it (Kubernetes fails such a request)", tuple(sorted(got)), (fp,))]
    missing = [w for w in want if w not in got]
    out = []
    if missing:
        out.append(error("all-devices", claim, f"request {spec.name} asks for all matching devices, but "
                         f"{len(missing)} of {len(want)} are not allocated: {', '.join(missing)}",
                         tuple(missing), (fp, FIELD)))
    extra = sorted(got - set(want))
    if extra:
        out.append(error("all-devices", claim, f"request {spec.name} asks for all matching devices of the node, "
                         f"which {', '.join(extra)} {'is' if len(extra) == 1 else 'are'} not one of",
                         tuple(extra), (fp, FIELD)))
    return out
