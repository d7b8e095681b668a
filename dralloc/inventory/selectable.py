"""Is a device selectable for a request? (spec DC-3..DC-6, CEL-9, CEL-10)

Binding conditions, then (DRADeviceCompatibilityGroups off) the devices
Kubernetes 1.37 ignores for their compatibility groups, then the class
selectors in order, then the request's own selectors, then per-device node
selection, then the request's derived attributes (KEP-6080: evaluated on each
device the selectors let through; a runtime error is fatal, as a selector's
is). Verdicts and derived values are cached per (device, request) for one
allocation call; CEL programs are compiled lazily (an expression is only
compiled when some device reaches it, as Kubernetes does)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dralloc.cel import (
    CELCompileError,
    CELRuntimeError,
    DeviceView,
    compile_derived,
    compile_selector,
)
from dralloc.errors import AllocationError
from dralloc.features import Features, Variant
from dralloc.inventory.compat import skipped_without_gate
from dralloc.inventory.nodesel import NodeSelectorError, node_matches
from dralloc.inventory.pools import DeviceID, PoolDevice
from dralloc.models import DeviceAttribute, Node
from dralloc.release import COMPATIBILITY_GROUPS_KNOWN, minor

if TYPE_CHECKING:
    from dralloc.inventory.spec import RequestSpec
    from dralloc.inventory.state import AllocatedState

NO_DERIVED: dict[str, DeviceAttribute] = {}


_UNKNOWN = object()


class Selectability:
    """DC-3 ``isSelectable`` with its per-call cache."""

    def __init__(self, node: Node, features: Features, variant: Variant,
                 state: AllocatedState | None = None) -> None:
        self.node = node
        self.features = features
        self.variant = variant
        self.state = state  # what allocated devices recorded (compatibility groups)
        self._by_request: dict[tuple[int, int, int], dict[DeviceID, str | None]] = {}  # request -> device -> why not
        self._shape: dict[tuple[int, int, int], tuple[object, ...]] = {}   # request -> what its verdicts depend on
        self._derived: dict[tuple[tuple[int, int, int], DeviceID], dict[str, DeviceAttribute]] = {}
        self._knows_groups = minor(features.kubernetes_version) >= minor(COMPATIBILITY_GROUPS_KNOWN)
        self.evaluations = 0

    def view(self, pd: PoolDevice) -> DeviceView:
        """The device as selectors see it (kept on the device: pools the
        cluster object keeps across calls keep it too)."""
        key = "view-stable" if self.variant is Variant.STABLE else "view"
        v = pd.memo.get(key)
        if v is None:
            multi = bool(pd.device.allow_multiple_allocations) and self.variant is not Variant.STABLE
            v = pd.memo[key] = DeviceView.from_device(pd.pool.driver, pd.device, allow_multiple=multi)
        return v  # type: ignore[no-any-return]

    def __call__(self, pd: PoolDevice, req: RequestSpec) -> bool:
        return self.why_not(pd, req) is None

    def why_not(self, pd: PoolDevice, req: RequestSpec) -> str | None:
        """:meth:`reason`, cached per (request, device) for this call."""
        verdicts = self._by_request.get(req.key)
        if verdicts is None:
            verdicts = self._by_request[req.key] = {}
            self._shape[req.key] = ("why-not", req.device_class_name, tuple(req.class_selectors),
                                    tuple(req.selectors), self.features.binding_conditions, self.variant,
                                    self.features.compatibility_groups, self._knows_groups)
        if pd.id in verdicts:
            return verdicts[pd.id]
        if not self._call_free(pd, req):
            why = self.reason(pd, req)
        else:
            key = self._shape[req.key]
            why = pd.memo.get(key, _UNKNOWN)   # kept on the device for pools kept across calls
            if why is _UNKNOWN:
                why = pd.memo[key] = self.reason(pd, req)   # (an error is raised, not kept: it names the claim)
        verdicts[pd.id] = why
        return why  # type: ignore[no-any-return]

    def _call_free(self, pd: PoolDevice, req: RequestSpec) -> bool:
        """Whether the verdict depends on the device and the request's shape
        only, so that it may be kept on the device across calls: not with
        derived attributes (their values are this call's), nor when the
        groups allocated devices recorded decide (the gate off, 1.37 on, a
        device drawing from counters, some result recording groups)."""
        if req.derived:
            return False
        if self.features.compatibility_groups or not pd.device.consumes_counters or not self._knows_groups:
            return True
        return self.state is None or not self.state.snapshots

    def reason(self, pd: PoolDevice, req: RequestSpec) -> str | None:
        """Why the device is not selectable (None when it is)."""
        if not self.features.binding_conditions and pd.device.binding_conditions:
            return "has binding conditions (DRADeviceBindingConditions off)"
        if self._skipped_for_groups(pd):
            return "has compatibility groups (DRADeviceCompatibilityGroups off)"
        if not self._selectors(pd, req.device_class_name, req.class_selectors, "class"):
            return f"does not match class {req.device_class_name}"
        if not self._selectors(pd, req.claim_key, req.selectors, "claim"):
            return f"does not match the selectors of request {req.name}"
        if not self._node_ok(pd):
            return f"is not available on node {self.node.name}"
        if req.derived:
            self._derived[(req.key, pd.id)] = self._evaluate_derived(pd, req)
        return None

    def derived(self, pd: PoolDevice, req: RequestSpec) -> dict[str, DeviceAttribute]:
        """The request's derived attributes on a device it may select (name ->
        value); raises the evaluation's error as Kubernetes does."""
        if not req.derived:
            return NO_DERIVED
        got = self._derived.get((req.key, pd.id))
        if got is None:
            if self.why_not(pd, req) is not None:
                return NO_DERIVED
            got = self._derived.get((req.key, pd.id), NO_DERIVED)
        return got

    def _skipped_for_groups(self, pd: PoolDevice) -> bool:
        if self.features.compatibility_groups or not pd.device.consumes_counters or not self._knows_groups:
            return False
        members = self.state.compat_members(pd.pool) if self.state is not None else {}
        return skipped_without_gate(pd.device, members)

    def _evaluate_derived(self, pd: PoolDevice, req: RequestSpec) -> dict[str, DeviceAttribute]:
        out: dict[str, DeviceAttribute] = {}
        for i, (name, expr) in enumerate(req.derived):
            try:
                prog = compile_derived(expr)
            except CELCompileError as e:
                raise AllocationError(f"claim {req.claim_key}, request {req.name}: derived attribute #{i} "
                                      f"({name}): CEL compile error: {e}") from None
            try:
                self.evaluations += 1
                out[name] = prog.evaluate(self.view(pd))
            except CELRuntimeError as e:
                raise AllocationError(f"claim {req.claim_key}, request {req.name}: derived attribute #{i} "
                                      f"({name}) on device {pd.label}: CEL runtime error: {e}") from None
        return out

    def _node_ok(self, pd: PoolDevice) -> bool:
        if not pd.slice.spec.per_device_node_selection:
            return True
        d = pd.device
        try:
            return node_matches(self.node, d.node_name or "", d.all_nodes or False, d.node_selector)
        except NodeSelectorError as e:
            # Kubernetes returns the parse error as is here (no device or slice named)
            raise AllocationError(f"failed to parse node selector of device {pd.label}: {e}") from None

    def _selectors(self, pd: PoolDevice, owner: str, exprs: list[str], kind: str) -> bool:
        for i, expr in enumerate(exprs):
            try:
                prog = compile_selector(expr)
            except CELCompileError as e:
                raise AllocationError(f"{kind} {owner}: selector #{i}: CEL compile error: {e}") from None
            try:
                self.evaluations += 1
                ok = prog.evaluate(self.view(pd))
            except CELRuntimeError as e:
                raise AllocationError(
                    f"{kind} {owner}: selector #{i} on device {pd.label}: CEL runtime error: {e}") from None
            if not ok:
                return False
        return True
