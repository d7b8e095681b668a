"""DeviceTaintRules reach every engine (issue: rules were applied only by
``plan make-room``/``plan drain``): Kubernetes' slice tracker writes a
rule's taint into the devices it selects before the allocator sees the
slices, when DRADeviceTaintRules is on (1.35 alpha, 1.36 beta off by
default, 1.37 GA on; before 1.35 DRADeviceTaints decides). A NoSchedule or
NoExecute taint the request does not tolerate keeps the device from new
claims; effect None is a dry run and blocks nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from dralloc.audit.core import verify_state
from dralloc.cli.main import main
from dralloc.cluster import Cluster
from dralloc.features import Features
from dralloc.io import load
from dralloc.models import RuleTaint
from dralloc.solver.api import allocate
from dralloc.validation.admission import admit
from dralloc.validation.taintrules import apply_rules

NODE = {"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "node-1", "labels": {"kubernetes.io/hostname": "node-1"}}}
CLASS = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
         "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}}
SLICE = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "node-1-gpus"},
         "spec": {"driver": "gpu.example.com", "nodeName": "node-1",
                  "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
                  "devices": [{"name": "gpu-0"}, {"name": "gpu-1"}]}}


def claim(name: str = "c", tolerate: str | None = None, device: str | None = None) -> dict:
    req: dict = {"name": "gpu", "exactly": {"deviceClassName": "gpu"}}
    if tolerate:
        req["exactly"]["tolerations"] = [{"key": "health", "operator": "Exists", "effect": tolerate}]
    doc: dict = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                 "metadata": {"name": name, "namespace": "default"},
                 "spec": {"devices": {"requests": [req]}}}
    if device:
        doc["status"] = {"allocation": {"devices": {"results": [
            {"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": device}]},
            "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}]}},
            "reservedFor": [{"resource": "pods", "name": f"{name}-pod", "uid": f"uid-{name}"}]}
    return doc


def rule(effect: str = "NoSchedule", device: str = "gpu-0", name: str = "gpu-0-failing",
         api: str = "resource.k8s.io/v1") -> dict:
    return {"apiVersion": api, "kind": "DeviceTaintRule", "metadata": {"name": name},
            "spec": {"deviceSelector": {"driver": "gpu.example.com", "pool": "node-1", "device": device},
                     "taint": {"key": "health", "value": "failing", "effect": effect}}}


def write(tmp_path: Path, *docs: dict, name: str = "cluster.yaml") -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(list(docs)), encoding="utf-8")
    return str(path)


def devices(out) -> list[str]:
    assert out.ok, out
    return [r.device for a in out.allocations for r in a.devices.results]


def lib_allocate(tmp_path: Path, *extra: dict, version: str | None = None, features=None):
    objs = load([write(tmp_path, NODE, CLASS, SLICE, claim(), *extra)], kubernetes_version=version)
    return allocate(objs, "node-1", ["default/c"], kubernetes_version=version, features=features)


# ------------------------------------------------------------ allocate (library)

@pytest.mark.parametrize("mode", ["replay", "first-fit", "optimal"])
def test_allocate_skips_a_device_a_rule_taints(tmp_path, mode):
    objs = load([write(tmp_path, NODE, CLASS, SLICE, claim(), rule())])
    assert devices(allocate(objs, "node-1", ["default/c"], mode=mode)) == ["gpu-1"]


def test_without_the_rule_the_first_device_is_taken(tmp_path):
    assert devices(lib_allocate(tmp_path)) == ["gpu-0"]


@pytest.mark.parametrize("effect", ["NoSchedule", "NoExecute"])
def test_a_toleration_of_the_rule_lets_the_device_be_taken(tmp_path, effect):
    objs = load([write(tmp_path, NODE, CLASS, SLICE, claim(tolerate=effect), rule(effect))])
    assert devices(allocate(objs, "node-1", ["default/c"])) == ["gpu-0"]


def test_effect_none_is_a_dry_run(tmp_path):
    assert devices(lib_allocate(tmp_path, rule("None"))) == ["gpu-0"]


def test_no_device_left_when_every_device_is_tainted(tmp_path):
    out = lib_allocate(tmp_path, rule(), rule("NoExecute", "gpu-1", "gpu-1-failing"))
    assert not out.ok and out.allocations is None


@pytest.mark.parametrize("version", ["1.34", "1.35", "1.36"])
def test_release_without_rules_on_ignores_them_with_a_note(tmp_path, version):
    """1.34/1.35: DRADeviceTaints off by default; 1.36: DRADeviceTaints on
    but DRADeviceTaintRules (beta) off: the scheduler never sees the taint."""
    api = "resource.k8s.io/v1beta2" if version == "1.36" else "resource.k8s.io/v1alpha3"
    out = lib_allocate(tmp_path, rule(api=api), version=version)
    assert devices(out) == ["gpu-0"]
    assert any("DeviceTaintRule ignored" in n for n in out.notes), out.notes


def test_the_rules_gate_turned_on_in_1_36(tmp_path):
    feats = Features.with_overrides({"DRADeviceTaintRules": True}, "1.36")
    out = lib_allocate(tmp_path, rule(api="resource.k8s.io/v1beta2"), version="1.36", features=feats)
    assert devices(out) == ["gpu-1"] and not any("DeviceTaintRule" in n for n in out.notes)


def test_before_1_35_rules_follow_device_taints(tmp_path):
    feats = Features.with_overrides({"DRADeviceTaints": True}, "1.34")
    out = lib_allocate(tmp_path, rule(api="resource.k8s.io/v1alpha3"), version="1.34", features=feats)
    assert devices(out) == ["gpu-1"]


@pytest.mark.parametrize("mode", ["replay", "first-fit"])
def test_rules_gate_off_in_1_37(tmp_path, mode):
    feats = Features.with_overrides({"DRADeviceTaintRules": False}, "1.37")
    objs = load([write(tmp_path, NODE, CLASS, SLICE, claim(), rule())])
    assert devices(allocate(objs, "node-1", ["default/c"], features=feats, mode=mode)) == ["gpu-0"]


def test_slice_taints_still_count_when_the_rules_gate_is_off(tmp_path):
    tainted = json.loads(json.dumps(SLICE))
    tainted["spec"]["devices"][0]["taints"] = [{"key": "health", "effect": "NoSchedule"}]
    objs = load([write(tmp_path, NODE, CLASS, tainted, claim())])
    feats = Features.with_overrides({"DRADeviceTaintRules": False}, "1.37")
    assert devices(allocate(objs, "node-1", ["default/c"], features=feats)) == ["gpu-1"]


def test_without_admission_the_rules_apply_too(tmp_path):
    objs = load([write(tmp_path, NODE, CLASS, SLICE, claim(), rule())])
    assert devices(allocate(objs, "node-1", ["default/c"], admission=False)) == ["gpu-1"]


# ------------------------------------------------------------ applying once

def test_admission_applies_once_and_a_written_slice_leaves_the_rule_out(tmp_path):
    objs = admit(load([write(tmp_path, NODE, CLASS, SLICE, rule())]))
    taints = objs.slices[0].spec.devices[0].taints
    assert taints is not None and len(taints) == 1 and isinstance(taints[0], RuleTaint)
    assert taints[0].rule == "gpu-0-failing"
    again = apply_rules(apply_rules(objs))
    assert again.slices[0].spec.devices[0].taints == taints     # never doubled
    assert "taints" not in objs.slices[0].dump()["spec"]["devices"][0]   # the rule is its own object


def test_make_room_and_drain_extra_rules_add_to_the_admitted_ones(tmp_path):
    objs = admit(load([write(tmp_path, NODE, CLASS, SLICE, rule())]))
    extra = load([write(tmp_path, rule("NoExecute", "gpu-1", "gpu-1-failing"), name="r.yaml")]).taint_rules
    both = apply_rules(objs, extra)
    assert [len(d.taints or []) for d in both.slices[0].spec.devices] == [1, 1]
    assert [len(d.taints or []) for d in objs.slices[0].spec.devices] == [1, 0]   # the input is left as it was


def test_a_rule_selecting_by_class_is_refused_naming_the_field(tmp_path):
    bad = rule(api="resource.k8s.io/v1alpha3")
    bad["spec"]["deviceSelector"] = {"deviceClassName": "gpu"}
    assert main(["allocate", write(tmp_path, NODE, CLASS, SLICE, claim(), bad), "--kubernetes-version",
                 "1.34"]) == 2


# ------------------------------------------------------------ the Cluster

def test_cluster_honours_rules_in_its_input(tmp_path):
    c = Cluster(load([write(tmp_path, NODE, CLASS, SLICE, claim(), rule())]))
    assert devices(c.allocate("node-1", ["default/c"])) == ["gpu-1"]


def test_cluster_rules_added_and_removed_later(tmp_path):
    c = Cluster(load([write(tmp_path, NODE, CLASS, SLICE, claim())]))
    assert devices(c.allocate("node-1", ["default/c"])) == ["gpu-0"]
    c.add(load([write(tmp_path, rule(), name="r.yaml")]))
    assert devices(c.allocate("node-1", ["default/c"])) == ["gpu-1"]
    c.add(load([write(tmp_path, rule("None"), name="r2.yaml")]))         # replaced: a dry run now
    assert devices(c.allocate("node-1", ["default/c"])) == ["gpu-0"]
    c.add(load([write(tmp_path, rule(), name="r3.yaml")]))
    assert c.remove_rule("gpu-0-failing") is not None
    assert devices(c.allocate("node-1", ["default/c"])) == ["gpu-0"]
    assert [len(d.taints or []) for s in c.objects().slices for d in s.spec.devices] == [0, 0]


def test_cluster_slice_added_after_the_rule_is_tainted(tmp_path):
    c = Cluster(load([write(tmp_path, NODE, CLASS, claim(), rule())]))
    c.add_slices(load([write(tmp_path, SLICE, name="s.yaml")]).slices)
    assert devices(c.allocate("node-1", ["default/c"])) == ["gpu-1"]


def test_cluster_of_1_36_ignores_rules(tmp_path):
    c = Cluster(load([write(tmp_path, NODE, CLASS, SLICE, claim(), rule(api="resource.k8s.io/v1beta2"))],
                     kubernetes_version="1.36"), kubernetes_version="1.36")
    assert devices(c.allocate("node-1", ["default/c"])) == ["gpu-0"]


# ------------------------------------------------------------ the commands

def test_cli_allocate_and_explain(tmp_path, capsys):
    path = write(tmp_path, NODE, CLASS, SLICE, claim(), rule())
    assert main(["allocate", path, "-o", "json"]) == 0
    assert '"gpu-1"' in capsys.readouterr().out
    assert main(["explain", path]) == 0
    out = capsys.readouterr().out
    assert "gpu-0" in out and "DeviceTaintRule gpu-0-failing" in out


def test_cli_warns_when_the_release_leaves_rules_out(tmp_path, capsys):
    path = write(tmp_path, NODE, CLASS, SLICE, claim(), rule(api="resource.k8s.io/v1alpha3"))
    assert main(["allocate", path, "--kubernetes-version", "1.35", "-o", "json"]) == 0
    cap = capsys.readouterr()
    assert '"gpu-0"' in cap.out
    assert "1 DeviceTaintRule ignored: feature gate DRADeviceTaints is off (Kubernetes 1.35)" in cap.err


def test_plan_fit_counts_only_untainted_devices(tmp_path, capsys):
    template = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                "metadata": {"name": "one-gpu", "namespace": "default"},
                "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}}}
    pods = [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "namespace": "default"},
             "spec": {"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}],
                      "containers": [{"name": "m", "image": "x", "resources": {"claims": [{"name": "gpu"}]}}]}}
            for i in range(2)]
    cluster = write(tmp_path, NODE, CLASS, SLICE)
    demand = write(tmp_path, template, *pods, name="demand.yaml")
    rules = write(tmp_path, rule(), name="rule.yaml")
    for files, fits in (([cluster, demand], 2), ([cluster, rules, demand], 1)):
        assert main(["plan", "fit", *files, "-o", "json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert (out["firstFit"]["pods"], out["optimal"]["pods"]) == (fits, fits)


# ------------------------------------------------------------ verify

@pytest.mark.parametrize("effect", ["NoSchedule", "NoExecute"])
def test_verify_a_claim_allocated_before_the_rule(tmp_path, effect):
    """The claim keeps its device (NoSchedule), or its pods are evicted
    (NoExecute): a warning either way, never a rule violation."""
    objs = load([write(tmp_path, NODE, CLASS, SLICE, claim(device="gpu-0"), rule(effect))])
    report = verify_state(objs, compare=False, pending=False)
    taint = [f for f in report.findings if f.rule == "taint"]
    assert [f.level for f in taint] == ["warning"]
    assert "DeviceTaintRule gpu-0-failing" in taint[0].message
    assert ("evicted" in taint[0].message) == (effect == "NoExecute")


def test_verify_replay_names_the_rule_for_a_claim_allocated_before_it(tmp_path):
    """Replayed in allocation order, the allocator (with the rule) takes
    gpu-1; the cluster holds gpu-0 from before the rule: the difference is
    put down to the rule, not left unexplained."""
    held = claim(device="gpu-0")
    held["status"]["allocation"]["allocationTimestamp"] = "2026-11-01T10:00:00Z"
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "c-pod", "namespace": "default", "uid": "uid-c"},
           "spec": {"nodeName": "node-1", "resourceClaims": [{"name": "gpu", "resourceClaimName": "c"}],
                    "containers": [{"name": "m", "image": "x", "resources": {"claims": [{"name": "gpu"}]}}]}}
    objs = load([write(tmp_path, NODE, CLASS, SLICE, held, pod, rule())])
    report = verify_state(objs, pending=False)
    assert report.replayed_pods == 1
    diff = [f for f in report.findings if f.rule == "kubernetes-answer"]
    assert len(diff) == 1 and "DeviceTaintRule" in diff[0].detail and "gpu-1" in diff[0].message
    assert not [f for f in report.findings if f.level == "error"]


def test_compare_versions_puts_the_move_down_to_the_rules_gate(tmp_path):
    """1.36 has DRADeviceTaintRules off by default, 1.37 on: a pending pod
    takes the tainted gpu-0 in 1.36 and gpu-1 in 1.37, because of that gate."""
    from dralloc.upgrade.compare import compare_versions

    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"resourceClaims": [{"name": "gpu", "resourceClaimName": "c"}],
                    "containers": [{"name": "m", "image": "x", "resources": {"claims": [{"name": "gpu"}]}}]}}
    objs = load([write(tmp_path, NODE, CLASS, SLICE, claim(), pod, rule(api="resource.k8s.io/v1beta2"))])
    cmp = compare_versions(objs, "1.36", "1.37")
    assert [g.words() for g in cmp.gates] == ["DRADeviceTaintRules off -> on"]
    [change] = cmp.changes
    assert change.name == "default/p" and "gpu-0" in change.before.text and "gpu-1" in change.after.text
    assert {c.name for c in change.causes if c.explains} == {"DRADeviceTaintRules"}
