"""Pending pods: the joint CP-SAT placement of all pending pods and the
minimal-core explanation of pods that fit nowhere."""

from __future__ import annotations

from typing import Any

from verify_build import claim, dclass, device, exact, node, pod, rslice, state

from dralloc.audit.core import verify_state
from dralloc.audit.joint import Group, place_jointly
from dralloc.features import Features

FEATURES = Features.from_gates([])


def _pending(items: list[dict[str, Any]]) -> tuple[dict[str, dict[str, Any]], list[str]]:
    rep = verify_state(state(items), FEATURES, compare=False)
    notes = [f.message for f in rep.findings if f.rule == "pending" and not f.claim]
    return {p["pod"]: p for p in rep.pending}, notes


def _competing() -> list[dict[str, Any]]:
    """Two GPUs; pod big wants both, pods one-a and one-b want one each.
    Each fits alone; together at most two pods fit: one-a and one-b."""
    return [dclass(), node(), rslice("s", [device("gpu-0"), device("gpu-1")]),
            claim("big", [exact(count=2)]), pod("big-pod", "big"),
            claim("one-a", [exact()]), pod("one-a-pod", "one-a"),
            claim("one-b", [exact()]), pod("one-b-pod", "one-b")]


def test_joint_placement_keeps_the_most_pods() -> None:
    got, notes = _pending(_competing())
    assert {k: v["verdict"] for k, v in got.items()} == {
        "default/big-pod": "fits-now", "default/one-a-pod": "fits-now", "default/one-b-pod": "fits-now"}
    assert got["default/one-a-pod"]["jointNode"] == "node-1"
    assert got["default/one-b-pod"]["jointNode"] == "node-1"
    assert got["default/big-pod"]["jointNode"] is None
    assert "not together with the other pending pods" in got["default/big-pod"]["message"]
    assert notes == ["joint placement of the 3 pending pods (CP-SAT, existing allocations kept): "
                     "2 placed together (proven optimal)"]


def test_joint_model_spreads_pods_over_nodes_and_respects_held_devices() -> None:
    items = [dclass(), node("node-1"), node("node-2"),
             rslice("s1", [device("gpu-0"), device("gpu-1")], node="node-1", pool="p1"),
             rslice("s2", [device("gpu-0"), device("gpu-1")], node="node-2", pool="p2"),
             claim("held", [exact()], results=[("req-0", "gpu-0")], node="node-2", pool="p2"),
             pod("held-pod", "held", node_name="node-2"),
             claim("two", [exact(count=2)]), claim("one", [exact()]), claim("other", [exact()])]
    objs = state(items)
    nodes = tuple(objs.nodes)
    by = {c.name: c for c in objs.claims}
    groups = [Group(k, (by[k],), nodes, weight=2 if k == "two" else 1) for k in ("two", "one", "other")]
    res = place_jointly(objs, groups, [by["held"]], FEATURES)
    # three free GPUs, four asked for: "two" (weight 2) on node-1, one single on node-2's gpu-1
    assert res.proven and res.value == 3 and res.bound == 3
    assert res.placed["two"] == "node-1" and len(res.placed) == 2
    devices = [(r.pool, r.device) for allocs in res.allocations.values() for a in allocs
               for r in (a.devices.results if a.devices and a.devices.results else [])]
    assert ("p2", "gpu-0") not in devices and len(devices) == len(set(devices)) == 3


def test_does_not_fit_names_the_conflicting_constraint() -> None:
    items = [dclass(), node(), rslice("s", [device("gpu-0", numa=0), device("gpu-1", numa=1)]),
             claim("pair", [exact(count=2)], constraints=[{"matchAttribute": "gpu.example.com/numa"}]),
             pod("pair-pod", "pair")]
    got, _ = _pending(items)
    entry = got["default/pair-pod"]
    assert entry["verdict"] == "does-not-fit"
    assert "a minimal conflicting set" in entry["message"]
    assert "matchAttribute gpu.example.com/numa" in entry["message"]
    assert "request default/pair/req-0 must be served" in entry["message"]


def test_request_impossible_on_its_own_is_said_so() -> None:
    items = [dclass(), node(), rslice("s", [device("gpu-0")]),
             claim("three", [exact(count=3)]), pod("three-pod", "three")]
    got, _ = _pending(items)
    msg = got["default/three-pod"]["message"]
    assert "request default/three/req-0 must be served, which no choice of devices allows" in msg
    assert "wants 3 device(s)" in msg


def test_a_replay_stopped_at_its_time_limit_is_said_so(monkeypatch: Any) -> None:
    from dralloc.solver import replay_run

    monkeypatch.setattr(replay_run, "DEFAULT_REPLAY_SECONDS", 1e-9)  # every search stops at its first checkpoint
    items = [dclass(), node(), rslice("s", [device(f"gpu-{i}") for i in range(10)]),
             claim("greedy", [exact(count=11)]), pod("greedy-pod", "greedy")]
    _, notes = _pending(items)
    assert any("stopped at the replay's time limit (nodes node-1)" in n for n in notes), notes
