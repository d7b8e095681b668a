"""Node selection: does a node match a slice's or device's node fields?

Semantics of Kubernetes' node-affinity helpers: terms are ORed; inside a term
every label expression and every field expression must hold; a term with
neither matches nothing. A selector that does not parse is an error (the
allocator makes it fatal)."""

from __future__ import annotations

import re

from dralloc.errors import DrallocError
from dralloc.models import Node, NodeSelector, NodeSelectorRequirement, ResourceClaim

_NAME = r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"
_KEY = re.compile(rf"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?{_NAME}$")
_VALUE = re.compile(rf"^({_NAME})?$")
_INT = re.compile(r"^[+-]?[0-9]+$")


class NodeSelectorError(DrallocError):
    """A node selector that Kubernetes cannot parse."""


def _check_label_req(r: NodeSelectorRequirement) -> None:
    values = r.values or []
    if not _KEY.match(r.key) or (r.key.count("/") == 1 and len(r.key.split("/")[0]) > 253):
        raise NodeSelectorError(f"{r.key!r} is not a valid label key")
    op = r.operator
    if op in ("In", "NotIn"):
        if not values:
            raise NodeSelectorError(f"for '{op}' operator, values set can't be empty")
    elif op in ("Exists", "DoesNotExist"):
        if values:
            raise NodeSelectorError(f"values set must be empty for {op}")
    elif op in ("Gt", "Lt"):
        if len(values) != 1 or not _INT.match(values[0]):
            raise NodeSelectorError(f"for '{op}' operator, exactly one integer value is required")
    else:
        raise NodeSelectorError(f"{op!r} is not a valid label selector operator")
    for v in values if op in ("In", "NotIn") else []:
        if not _VALUE.match(v):
            raise NodeSelectorError(f"invalid label value: {v!r}")


def _check_field_req(r: NodeSelectorRequirement) -> None:
    if r.operator not in ("In", "NotIn"):
        raise NodeSelectorError(f"{r.operator!r} is not a valid field selector operator")
    if len(r.values or []) != 1:
        raise NodeSelectorError(f"unexpected number of value ({len(r.values or [])}) for node field selector operator {r.operator!r}")


def check_selector(sel: NodeSelector) -> None:
    """Raise :class:`NodeSelectorError` when ``sel`` does not parse."""
    for term in sel.node_selector_terms:
        for r in term.match_expressions or []:
            _check_label_req(r)
        for r in term.match_fields or []:
            _check_field_req(r)


def _label_req_matches(r: NodeSelectorRequirement, labels: dict[str, str]) -> bool:
    has = r.key in labels
    val = labels.get(r.key)
    values = r.values or []
    if r.operator == "In":
        return has and val in values
    if r.operator == "NotIn":
        return not has or val not in values
    if r.operator == "Exists":
        return has
    if r.operator == "DoesNotExist":
        return not has
    if not has or val is None or not _INT.match(val):
        return False
    if r.operator == "Gt":
        return int(val) > int(values[0])
    return int(val) < int(values[0])


def selector_matches(sel: NodeSelector, node: Node) -> bool:
    """Whether ``node`` satisfies ``sel`` (parse errors raise)."""
    check_selector(sel)
    labels = node.labels
    fields = {"metadata.name": node.name}
    for term in sel.node_selector_terms:
        exprs, flds = term.match_expressions or [], term.match_fields or []
        if not exprs and not flds:
            continue
        if not all(_label_req_matches(r, labels) for r in exprs):
            continue
        if node.name and flds:
            ok = all((fields.get(r.key, "") in (r.values or [])) == (r.operator == "In") for r in flds)
            if not ok:
                continue
        return True
    return False


def node_matches(node: Node, node_name: str | None, all_nodes: bool | None,
                 selector: NodeSelector | None) -> bool:
    """Kubernetes' ``NodeMatches``: name, then allNodes, then selector; else no."""
    if node_name:
        return node.name == node_name
    if all_nodes:
        return True
    if selector is not None:
        return selector_matches(selector, node)
    return False


def allocation_admits(claim: ResourceClaim, node: Node) -> bool:
    """Whether a pod on ``node`` may use the allocated ``claim``: its
    allocation's node selector (none: every node) matches the node. Raises
    :class:`NodeSelectorError` when the selector is malformed."""
    alloc = claim.status.allocation if claim.status else None
    if alloc is None or alloc.node_selector is None:
        return True
    return selector_matches(alloc.node_selector, node)
