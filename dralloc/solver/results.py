"""Building the per-claim AllocationResult from the chosen devices (spec §5):
results in search order, configs collapsed, the node selector computed."""

from __future__ import annotations

from dralloc.errors import AllocationError
from dralloc.features import Features, Variant
from dralloc.inventory.compat import snapshot
from dralloc.inventory.requests import ClaimPlan
from dralloc.models import (
    AllocationResult,
    DeviceAllocationConfiguration,
    DeviceAllocationResult,
    DeviceRequestAllocationResult,
    Node,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    ObjectMeta,
)
from dralloc.solver.replay import Chosen
from dralloc.solver.shareids import ShareIDs, derived


def device_result(ch: Chosen, features: Features, share_id: str | None = None) -> DeviceRequestAllocationResult:
    dev = ch.pd.device
    binding = features.binding_conditions
    return DeviceRequestAllocationResult(
        request=ch.req.name, driver=ch.pd.pool.driver, pool=ch.pd.pool.name, device=dev.name,
        admin_access=True if ch.req.admin else None,
        tolerations=ch.req.tolerations,
        binding_conditions=dev.binding_conditions if binding else None,
        binding_failure_conditions=dev.binding_failure_conditions if binding else None,
        share_id=share_id,  # type: ignore[call-arg]  # populated by name; alias shareID
        consumed_capacity=ch.consumed or None,
        compatibility_groups=snapshot(dev) if features.compatibility_groups else None,
    )


def chosen_names(plan: ClaimPlan, selected: dict[tuple[int, int], int]) -> list[tuple[str, str]]:
    """(request name, name as configs refer to it) for each request of the claim."""
    out = []
    for ri, slot in enumerate(plan.slots):
        if slot.subs:
            sub = slot.subs[selected.get((plan.index, ri), 0)]
            out.append((slot.name, sub.name))
        else:
            out.append((slot.name, slot.name))
    return out


def build_config(plan: ClaimPlan, selected: dict[tuple[int, int], int]) -> list[DeviceAllocationConfiguration] | None:
    names = chosen_names(plan, selected)
    entries: list[DeviceAllocationConfiguration] = []
    by_class: dict[str, list[int]] = {}
    for ri, slot in enumerate(plan.slots):
        spec = slot.subs[selected.get((plan.index, ri), 0)] if slot.subs else slot.plain
        if spec is None or spec.device_class is None:
            continue
        cname = spec.device_class.name
        if cname in by_class:
            for idx in by_class[cname]:
                e = entries[idx]
                entries[idx] = e.model_copy(update={"requests": [*(e.requests or []), spec.name]})
            continue
        by_class[cname] = []
        for cfg in spec.device_class.spec.config or []:
            by_class[cname].append(len(entries))
            entries.append(DeviceAllocationConfiguration(source="FromClass", requests=[spec.name], opaque=cfg.opaque))
    allowed = {n for _, n in names} | {b for b, _ in names}
    for ccfg in plan.claim.spec.devices.config or []:
        if not ccfg.requests or any(r in allowed for r in ccfg.requests):
            entries.append(DeviceAllocationConfiguration(source="FromClaim", requests=ccfg.requests, opaque=ccfg.opaque))
    out = []
    for e in entries:
        if e.requests and all(n in e.requests or b in e.requests for b, n in names):
            e = e.model_copy(update={"requests": None})
        out.append(e)
    return out or None


def _pin(node: Node) -> NodeSelector:
    return NodeSelector(node_selector_terms=[NodeSelectorTerm(match_fields=[
        NodeSelectorRequirement(key="metadata.name", operator="In", values=[node.name])])])


def _same(a: NodeSelectorRequirement, b: NodeSelectorRequirement) -> bool:
    return a.key == b.key and a.operator == b.operator and set(a.values or []) == set(b.values or [])


def build_node_selector(plan: ClaimPlan, chosen: list[Chosen], node: Node, variant: Variant) -> NodeSelector | None:
    fields: list[NodeSelectorRequirement] = []
    exprs: list[NodeSelectorRequirement] = []
    for ch in chosen:
        src = ch.pd.device if ch.pd.slice.spec.per_device_node_selection else ch.pd.slice.spec
        binds = bool(ch.pd.device.binds_to_node) and variant is not Variant.STABLE
        # A set nodeName pins even when empty: Kubernetes tests the pointer (OUT-6).
        if src.node_name is not None or binds:
            if variant is Variant.STABLE and src.node_name is not None:
                return _pin(Node(metadata=ObjectMeta(name=src.node_name)))
            return _pin(node)
        sel = src.node_selector
        if sel is None or not sel.node_selector_terms:
            continue
        if len(sel.node_selector_terms) > 1:
            raise AllocationError(f"create NodeSelector for claim {plan.claim.name}: unsupported "
                                  f"ResourceSlice.NodeSelector with {len(sel.node_selector_terms)} terms")
        term = sel.node_selector_terms[0]
        for dst, reqs in ((fields, term.match_fields), (exprs, term.match_expressions)):
            for r in reqs or []:
                if not any(_same(r, x) for x in dst):
                    dst.append(r)
    if not fields and not exprs:
        return None
    return NodeSelector(node_selector_terms=[NodeSelectorTerm(match_expressions=exprs or None, match_fields=fields or None)])


def build_allocation(plan: ClaimPlan, chosen: list[Chosen], selected: dict[tuple[int, int], int],
                     node: Node, features: Features, variant: Variant,
                     share_ids: ShareIDs = derived) -> AllocationResult:
    """The claim's AllocationResult; each share of a shared device gets its
    share ID from ``share_ids`` (derived from the claim and result by default)."""
    results = [device_result(ch, features, share_ids(plan.claim, i, ch.req.name, ch.pd.label) if ch.multi else None)
               for i, ch in enumerate(chosen)]
    return AllocationResult(
        devices=DeviceAllocationResult(results=results, config=build_config(plan, selected)),
        node_selector=build_node_selector(plan, chosen, node, variant),
    )
