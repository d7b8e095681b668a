"""plan make-room and plan drain with pods asking ``nvidia.com/gpu`` the
device-plugin way (KEP-5004): a running pod's extended-resource claim goes
with it; pending work that fits now on a node whose device plugin serves
its GPUs needs no disruption (the device plugin takes precedence there);
an answer over DRA devices where device plugins advertise the resource is
not claimed to be proven over the cluster."""

from __future__ import annotations

from pathlib import Path

import pytest

from dralloc.cli.main import main
from dralloc.errors import InputError
from dralloc.features import Features
from dralloc.io import ObjectSet, load
from dralloc.planner.makeroom.answer import answer_make_room
from dralloc.planner.makeroom.drain import drain
from dralloc.planner.makeroom.plugins import place_on_plugins
from dralloc.planner.makeroom.report import room_table
from dralloc.planner.makeroom.room import Options
from dralloc.planner.makeroom.work import select_work
from dralloc.validation.admission import admit
from tests.extended.objects import (
    GPU,
    container,
    device_class,
    gpu_pod,
    gpus,
    node,
    pod,
    running_gpu_pod,
    write,
)

FEATS = Features.default("1.37")
DRA = [device_class("gpu.nvidia.com", GPU), node("n1"), gpus("n1", 2)]
LOW = running_gpu_pod("low", "n1", ["gpu-0"])
BIG = gpu_pod("big", 2, priority=100)


def objs(tmp_path: Path, docs: list[dict]) -> ObjectSet:
    return admit(load([write(tmp_path, docs)]))


def room(o: ObjectSet, key: str = "default/big", feats: Features = FEATS) -> dict:
    return answer_make_room(o, feats, select_work(o, pod=key, features=feats), Options(time_limit=20)).data


def test_evicting_a_pod_frees_its_extended_resource_claim(tmp_path: Path) -> None:
    d = room(objs(tmp_path, [*DRA, *LOW, BIG]))
    assert d["status"] == "plan" and d["proven"] and d["evictions"] == ["default/low"]
    assert d["placed"]["default/big#0"] == {"node": "n1", "devices": ["n1/gpu-0", "n1/gpu-1"]}
    assert d["check"] == "passed" and "scope" not in d


def test_work_that_fits_on_a_device_plugin_node_needs_no_disruption(tmp_path: Path) -> None:
    d = room(objs(tmp_path, [*DRA, *LOW, node("dp", {GPU: "2"}), BIG]))
    assert d["status"] == "plan" and d["disruptions"] == 0 and d["evictions"] == []
    assert d["placed"] == {"default/big#0": {"node": "dp", "devices": [], "devicePlugin": {GPU: 2}}}
    assert "device plugins of dp" in d["notes"][0]
    text = "\n".join(room_table(d))
    assert "place     default/big#0 on dp: nvidia.com/gpu x2 (device plugin)" in text
    assert "CHECK FAILED" not in text


def test_the_device_plugin_counts_what_its_pods_hold_and_replicas_take(tmp_path: Path) -> None:
    held = pod("dp-user", [container("c", limits={GPU: 1})], node="dp", status={"phase": "Running"})
    o = objs(tmp_path, [*DRA, *LOW, node("dp", {GPU: "3"}), held, gpu_pod("big", 1, priority=100)])
    work = select_work(o, pod="default/big", features=FEATS)
    assert place_on_plugins(o, FEATS, work) == {"default/big#0": ("dp", {GPU: 1})}
    two = objs(tmp_path, [*DRA, *LOW, node("dp", {GPU: "3"}), held, gpu_pod("big", 2, priority=100)])
    assert place_on_plugins(two, FEATS, select_work(two, pod="default/big", features=FEATS)) is not None
    three = objs(tmp_path, [*DRA, *LOW, node("dp", {GPU: "3"}), held, gpu_pod("big", 3, priority=100)])
    assert place_on_plugins(three, FEATS, select_work(three, pod="default/big", features=FEATS)) is None


def test_a_full_device_plugin_node_leaves_an_answer_over_dra_devices_only(tmp_path: Path) -> None:
    held = pod("dp-user", [container("c", limits={GPU: 2})], node="dp", status={"phase": "Running"})
    d = room(objs(tmp_path, [*DRA, *LOW, node("dp", {GPU: "2"}), held, BIG]))
    assert d["status"] == "plan" and d["evictions"] == ["default/low"]
    assert d["proven"] is False and d["scope"] == "DRA devices only" and d["provenInScope"] is True
    assert any("not proven over the whole cluster" in n for n in d["notes"])
    assert "the fewest over DRA devices only: not proven over the cluster" in room_table(d)[0]


def test_no_plan_over_dra_devices_is_not_decided_next_to_device_plugins(tmp_path: Path) -> None:
    high = running_gpu_pod("high", "n1", ["gpu-0", "gpu-1"], priority=1000)
    held = pod("dp-user", [container("c", limits={GPU: 2})], node="dp", status={"phase": "Running"})
    alone = room(objs(tmp_path, [*DRA, *high, BIG]))
    assert alone["status"] == "no plan" and alone["proven"]
    d = room(objs(tmp_path, [*DRA, *high, node("dp", {GPU: "2"}), held, BIG]))
    assert d["status"] == "not decided" and not d["proven"] and d["provenInScope"]


