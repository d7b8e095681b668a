"""The independent rule checker: is an allocation one the rules allow?

Everything here is plain Python over the models and the inventory helpers
(pool gathering, selectors, attributes, capacity, taints): no solver, no
OR-Tools. ``verify_allocation`` is the entry point a solver calls to
double-check its own answer; ``check_claim`` checks one allocated claim on the
node it is used on."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from dralloc.checker.claimcounts import check_counts
from dralloc.checker.config import check_config
from dralloc.checker.constraints import DeviceAttrSource, check_constraints
from dralloc.checker.fields import check_result_fields
from dralloc.checker.finding import WARNING, Finding, error
from dralloc.checker.nodesel import SelectorTermsError, describe, expected_selector, normal
from dralloc.checker.shared import check_shared
from dralloc.errors import AllocationError
from dralloc.features import Features, Variant
from dralloc.inventory.pools import DeviceID, Pool, PoolDevice, gather_pools
from dralloc.inventory.problem import Problem, build_problem
from dralloc.inventory.requests import MAX_RESULTS, RequestSlot, RequestSpec
from dralloc.inventory.taints import untolerated_taint
from dralloc.models import (
    AllocationResult,
    DeviceAttribute,
    DeviceClass,
    DeviceRequestAllocationResult,
    Node,
    ResourceClaim,
    ResourceClaimStatus,
    ResourceSlice,
)

Res = DeviceRequestAllocationResult


def label(r: Res) -> str:
    return f"{r.driver}/{r.pool}/{r.device}"


@dataclass
class ClaimContext:
    """One claim on one node: the gathered pools and, when the claim is valid,
    its request plan (RequestSpecs with All lists) and selector evaluator."""

    key: str
    node: Node
    pools: list[Pool]
    problem: Problem | None
    index: dict[DeviceID, PoolDevice]

    def spec_for(self, request: str) -> tuple[RequestSlot | None, RequestSpec | None]:
        if self.problem is None:
            return None, None
        base, _, sub = request.partition("/")
        for slot in self.problem.plans[0].slots:
            if slot.name != base:
                continue
            for spec in slot.options:
                if spec.sub == sub:
                    return slot, spec
            return slot, None
        return None, None


def _context(slices: list[ResourceSlice], classes: Sequence[DeviceClass], node: Node,
             claim: ResourceClaim, features: Features, variant: Variant,
             pools: list[Pool] | None = None) -> tuple[ClaimContext | None, list[Finding]]:
    key = claim.key
    found: list[Finding] = []
    problem = None
    try:
        problem = build_problem(slices, classes, node, [claim], [], features, variant, pools)
        pools = problem.pools
    except AllocationError as e:
        rule = "all-devices" if "asks for all devices" in str(e) else "claim-invalid"
        found.append(error(rule, key, f"Kubernetes refuses this claim on node {node.name or '<none>'}: {e}",
                           (f"ResourceClaim {key}",), ("spec.devices",)))
        try:
            pools = gather_pools(slices, node, features, variant)
        except AllocationError as e2:
            found.append(error("claim-invalid", key, f"pools for node {node.name} cannot be gathered: {e2}"))
            return None, found
    index = {pd.id: pd for p in pools for pd in p.devices}
    return ClaimContext(key, node, pools, problem, index), found


def _locate(ctx: ClaimContext, r: Res, slices: list[ResourceSlice]) -> tuple[PoolDevice | None, Finding | None]:
    pd = ctx.index.get((r.driver, r.pool, r.device))
    if pd is not None:
        return pd, None
    lab = label(r)
    where = (lab, f"ResourceClaim {ctx.key}")
    for p in ctx.pools:
        if (p.driver, p.name) == (r.driver, r.pool) and not p.usable:
            why = "is being updated (incomplete)" if p.incomplete else f"is invalid ({p.invalid})"
            return None, error("pool-usable", ctx.key, f"device {lab} comes from pool {r.driver}/{r.pool}, "
                               f"which {why} on node {ctx.node.name}", where, ("status.allocation.devices.results",))
    exists = any(s.spec.driver == r.driver and s.spec.pool.name == r.pool
                 and any(d.name == r.device for d in s.spec.devices or []) for s in slices)
    if exists:
        return None, error("device-on-node", ctx.key, f"device {lab} is not available on node "
                           f"{ctx.node.name or '<none>'} (no current slice of its pool targets that node)",
                           where, ("status.allocation.devices.results",))
    return None, error("device-exists", ctx.key, f"device {lab} is not published in any ResourceSlice",
                       where, ("status.allocation.devices.results",))


def _device_findings(ctx: ClaimContext, r: Res, j: int, pd: PoolDevice, spec: RequestSpec,
                     features: Features, variant: Variant) -> list[Finding]:
    out: list[Finding] = []
    lab, fp = label(r), f"status.allocation.devices.results[{j}]"
    assert ctx.problem is not None
    try:
        why = ctx.problem.selectable.reason(pd, spec)
    except AllocationError as e:
        why = f"cannot be evaluated: {e}"
    if why is not None:
        rule = ("binding-conditions" if "binding conditions" in why
                else "compatibility-groups-gate" if "compatibility groups" in why
                else "device-on-node" if "not available on node" in why else "selector")
        out.append(error(rule, ctx.key, f"device {lab} (request {r.request}) {why}",
                         (lab, f"DeviceClass {spec.device_class_name}"), (fp,)))
    if features.device_taints:  # admin access is no exception (DC-13)
        taint = untolerated_taint(pd.device.taints, spec.tolerations)
        if taint is not None:
            out.append(error("taint", ctx.key, f"device {lab} has taint {taint.key}={taint.value or ''}:"
                             f"{taint.effect} which request {r.request} does not tolerate", (lab,), (fp,)))
    out.extend(check_result_fields(ctx.key, r, j, pd, spec, features, variant))
    return out


def _derived(ctx: ClaimContext, pd: PoolDevice, spec: RequestSpec | None) -> Mapping[str, DeviceAttribute] | None:
    """The request's derived attributes on the device (KEP-6080); None when
    they cannot be had (the device is not selectable: reported elsewhere)."""
    if ctx.problem is None or spec is None or not spec.derived:
        return None
    try:
        return ctx.problem.selectable.derived(pd, spec)
    except AllocationError:
        return None


def check_claim(slices: list[ResourceSlice], classes: Sequence[DeviceClass], node: Node, claim: ResourceClaim,
                alloc: AllocationResult, features: Features, variant: Variant | None = None,
                pools: list[Pool] | None = None) -> list[Finding]:
    """Every per-claim rule for ``claim`` allocated as ``alloc`` and used on
    ``node`` (``pools``: gathered from ``slices`` for ``node`` already)."""
    variant = variant or features.variant()
    ctx, out = _context(slices, classes, node, claim, features, variant, pools)
    if ctx is None:
        return out
    results = list(alloc.devices.results or []) if alloc.devices else []
    if len(results) > MAX_RESULTS:
        out.append(error("max-results", ctx.key, f"{len(results)} results, at most {MAX_RESULTS} are allowed",
                         (f"ResourceClaim {ctx.key}",), ("status.allocation.devices.results",)))
    held: list[tuple[Res, DeviceAttrSource | None]] = []
    located: list[tuple[ResourceSlice, PoolDevice]] = []
    for j, r in enumerate(results):
        pd, problem = _locate(ctx, r, slices)
        if problem is not None:
            out.append(problem)
        slot, spec = ctx.spec_for(r.request)
        held.append((r, DeviceAttrSource(pd.device, pd.pool.driver, _derived(ctx, pd, spec)) if pd else None))
        if pd is not None:
            located.append((pd.slice, pd))
        if ctx.problem is not None and spec is None:
            out.append(error("request", ctx.key, f"result for device {label(r)} names request {r.request!r}, "
                             "which the claim does not have", (label(r),),
                             (f"status.allocation.devices.results[{j}].request",)))
        if pd is not None and spec is not None:
            out.extend(_device_findings(ctx, r, j, pd, spec, features, variant))
    if ctx.problem is not None:
        slots = ctx.problem.plans[0].slots
        out.extend(check_counts(ctx.key, slots, results))
        out.extend(check_config(ctx.key, claim, slots, results, alloc.devices.config if alloc.devices else None))
    set_mode = variant is Variant.EXPERIMENTAL and features.list_type_attributes
    out.extend(check_constraints(ctx.key, claim.spec.devices.constraints or [], held, set_mode))
    if len(located) == len(results):
        out.extend(_node_selector(ctx, [(s, pd.device) for s, pd in located], alloc, variant))
    return out


def _node_selector(ctx: ClaimContext, devices: list[tuple[ResourceSlice, object]],
                   alloc: AllocationResult, variant: Variant) -> list[Finding]:
    try:  # the stable allocator does not know bindsToNode
        want = expected_selector(devices, ctx.node.name, variant is not Variant.STABLE)  # type: ignore[arg-type]
    except SelectorTermsError as e:
        return [error("node-selector", ctx.key, f"Kubernetes cannot compute a node selector: {e}")]
    got = normal(alloc.node_selector)
    if want == got:
        return []
    return [error("node-selector", ctx.key, f"nodeSelector is {describe(got)}, Kubernetes computes "
                  f"{describe(want)}", (f"ResourceClaim {ctx.key}",), ("status.allocation.nodeSelector",))]


def with_allocation(claim: ResourceClaim, alloc: AllocationResult) -> ResourceClaim:
    status = claim.status or ResourceClaimStatus()
    return claim.model_copy(update={"status": status.model_copy(update={"allocation": alloc})})


def verify_allocation(slices: list[ResourceSlice], classes: Iterable[DeviceClass], node: Node,
                      claims: Sequence[ResourceClaim], allocations: Sequence[AllocationResult],
                      allocated: Iterable[ResourceClaim] = (), features: Features | None = None,
                      variant: Variant | None = None, pools: list[Pool] | None = None) -> list[Finding]:
    """Check ``allocations`` (one per claim, in order) made on ``node`` while
    ``allocated`` claims already hold devices. Returns the violations; an
    empty list means the answer follows every rule. ``pools``: the pools
    already gathered from ``slices`` for ``node`` (read only)."""
    feats = features or Features()
    cls = list(classes)
    out: list[Finding] = []
    if len(claims) != len(allocations):
        return [error("request", "", f"{len(claims)} claims but {len(allocations)} allocations")]
    fresh = [with_allocation(c, a) for c, a in zip(claims, allocations, strict=True)]
    if pools is None:
        try:  # gathered once for all the claims of this node (read only)
            pools = gather_pools(slices, node, feats, variant or feats.variant())
        except AllocationError:
            pools = None  # each claim reports it
    for c, a in zip(claims, allocations, strict=True):
        out.extend(check_claim(slices, cls, node, c, a, feats, variant, pools))
    before = list(allocated)
    var = variant or feats.variant()
    after = check_shared(slices, [*before, *fresh], feats, var)
    if not after:
        return out
    known = {(f.rule, f.objects[:1]) for f in check_shared(slices, before, feats, var)}
    for f in after:
        if (f.rule, f.objects[:1]) in known:  # already broken before these claims
            f = replace(f, level=WARNING, detail="already so in the allocated state")
        out.append(f)
    return out
