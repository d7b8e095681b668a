"""Long planner, verify and --all-nodes work reports where it is through the
``progress`` callback it is given (dralloc.io.progress), and never prints."""

from __future__ import annotations

from typing import Any

import pytest

from dralloc.io import progress as prog
from dralloc.planner.api import Options, answer
from tests.planner.abort_cases import add_demand, cluster


class Steps:
    def __init__(self) -> None:
        self.seen: list[tuple[str, int | None, int | None, str]] = []

    def __call__(self, step: str, done: int | None = None, total: int | None = None, note: str = "") -> None:
        self.seen.append((step, done, total, note))

    def steps(self) -> list[str]:
        return [s for s, *_ in self.seen]


def test_fit_reports_the_simulation_column_generation_and_the_master(capsys: pytest.CaptureFixture[str]) -> None:
    steps = Steps()
    ans = answer("fit", add_demand(cluster(6), 3, 8, 20), Options(progress=steps))
    assert ans.detail["method"] == "column generation"
    assert capsys.readouterr().err == ""          # engines never print
    names = steps.steps()
    assert "first-fit: pods simulated" in names and "CP-SAT: the integer master" in names
    iterations = [done for s, done, _, _ in steps.seen if s == "column generation: iteration"]
    assert iterations and iterations == list(range(1, len(iterations) + 1))


def test_add_nodes_reports_each_count_it_tries(capsys: pytest.CaptureFixture[str]) -> None:
    steps = Steps()
    ans = answer("add-nodes", add_demand(cluster(2), 3, 8, 20), Options(template="node-0000", progress=steps))
    assert capsys.readouterr().err == ""
    tried = [note for s, _, _, note in steps.seen if s == "add-nodes (optimal): count"]
    assert ans.optimal["nodes"] is not None and len(tried) >= 2
    assert any(note.startswith(f"{ans.optimal['nodes']} added? (nodes needed >= ") for note in tried)


def test_verify_reports_its_pending_pod_analysis() -> None:
    from dralloc.audit import verify_state

    steps = Steps()
    objs = cluster(2)
    claims = [{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
               "metadata": {"name": f"c{i}", "namespace": "default"},
               "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}}]}}}
              for i in range(2)]
    pods = [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "namespace": "default"},
             "spec": {"resourceClaims": [{"name": "gpu", "resourceClaimName": f"c{i}"}],
                      "containers": [{"name": "main", "resources": {"claims": [{"name": "gpu"}]}}]}}
            for i in range(2)]
    from dralloc.planner.generate import clusters as gen

    for o in gen.objects([*claims, *pods]).all():
        objs.add(o)
    report = verify_state(objs, progress=steps)
    assert report.pending_pods == 2
    assert [(s, d, t) for s, d, t, _ in steps.seen if s.startswith("pending pods: where")] == \
        [("pending pods: where they fit now", 1, 2), ("pending pods: where they fit now", 2, 2)]


def test_allocate_all_nodes_reports_nodes_tried(tmp_path: Any, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    import yaml

    from dralloc.cli.main import main
    from dralloc.planner.generate import clusters as gen

    monkeypatch.setattr(prog, "SHOW_AFTER", 0.0)
    monkeypatch.setattr(prog, "LOG_EVERY", 0.0)
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "c", "namespace": "default"},
             "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}}]}}}
    f = tmp_path / "c.yaml"
    f.write_text(yaml.safe_dump_all([*gen.cluster(3, "h100-80gb-sxm5", 1, 0, profiles=["1g.10gb"]), claim]))
    assert main(["allocate", str(f), "--all-nodes", "--progress"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert [line for line in err if line.startswith("nodes tried")] == [f"nodes tried {i}/3" for i in (1, 2, 3)]
