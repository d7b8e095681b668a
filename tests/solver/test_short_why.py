"""The short why of a negative answer (what ``allocate`` prints) names what
``explain``'s minimal conflicting set names, over every unsatisfiable
scenario of the corpus: one plain line per node first, then per request
every exclusion the inventory made, with the same counts as the core's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dralloc.cli.main import main
from dralloc.features import Features
from dralloc.inventory.problem import build_problem
from dralloc.io.scenario import Scenario
from dralloc.solver.explain import CONFLICT, explanation
from tests.scenarios.test_conformance import _load

CORPUS = Path(__file__).resolve().parents[1] / "scenarios" / "conformance"
UNSAT = [p for p in sorted(CORPUS.rglob("*.yaml")) if "unsatisfiable: true" in p.read_text()]
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _problem(sc: Scenario):  # type: ignore[no-untyped-def]
    return build_problem(sc.objects.slices, sc.objects.classes, sc.node, sc.claims, sc.allocated,
                         Features.from_gates(sc.features), sc.variant)


def test_the_corpus_has_unsatisfiable_scenarios() -> None:
    assert len(UNSAT) >= 100


@pytest.mark.parametrize("path", UNSAT, ids=lambda p: p.stem)
def test_short_why_names_what_the_core_names(path: Path) -> None:
    sc = _load(path)
    problem = _problem(sc)  # an unsatisfiable answer: Kubernetes searched (no fatal error first)
    found = explanation(problem, time_limit=10.0)
    why = found.candidates
    node = problem.node.name or "<none>"
    assert why[0].startswith(f"{node}: ") and len(why[0]) > len(node) + 10, "one plain line first"
    if found.status != CONFLICT:
        return
    text = "\n".join(why)
    for label, sentence in found.core:
        kind, _, what = label.partition(" ")
        if kind == "request":
            claim, _, slot = what.rpartition("/")
            # every "N kind" the core gives for an alternative is on that alternative's line
            for alt, excluded in re.findall(r"(\S+) needs [^;]*?\(excluded: ([^)]*)\)", sentence):
                line = next(x for x in why if x.startswith(f"claim {claim} request {alt} wants"))
                for item in excluded.split(", "):
                    assert item in line, f"{item!r} missing from {line!r}"
        elif kind == "counter":
            counter_set = what.rsplit("/", 1)[0]
            assert counter_set in text, f"counter set {counter_set} not named in the short why"
    assert "0 of 0" not in why[0]


def test_mig_devices_of_a_fully_used_gpu_are_not_free(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One A100 with a 7g.40gb partition allocated: no MIG device is free, and
    the why says which counter ran out, in Kubernetes units."""
    from dralloc.planner.generate import clusters as gen

    docs = gen.device_classes() + gen.node_objects("node-0", "a100-40gb", 1)
    import yaml

    slices = [d for d in docs if d["kind"] == "ResourceSlice"]
    devices = [dev for s in slices for dev in s["spec"].get("devices") or []]
    whole = max(devices, key=lambda d: sum(len(c["counters"]) for c in d.get("consumesCounters") or []))["name"]
    driver, pool = slices[0]["spec"]["driver"], slices[0]["spec"]["pool"]["name"]
    held = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": "held", "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "mig.nvidia.com"}}]}},
            "status": {"allocation": {"devices": {"results": [
                {"request": "r", "driver": driver, "pool": pool, "device": whole}]}}}}
    want = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": "want", "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "mig", "exactly": {
                "deviceClassName": "mig.nvidia.com", "count": 1}}]}}}
    f = tmp_path / "cluster.yaml"
    f.write_text(yaml.safe_dump_all([*docs, held, want]))
    assert main(["allocate", str(f), "--claim", "default/want", "--features", "DRAPartitionableDevices"]) == 1
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert lines[1] == "  why: node-0: 0 device(s) of class mig.nvidia.com free for request default/want/mig, 1 needed"
    assert "1 in use" in lines[2] and re.search(r"\d+ counters exhausted \(gpu.nvidia.com/node-0/gpu-0-counter-set/",
                                                lines[2])
    assert "0 left, device(s) need" in lines[2]
    assert re.search(r"\b\d{9,}\b", err) is None, "raw byte counts"


def test_exhausted_counters_are_in_kubernetes_units() -> None:
    from fractions import Fraction

    from dralloc.inventory.exclusions import counters_exhausted
    from dralloc.inventory.pools import Pool, PoolDevice
    from dralloc.models import Device, ResourceSlice
    from dralloc.quantity import amount_text

    gib = Fraction(1 << 30)
    dev = Device.model_validate({"name": "gpu-0-mig", "consumesCounters": [
        {"counterSet": "gpu-0", "counters": {"memory": {"value": "40Gi"}}}]})
    sl = ResourceSlice.model_validate({"metadata": {"name": "s"}, "spec": {
        "driver": "gpu.example.com", "pool": {"name": "p"}, "nodeName": "n", "devices": [dev.dump()]}})
    pd = PoolDevice(Pool("gpu.example.com", "p"), sl, dev, (0, 0, 0))
    why = counters_exhausted(pd, {"gpu-0": {"memory": 20 * gib}})
    assert why is not None and why.detail == "gpu.example.com/p/gpu-0/memory: needs 40Gi, 20Gi left"
    assert counters_exhausted(pd, {"gpu-0": {"memory": 40 * gib}}) is None
    assert [amount_text(v) for v in (Fraction(1500), Fraction(3, 2), 5 * gib, Fraction(0))] == \
        ["1500", "1500m", "5Gi", "0"]


def test_all_nodes_gives_each_node_its_reason(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["allocate", str(EXAMPLES / "verify" / "cluster.yaml"), "--pod", "ml/train-d-pod",
                 "--all-nodes", "-o", "yaml"]) == 1
    import yaml

    data = yaml.safe_load(capsys.readouterr().out)
    assert data["pod"] == "ml/train-d-pod"
    assert data["summary"]["text"] == "0 of 2 node(s) fit pod ml/train-d-pod"
    for row in data["nodes"]:
        assert row["result"] == "unsatisfiable"
        assert row["reason"].startswith(f"{row['node']}: ") and row["reason"] == row["why"][0]


def test_all_nodes_honours_the_objective(capsys: pytest.CaptureFixture[str]) -> None:
    mig = str(EXAMPLES / "quickstart" / "mig-a100.yaml")
    assert main(["allocate", mig, "--all-nodes", "--mode", "optimal", "--objective", "devices,fragmentation",
                 "-o", "json"]) == 0
    import json

    data = json.loads(capsys.readouterr().out)
    assert data["mode"] == "optimal" and data["nodes"][0]["result"] == "fits"
    with pytest.raises(SystemExit):
        main(["allocate", mig, "--all-nodes", "--mode", "optimal", "--objective", "bogus"])
