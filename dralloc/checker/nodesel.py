"""The nodeSelector Kubernetes writes into an allocation (spec OUT-6),
recomputed independently, and a normal form to compare selectors by."""

from __future__ import annotations

from collections.abc import Sequence

from dralloc.models import Device, NodeSelector, NodeSelectorRequirement, ResourceSlice

Normal = tuple[tuple[tuple[tuple[str, str, tuple[str, ...]], ...], tuple[tuple[str, str, tuple[str, ...]], ...]], ...]


class SelectorTermsError(Exception):
    """A device's node selector has more than one term (Kubernetes refuses)."""


def _req(r: NodeSelectorRequirement) -> tuple[str, str, tuple[str, ...]]:
    return (r.key, r.operator, tuple(sorted(set(r.values or []))))


def normal(sel: NodeSelector | None) -> Normal:
    """Order-insensitive form: a set of terms, each a set of requirements."""
    if sel is None:
        return ()
    terms = set()
    for t in sel.node_selector_terms:
        terms.add((tuple(sorted({_req(r) for r in t.match_expressions or []})),
                   tuple(sorted({_req(r) for r in t.match_fields or []}))))
    return tuple(sorted(terms))


def expected_selector(devices: Sequence[tuple[ResourceSlice, Device]], node_name: str,
                      binds_to_node: bool = True) -> Normal:
    """What the claim's nodeSelector must be: pinned to the node as soon as one
    device is node-local (slice or per-device nodeName, or bindsToNode where
    the allocator knows the field: ``binds_to_node``, not the stable one);
    otherwise the union of the single-term selectors of the devices; empty
    when every device is available on all nodes."""
    fields: set[tuple[str, str, tuple[str, ...]]] = set()
    exprs: set[tuple[str, str, tuple[str, ...]]] = set()
    for sl, dev in devices:
        src_name = dev.node_name if sl.spec.per_device_node_selection else sl.spec.node_name
        src_sel = dev.node_selector if sl.spec.per_device_node_selection else sl.spec.node_selector
        if src_name or (binds_to_node and dev.binds_to_node):
            return (((), (("metadata.name", "In", (node_name,)),)),)
        if src_sel is None or not src_sel.node_selector_terms:
            continue
        if len(src_sel.node_selector_terms) > 1:
            raise SelectorTermsError(f"the node selector of {sl.spec.driver}/{sl.spec.pool.name}/{dev.name} "
                                     f"has {len(src_sel.node_selector_terms)} terms")
        term = src_sel.node_selector_terms[0]
        fields |= {_req(r) for r in term.match_fields or []}
        exprs |= {_req(r) for r in term.match_expressions or []}
    if not fields and not exprs:
        return ()
    return ((tuple(sorted(exprs)), tuple(sorted(fields))),)


def describe(n: Normal) -> str:
    if not n:
        return "none (any node)"
    parts = []
    for exprs, fields in n:
        reqs = [f"{k} {op} {list(v)}" if v else f"{k} {op}" for k, op, v in (*exprs, *fields)]
        parts.append(" and ".join(reqs) or "(empty term)")
    return " or ".join(parts)
