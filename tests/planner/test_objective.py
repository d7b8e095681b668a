"""``plan --objective``: the optimum maximises what the user asks -- pods,
GPUs, devices, or pods by priority (the default) -- in every model, and
says so beside the answer, with values, bound and gap in that unit.

Hand-checked cases (each written from the rule, not from a run):

* two nodes of 3 GPUs; two training pods of 3 GPUs, two serving pods of 1:
  pods -> 3 pods (both serving pods on one node, a training pod on the
  other: 5 GPUs); GPUs -> both training pods (2 pods, 6 GPUs);
* one A100 under DynamicMIG; one 7g.40gb pod and three 1g.5gb pods (a 7g
  takes the whole GPU): pods -> the three 1g (3 pods, 3/7 GPU); GPUs -> the
  7g (1 GPU);
* fifteen 3-GPU nodes (column generation, not the compact model); fifteen
  training pods and two serving pods: pods -> 14 + 2 = 16 pods (44 GPUs);
  GPUs -> the 15 training pods (45 GPUs);
* one TPU block (KEP-4815, four hosts): a 4x4 slice (four pods sharing one
  device) and two 2x2 slices (one pod, one device each) exclude each other:
  pods -> the 4x4 (4 pods, 1 device); devices -> both 2x2 (2 devices)."""

from __future__ import annotations

import copy
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml

from dralloc.cli.main import main
from dralloc.features import Features
from dralloc.io import load
from dralloc.planner.api import Options, answer
from dralloc.planner.generate import clusters as gen
from dralloc.planner.generate import tpu
from dralloc.planner.generate.nodes import NodeType
from dralloc.planner.objective import make_weights
from dralloc.planner.questions.general import general_fit
from dralloc.planner.view.pods import pods_demand
from dralloc.planner.view.weigh import weigh_pods

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "planner" / "objective"
Doc = dict[str, Any]


def _example() -> list[Doc]:
    return [d for f in ("cluster.yaml", "demand.yaml") for d in yaml.safe_load_all((EXAMPLE / f).read_text())]


def _fit(docs: list[Doc], objective: str, question: str = "fit") -> dict[str, Any]:
    return answer(question, gen.objects(copy.deepcopy(docs)), Options(objective=objective, time_limit=20)).as_dict()


def test_pods_and_gpus_choose_differently() -> None:
    pods, gpus = _fit(_example(), "pods"), _fit(_example(), "gpus")
    assert pods["optimal"]["perWorkload"] == {"default/train": 1, "default/serve": 2}
    assert pods["optimal"]["objective"] == 3 and pods["gap"] == 1          # first-fit: both training pods
    assert gpus["optimal"]["perWorkload"] == {"default/train": 2, "default/serve": 0}
    assert gpus["optimal"]["gpus"] == 6 and gpus["firstFit"]["gpus"] == 6 and gpus["gap"] == 0
    assert gpus["optimal"]["proven"] and gpus["optimal"]["bound"] == 6
    assert gpus["objective"] == {"name": "gpus", "maximises": "GPUs placed (a MIG device: its share of the GPU)",
                                 "unit": "GPUs"}
    assert _fit(_example(), "priority")["optimal"]["perWorkload"] == pods["optimal"]["perWorkload"]


def test_devices_count_every_device() -> None:
    out = _fit(_example(), "devices")
    assert out["optimal"]["devices"] == 6 and out["optimal"]["perWorkload"]["default/train"] == 2


def _mig(big: str) -> list[Doc]:
    a100 = gen.gpu_model("a100-40gb")
    label = a100.profile(big).label
    return gen.cluster(1, gpus=1) + [gen.mig_template(a100.profile(big)), gen.mig_template(a100.profile("1g.5gb")),
                                     gen.workload("big", [f"mig-{label}"], 1), gen.workload("small", ["mig-1g-5gb"], 3)]


def test_the_pattern_model_weighs_mig_devices_by_their_share_of_the_gpu() -> None:
    pods, gpus = _fit(_mig("7g.40gb"), "pods"), _fit(_mig("7g.40gb"), "gpus")
    assert pods["optimal"]["perGroup"] == {"default/mig-7g-40gb@0": 0, "default/mig-1g-5gb@0": 3}
    assert gpus["optimal"]["perGroup"] == {"default/mig-7g-40gb@0": 1, "default/mig-1g-5gb@0": 0}
    assert gpus["optimal"]["gpus"] == 1
    both = _fit(_mig("3g.20gb"), "gpus")          # 3g + three 1g fit together: 3/7 + 3/7, exactly
    assert both["optimal"]["gpus"] == both["firstFit"]["gpus"] == "6/7" and both["gap"] == 0


def _many(nodes: int, trains: int) -> list[Doc]:
    docs = _example()
    cls, pods = docs[0], docs[5:]
    out = [cls]
    for i in range(nodes):
        n = f"node-{i:02d}"
        out += [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": n}},
                {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{n}-gpus"},
                 "spec": {"driver": "gpu.nvidia.com", "nodeName": n,
                          "pool": {"name": n, "generation": 1, "resourceSliceCount": 1},
                          "devices": [{"name": f"gpu-{j}"} for j in range(3)]}}]
    pods[2]["metadata"]["annotations"]["planner.dralloc.dev/replicas"] = str(trains)
    return out + pods


