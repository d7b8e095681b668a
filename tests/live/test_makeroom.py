"""plan make-room and plan drain on a live cluster: the kinds they read
beyond the allocator's (PodDisruptionBudgets in policy/v1, PriorityClasses,
DeviceTaintRules) come from the server like the others, in the scope -n
gives them, and the answers are the ones on a dump of the same objects."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dralloc.io import load
from dralloc.io.live import LiveSource
from tests.live.apiserver import ROOT, FakeAPIServer, objects_of, served
from tests.live.test_commands import run

MAKEROOM = ROOT / "examples/makeroom"
HIGH = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 100}


def _cluster(budget: bool) -> list[dict[str, Any]]:
    """examples/makeroom with b-big's priority (100) from the PriorityClass
    ``high`` instead of spec.priority, the pending pod, and the budget
    keeping 2 of the 3 batch pods when ``budget``."""
    objs = objects_of(MAKEROOM / "cluster.yaml", MAKEROOM / "pending.yaml",
                      *([MAKEROOM / "budget.yaml"] if budget else []))
    big = next(o for o in objs if o["kind"] == "Pod" and o["metadata"]["name"] == "b-big")
    assert big["spec"].pop("priority") == 100
    big["spec"]["priorityClassName"] = "high"
    return [*objs, HIGH]


@pytest.mark.parametrize("budget", [False, True], ids=["no budget", "a budget"])
def test_make_room_reads_budgets_and_priority_classes(budget: bool, apiserver: FakeAPIServer, kubeconfig: Path,
                                                      tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Without the budget the three batch pods go (b-big's class puts it
    above the pending pod: a class not read would be an error); with the
    budget read from the server there is no plan and the budget is named."""
    apiserver.add(_cluster(budget))
    argv = ["plan", "make-room", "--for", "default/big", "-o", "json"]
    code, out, err = run([*argv, "--context", "test"], capsys)
    assert "error" not in err, err
    answer = json.loads(out)
    if budget:
        assert code == 1 and answer["status"] == "no plan" and "default/batch" in answer["blocked"][0]
    else:
        assert code == 0 and answer["evictions"] == ["default/a1", "default/a2", "default/a3"]
    dump = apiserver.dump(tmp_path / "dump.yaml")
    on_dump = run([*argv[:2], str(dump), *argv[2:]], capsys)
    assert on_dump[:2] == (code, out), on_dump[2]


def test_drain_with_a_taint_rule_file_and_the_live_cluster(apiserver: FakeAPIServer, kubeconfig: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """The rule to apply comes from a file, the cluster from the server: the
    answer on the two files (b-big displaced, fitting on node-a)."""
    apiserver.add(objects_of(MAKEROOM / "cluster.yaml"))
    rule = ["--device-taint", str(MAKEROOM / "taint-rule.yaml"), "-o", "json"]
    expected = run(["plan", "drain", str(MAKEROOM / "cluster.yaml"), *rule], capsys)
    got = run(["plan", "drain", "-A", *rule], capsys)
    assert got[:2] == expected[:2]
    answer = json.loads(got[1])
    assert [p["pod"] for p in answer["displaced"]] == ["default/b-big"]
    assert answer["fitElsewhere"]["optimal"]["placement"] == {"default/b-big#0": "node-a"}


def test_the_three_kinds_are_listed_in_their_scope(apiserver: FakeAPIServer, kubeconfig: Path) -> None:
    """PodDisruptionBudgets are namespaced (-n reads its namespace's),
    PriorityClasses and DeviceTaintRules cluster-scoped (always whole)."""
    other = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
             "metadata": {"name": "web", "namespace": "web"},
             "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"app": "web"}}}}
    apiserver.add([*_cluster(budget=True), other, *objects_of(MAKEROOM / "taint-rule.yaml")])
    every = load([LiveSource()])
    assert sorted(f"{b.namespace}/{b.name}" for b in every.budgets) == ["default/batch", "web/web"]
    assert [c.name for c in every.priority_classes] == ["high"]
    assert sorted(r.name for r in every.taint_rules) == ["node-b-gpu-0", "node-b-gpu-1"]
    web = load([LiveSource(namespace="web")])
    assert [b.name for b in web.budgets] == ["web"]
    assert [c.name for c in web.priority_classes] == ["high"] and len(web.taint_rules) == 2
    paths = {r.path for r in apiserver.requests}
    assert "/apis/policy/v1/namespaces/web/poddisruptionbudgets" in paths
    assert "/apis/resource.k8s.io/v1/devicetaintrules" in paths    # 1.37: v1, the most stable version served
    assert "/apis/scheduling.k8s.io/v1/priorityclasses" in paths


def test_a_cluster_without_the_device_taint_api_has_no_rules_and_no_note(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The DeviceTaintRule API is one a cluster may leave off: then it has
    no rules, and nothing is said (as of the Workload API); the other kinds
    are read."""
    with FakeAPIServer(resources=served("1.36", device_taints=False)) as server:
        monkeypatch.setenv("KUBECONFIG", str(server.kubeconfig(tmp_path / "config")))
        server.add(_cluster(budget=True))
        objs = load([LiveSource()])
    assert objs.taint_rules == [] and len(objs.budgets) == 1 and len(objs.priority_classes) == 1
    assert not any("DeviceTaintRule" in w for w in objs.warnings)
    assert not any("devicetaintrules" in r.path for r in server.requests)
