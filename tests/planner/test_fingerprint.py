"""Nodes are grouped only when the allocator would search them alike: a pool's
slices are walked in name order (incubating), so two nodes whose slices hold
the same devices in input order but sort differently by name are different."""

from __future__ import annotations

from dralloc.inventory.fingerprint import node_fingerprint
from dralloc.models import Node, ObjectMeta, ResourceSlice


def _slice(name: str, node: str, devices: list[str]) -> ResourceSlice:
    return ResourceSlice.model_validate({
        "metadata": {"name": name},
        "spec": {"driver": "gpu.example.com", "pool": {"name": node, "generation": 1, "resourceSliceCount": 2},
                 "nodeName": node, "devices": [{"name": d} for d in devices]},
    })


def _fp(node: str, names: tuple[str, str]) -> object:
    slices = [_slice(names[0], node, ["gpu-0"]), _slice(names[1], node, ["gpu-1"])]
    return node_fingerprint(Node(metadata=ObjectMeta(name=node)), slices, set(), set())


def test_same_devices_same_name_order_group_together() -> None:
    assert _fp("a", ("a-x1", "a-x2")) == _fp("b", ("b-q7", "b-r2"))


def test_slices_sorting_the_other_way_by_name_do_not_group() -> None:
    # node a walks gpu-0 first, node b walks gpu-1 first (its second slice sorts first)
    assert _fp("a", ("a-x1", "a-x2")) != _fp("b", ("b-r2", "b-q7"))