def test_column_generation_maximises_the_objective_with_a_valid_bound() -> None:
    pods, gpus = _fit(_many(15, 15), "pods"), _fit(_many(15, 15), "gpus")
    assert pods["detail"]["method"] == gpus["detail"]["method"] == "column generation"
    assert pods["optimal"]["perWorkload"] == {"default/train": 14, "default/serve": 2}
    assert gpus["optimal"]["perWorkload"] == {"default/train": 15, "default/serve": 0}
    assert gpus["optimal"]["gpus"] == 45 and gpus["optimal"]["proven"]
    assert Fraction(gpus["detail"]["bound"]) >= 45 and gpus["optimal"]["bound"] == 45


def test_the_block_model_counts_a_shared_slice_once() -> None:
    docs = gen.mixed_cluster([(NodeType("tpu"), 4)]) + tpu.tpu_demand({"4x4": 1, "2x2": 2}, 3, 1)
    pods, devices = _fit(docs, "pods"), _fit(docs, "devices")
    assert pods["detail"]["model"] == devices["detail"]["model"] == "blocks"
    assert pods["optimal"]["pods"] == 4 and pods["optimal"]["perWorkload"]["default/slice-0001-4x4"] == 4
    assert devices["optimal"]["devices"] == 2 and devices["optimal"]["perWorkload"]["default/slice-0001-4x4"] == 0
    gpus = _fit(docs, "gpus")
    assert gpus["optimal"]["gpus"] == 0 and "no pod of the demand has GPUs" in gpus["objective"]["note"]


def test_the_joint_model_maximises_the_objective() -> None:
    objs = gen.objects(_example())
    for objective, train in (("pods", 1), ("gpus", 2)):
        demand = pods_demand(objs)
        weigh_pods(objs, demand, objective, Features.default())
        _, opt = general_fit(objs, demand, Features.default(), time_limit=20, model="joint")
        assert opt.model == "joint" and opt.served["default/train"] == train and opt.proven


def test_weights_follow_the_rules() -> None:
    pods = [("a", 0, 2), ("b", 1, 3), ("c", 2, 1)]
    prio = make_weights("priority", pods)
    assert prio.of("a") == 1 and prio.of("b") == 3 and prio.of("c") == 3 * 3 + 2 + 1   # above all lower pods
    gpus = make_weights("gpus", pods, {"a": Fraction(1, 7), "b": Fraction(3, 7), "c": Fraction(2)})
    assert (gpus.scale, gpus.of("a"), gpus.of("b"), gpus.of("c")) == (7, 1, 3, 14)
    assert gpus.value(7 * 2 + 3) == Fraction(17, 7)
    forced = make_weights("gpus", pods, {"a": Fraction(1, 7), "b": Fraction(0)}, forced=["c"])
    assert forced.of("c") == 1 + 2 * 1 + 3 * 0                                      # outweighs everything else


FRAGMENTED = """
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: held-a, namespace: default}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}]}}
status:
  allocation:
    devices: {results: [{request: gpu, driver: gpu.nvidia.com, pool: node-a, device: gpu-0}]}
    nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [node-a]}]}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: held-b, namespace: default}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}]}}
status:
  allocation:
    devices: {results: [{request: gpu, driver: gpu.nvidia.com, pool: node-b, device: gpu-0}]}
    nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [node-b]}]}]}
"""


def test_fragmentation_in_gpus(tmp_path: Path) -> None:
    """One GPU held on each node: no 3-GPU training pod fits now; re-packed
    (both held GPUs on one node), one does: 3 GPUs stranded."""
    (tmp_path / "held.yaml").write_text(FRAGMENTED)
    docs = _example()
    docs[7]["metadata"]["annotations"]["planner.dralloc.dev/replicas"] = "1"     # one training pod, no serving
    objs = gen.objects(docs[:8])
    objs.extend(load([tmp_path / "held.yaml"]))
    out = answer("fragmentation", objs, Options(objective="gpus", time_limit=20)).as_dict()
    assert (out["optimal"]["gpus"], out["optimal"]["gpusAfterRepack"], out["gap"]) == (0, 3, 3)
    assert out["optimal"]["moved"] == 1


def test_add_nodes_places_everything_whatever_the_objective(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["plan", "add-nodes", *map(str, sorted(EXAMPLE.glob("*.yaml"))), "--template", "node-a", "-o", "yaml"]
    assert main([*argv, "--objective", "gpus"]) == 0
    gpus = yaml.safe_load(capsys.readouterr().out)
    assert main([*argv, "--objective", "pods"]) == 0
    pods = yaml.safe_load(capsys.readouterr().out)
    assert gpus["optimal"]["nodes"] == pods["optimal"]["nodes"] == 1      # 2 x 3 + 2 x 1 GPUs on 3-GPU nodes
    assert gpus["objective"]["name"] == "gpus" and "whole demand" in gpus["objective"]["note"]


def test_the_table_says_the_objective_and_the_gap_unit(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "fit", *map(str, sorted(EXAMPLE.glob("*.yaml"))), "--objective", "gpus"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("fit (objective gpus: GPUs placed")
    assert "gap (GPUs)" in out
    with pytest.raises(SystemExit):
        main(["plan", "fit", *map(str, sorted(EXAMPLE.glob("*.yaml"))), "--objective", "money"])
    assert "invalid choice: 'money'" in capsys.readouterr().err


def test_the_table_writes_fractions_as_mixed_numbers() -> None:
    from dralloc.planner.answer import Answer
    from dralloc.planner.report.tables import table

    a = Answer("fit", {"pods": 2, "gpus": "5329/7"}, {"pods": 3, "gpus": "5598/7"}, gap="269/7",
               objective={"name": "gpus", "maximises": "GPUs placed", "unit": "GPUs"})
    out = table([a])
    assert "761 2/7" in out and "799 5/7" in out and "38 3/7" in out
