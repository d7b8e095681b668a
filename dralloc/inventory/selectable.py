"""Is a device selectable for a request? (spec DC-3..DC-6, CEL-9, CEL-10)

Binding conditions, then the class selectors in order, then the request's own
selectors, then per-device node selection. Verdicts are cached per (device,
request) for one allocation call; CEL programs are compiled lazily (an
expression is only compiled when some device reaches it, as Kubernetes does)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dralloc.cel import CELCompileError, CELRuntimeError, DeviceView, compile_selector
from dralloc.errors import AllocationError
from dralloc.features import Features, Variant
from dralloc.inventory.nodesel import NodeSelectorError, node_matches
from dralloc.inventory.pools import DeviceID, PoolDevice
from dralloc.models import Node

if TYPE_CHECKING:
    from dralloc.inventory.spec import RequestSpec


_UNKNOWN = object()


class Selectability:
    """DC-3 ``isSelectable`` with its per-call cache."""

    def __init__(self, node: Node, features: Features, variant: Variant) -> None:
        self.node = node
        self.features = features
        self.variant = variant
        self._by_request: dict[tuple[int, int, int], dict[DeviceID, str | None]] = {}  # request -> device -> why not
        self._shape: dict[tuple[int, int, int], tuple[object, ...]] = {}   # request -> what its verdicts depend on
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
                                    tuple(req.selectors), self.features.binding_conditions, self.variant)
        if pd.id in verdicts:
            return verdicts[pd.id]
        key = self._shape[req.key]
        why = pd.memo.get(key, _UNKNOWN)   # kept on the device for pools kept across calls
        if why is _UNKNOWN:
            why = pd.memo[key] = self.reason(pd, req)   # (an error is raised, not kept: it names the claim)
        verdicts[pd.id] = why
        return why  # type: ignore[no-any-return]

    def reason(self, pd: PoolDevice, req: RequestSpec) -> str | None:
        """Why the device is not selectable (None when it is)."""
        if not self.features.binding_conditions and pd.device.binding_conditions:
            return "has binding conditions (DRADeviceBindingConditions off)"
        if not self._selectors(pd, req.device_class_name, req.class_selectors, "class"):
            return f"does not match class {req.device_class_name}"
        if not self._selectors(pd, req.claim_key, req.selectors, "claim"):
            return f"does not match the selectors of request {req.name}"
        if not self._node_ok(pd):
            return f"is not available on node {self.node.name}"
        return None

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