def test_a_pod_that_also_has_a_claim_is_not_placed_on_the_device_plugin_alone(tmp_path: Path) -> None:
    tmpl = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": "one", "namespace": "default"},
            "spec": {"spec": {"devices": {"requests": [{"name": "g", "exactly": {
                "deviceClassName": "gpu.nvidia.com"}}]}}}}
    mixed = gpu_pod("big", 1, priority=100, claims=[{"name": "c", "resourceClaimTemplateName": "one"}])
    o = objs(tmp_path, [*DRA, *LOW, node("dp", {GPU: "2"}), tmpl, mixed])
    assert place_on_plugins(o, FEATS, select_work(o, pod="default/big", features=FEATS)) is None
    d = room(o)
    assert d["status"] == "plan" and d["placed"]["default/big#0"]["node"] == "n1" and d["scope"]


def test_with_the_gate_off_the_pod_is_not_drAs_to_make_room_for(tmp_path: Path) -> None:
    o = objs(tmp_path, [*DRA, *LOW, BIG])
    with pytest.raises(InputError, match="extended resources a DeviceClass serves"):
        select_work(o, pod="default/big", features=Features.default("1.35"))


def test_a_drained_pod_takes_its_claim_along_to_another_dra_node(tmp_path: Path) -> None:
    d = drain(objs(tmp_path, [*DRA, *LOW, node("n2"), gpus("n2", 1)]), FEATS, nodes=["n1"]).data
    assert [p["pod"] for p in d["displaced"]] == ["default/low"]
    assert d["fitElsewhere"]["optimal"]["pods"] == 1 and "makeRoom" not in d


def test_a_drained_pod_goes_to_a_device_plugin_node_without_disruption(tmp_path: Path) -> None:
    d = drain(objs(tmp_path, [*DRA, *LOW, node("dp", {GPU: "1"})]), FEATS, nodes=["n1"]).data
    assert d["fitElsewhere"]["optimal"]["pods"] == 0            # DRA devices only
    assert d["makeRoom"]["placed"] == {"default/low#0": {"node": "dp", "devices": [], "devicePlugin": {GPU: 1}}}
    assert any("the fit elsewhere counts DRA devices only" in n for n in d["notes"])


def test_the_cli_answers_make_room_next_to_a_device_plugin(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = write(tmp_path, [*DRA, *LOW, node("dp", {GPU: "2"}), BIG])
    assert main(["plan", "make-room", path, "--for", "default/big"]) == 0
    assert "0 evictions" in capsys.readouterr().out
    assert main(["plan", "make-room", path, "--for", "default/big", "--kubernetes-version", "1.35"]) == 2
    assert "no pending Pod default/big" in capsys.readouterr().err


def test_work_that_fits_now_on_dra_devices_stays_there(tmp_path: Path) -> None:
    d = room(objs(tmp_path, [*DRA, *LOW, node("dp", {GPU: "2"}), gpu_pod("big", 1, priority=100)]))
    assert d["status"] == "plan" and d["disruptions"] == 0 and d["check"] == "passed"
    assert d["placed"] == {"default/big#0": {"node": "n1", "devices": ["n1/gpu-1"]}} and "scope" not in d


def test_a_filled_cluster_runs_pods_on_the_claims_the_scheduler_makes(tmp_path: Path) -> None:
    from dralloc.audit import verify_state
    from dralloc.extended import is_extended_claim
    from dralloc.planner.makeroom.fill import fill
    from dralloc.planner.makeroom.running import running_state

    o = objs(tmp_path, [*DRA, node("n2"), gpus("n2", 2), gpu_pod("a", 2), gpu_pod("b", 1)])
    filled = fill(o, FEATS)
    made = sorted(c.name for c in filled.claims if is_extended_claim(c))
    assert made == ["a-extended-resources", "b-extended-resources"]
    pods = {p.name: p for p in filled.pods}
    st = pods["b"].status.extended_resource_claim_status if pods["b"].status else None
    assert st is not None and st.resource_claim_name == "b-extended-resources"
    assert [(m.container_name, m.request_name) for m in st.request_mappings or []] == [("main", "container-0-request-0")]
    assert not pods["b"].spec.resource_claims
    report = verify_state(filled, FEATS)
    assert not [f for f in report.findings if f.rule == "extended-resources" and f.level in ("error", "warning")]
    run = running_state(filled)
    assert run.pods["default/a"].claims == ["default/a-extended-resources"]


def test_move_mode_moves_a_pod_with_its_extended_resource_claim(tmp_path: Path) -> None:
    o = objs(tmp_path, [*DRA, *LOW, node("n2"), gpus("n2", 1), BIG])
    opts = Options(mode="move", time_limit=20)
    d = answer_make_room(o, FEATS, select_work(o, pod="default/big", features=FEATS), opts).data
    assert d["status"] == "plan" and d["proven"] and d["moves"] == {"default/low": "n2"}
    # the work asks two GPUs by a claim; the pod it would move could go to a
    # device-plugin node, which the model does not hold: move mode says so
    tmpl = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": "two", "namespace": "default"},
            "spec": {"spec": {"devices": {"requests": [{"name": "gpus", "exactly": {
                "deviceClassName": "gpu.nvidia.com", "allocationMode": "ExactCount", "count": 2}}]}}}}
    by_claim = pod("big", [container("c")], priority=100, claims=[{"name": "g", "resourceClaimTemplateName": "two"}])
    o2 = objs(tmp_path, [*DRA, *LOW, node("dp", {GPU: "1"}), tmpl, by_claim])
    evict = answer_make_room(o2, FEATS, select_work(o2, pod="default/big", features=FEATS), Options(time_limit=20))
    assert evict.data["evictions"] == ["default/low"] and evict.data["proven"] and "scope" not in evict.data
    move = answer_make_room(o2, FEATS, select_work(o2, pod="default/big", features=FEATS), opts).data
    assert move["status"] == "not decided" and move["scope"] == "DRA devices only"
    assert any("the pods it may move" in n for n in move["notes"])
