"""AI demand from the generator (``generate demand --ai``, ``gen.gpu_template``):
training pods whose GPUs and NICs come in groups, one PCIe root each, as
real nodes have them (so every pod fits an empty generated node of its
kind, and one ``matchAttribute`` over all GPUs and NICs would not); gangs
as PodGroups, Workloads or annotations with their sizes and minCount; the
load split exactly; the output admitted by the front door; and the
planner placing every gang at 110 % load."""

from __future__ import annotations

import io
from fractions import Fraction
from math import ceil
from typing import Any

import pytest
import yaml

from dralloc.cli.main import main
from dralloc.cluster import Cluster
from dralloc.features import DEFAULT_GATES, Features
from dralloc.planner.api import Options, answer
from dralloc.planner.generate import clusters as gen
from dralloc.planner.generate.aidemand import Gangs, ai_demand
from dralloc.planner.generate.nodes import NodeType
from dralloc.planner.view.pods import pods_demand
from dralloc.release import release
from dralloc.validation import validate

Doc = dict[str, Any]
ROOT = "resource.kubernetes.io/pcieRoot"


def _cluster(docs: list[Doc], types: list[tuple[NodeType, int]]) -> Cluster:
    objs = gen.objects(gen.mixed_cluster(types, seed=2) + docs)
    return Cluster(objs, features=Features.from_gates(DEFAULT_GATES))


def _one_pod(template: Doc, name: str = "p") -> list[Doc]:
    return [template, gen.workload(name, [template["metadata"]["name"]], 1)]


@pytest.mark.parametrize("gpus,nics", [(8, 4), (8, 8), (8, 2), (4, 2), (8, 0), (2, 1)])
def test_gpu_template_fits_an_empty_node_of_its_ratio(gpus: int, nics: int) -> None:
    """A pod of all the node's GPUs and NICs: fits the empty node, every GPU
    on the root of a NIC of its group."""
    cl = _cluster(_one_pod(gen.gpu_template("t", gpus=gpus, nics=nics)), [(NodeType("gpu", gpus=gpus, nics=nics), 1)])
    out = cl.allocate("gpu-0000", pod="default/p", mode="first-fit")
    assert out.ok and out.verified
    results = out.allocations[0].devices.results   # type: ignore[index,union-attr]
    assert len(results) == gpus + nics
    spec = gen.gpu_template("t", gpus=gpus, nics=nics)["spec"]["spec"]["devices"]
    groups = len(spec.get("constraints", [])) or 1
    assert len(spec["requests"]) == (2 if nics else 1) * groups
    assert all(c["matchAttribute"] == ROOT and len(c["requests"]) == 2 for c in spec.get("constraints", []))


def test_half_a_node_fits_twice_and_one_constraint_over_all_never() -> None:
    """4 GPUs + 2 NICs on an 8-GPU, 4-NIC EKS node: twice. The old shape --
    one matchAttribute over every GPU and NIC -- asks for four GPUs on one
    root, and the node has two per root."""
    half = gen.gpu_template("half", gpus=4, nics=2)
    old = gen.gpu_template("old", gpus=8, nics=4)
    old["spec"]["spec"]["devices"] = {
        "requests": [{"name": "gpus", "exactly": {"deviceClassName": "gpu.nvidia.com", "count": 8}},
                     {"name": "nics", "exactly": {"deviceClassName": "efa.networking.k8s.aws", "count": 4}}],
        "constraints": [{"requests": ["gpus", "nics"], "matchAttribute": ROOT}]}
    docs = [half, old, gen.workload("a", ["half"], 1), gen.workload("b", ["half"], 1), gen.workload("c", ["old"], 1)]
    cl = _cluster(docs, [(NodeType("gpu", gpus=8, nics=4), 1)])
    assert not cl.allocate("gpu-0000", pod="default/c", mode="first-fit").ok
    first = cl.allocate("gpu-0000", pod="default/a", mode="first-fit")
    assert first.ok
    cl.commit(first, cl.pod_claims("default/a"))
    assert cl.allocate("gpu-0000", pod="default/b", mode="first-fit").ok


TYPES = [(NodeType("gpu", gpus=8, nics=8), 6), (NodeType("mig", gpus=8), 4)]


def _kinds(docs: list[Doc], kind: str) -> list[Doc]:
    return [d for d in docs if d["kind"] == kind]


def _replicas(pod: Doc) -> int:
    return int(pod["metadata"]["annotations"]["planner.dralloc.dev/replicas"])


def test_the_load_is_split_exactly() -> None:
    """train+infer GPUs = floor(load x 48 GPUs), 75:25 by largest remainder;
    MIG pods = floor(load x 4 nodes x 8 GPUs x 7 slices / mean slices)."""
    docs = ai_demand(TYPES, Fraction(11, 10))
    pods = {p["metadata"]["name"]: p for p in _kinds(docs, "Pod")}
    train = sum(_replicas(p) for n, p in pods.items() if n.startswith("train-"))
    assert int(Fraction(11, 10) * 48) == 52
    assert train == 39 // 8 and _replicas(pods["infer"]) == 13          # 52 -> 39 + 13
    slices = Fraction(5 * 1 + 3 * 2 + 2 * 3, 10)
    migs = int(Fraction(11, 10) * 4 * 8 * 7 / slices)
    assert sum(_replicas(p) for n, p in pods.items() if n.startswith("mig-")) == migs
    for p, w in (("1g-5gb", 5), ("2g-10gb", 3), ("3g-20gb", 2)):      # each within one of its exact share
        assert abs(_replicas(pods[f"mig-{p}"]) - migs * Fraction(w, 10)) < 1


@pytest.mark.parametrize("api,version,source", [
    ("podgroup", None, "PodGroup"), ("podgroup", "1.36", "PodGroup"), ("workload", None, "PodGroup"),
    ("workload", "1.36", "PodGroup"), ("workload", "1.35", "Workload"), ("annotation", None, "annotation")])
def test_gangs_have_their_sizes_and_min_count(api: str, version: str | None, source: str) -> None:
    """In the API versions the release serves (1.37: v1beta1 PodGroups, a
    Workload's template named by each; 1.35: a Workload's pod groups)."""
    gangs = Gangs((2, 3), "0.5", api, release=version)
    docs = ai_demand([(NodeType("gpu", gpus=8, nics=8), 40)], Fraction(1), {"train": 1}, gangs, seed=5)
    rel = release(version)
    assert all(rel.serves(d["apiVersion"], d["kind"]) for d in docs if d["apiVersion"].startswith("scheduling"))
    if api == "workload":
        assert {d["kind"] for d in docs} >= {"Workload"}
    objs = gen.objects(gen.mixed_cluster([(NodeType("gpu", gpus=8, nics=8), 1)]) + docs)
    assert list(validate(objs)) == []
    demand = pods_demand(objs)
    assert demand.total() == 40
    sizes = sorted(g.size for g in demand.gangs.values())
    assert sum(sizes) == 40 and all(2 <= s <= 3 for s in sizes[1:]) and 1 <= sizes[0] <= 3
    assert all(g.min_count == ceil(g.size / 2) for g in demand.gangs.values())
    assert {g.source for g in demand.gangs.values()} == {source}
    assert {p.priority for p in demand.pods} == {1}      # above the plain pods' single level


def test_no_podgroup_before_1_36(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["generate", "demand", "--ai", "--types", "gpu=2", "--mix", "train=1", "--load", "1",
            "--kubernetes-version", "1.35"]
    assert main(argv) == 2
    assert "Kubernetes 1.35 has no PodGroup; give --gang-api workload or annotation" in capsys.readouterr().err
    assert main([*argv, "--gang-api", "workload"]) == 0


def test_every_shape_fits_an_empty_generated_node() -> None:
    docs = ai_demand(TYPES, Fraction(1), {"train": 3, "infer": 1, "1g.5gb": 1, "3g.20gb": 1, "7g.40gb": 1})
    cl = _cluster(docs, [(NodeType("gpu", gpus=8, nics=8), 1), (NodeType("mig", gpus=8), 1)])
    for pod in _kinds(docs, "Pod"):
        name = f"default/{pod['metadata']['name']}"
        node = "mig-0000" if pod["metadata"]["name"].startswith("mig-") else "gpu-0000"
        out = cl.allocate(node, pod=name, mode="first-fit")
        assert out.ok and out.verified, (name, out)


def test_cli_writes_what_the_front_door_admits(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", "demand", "--ai", "--types", "gpu=6,mig=4", "--nics", "8", "--load", "1.1",
                 "--gang-api", "workload", "--min-count", "2", "--priorities", "2"]) == 0
    docs = list(yaml.safe_load_all(io.StringIO(capsys.readouterr().out)))
    objs = gen.objects(gen.mixed_cluster(TYPES) + docs)
    assert list(validate(objs)) == []
    assert {d["kind"] for d in docs} == {"ResourceClaimTemplate", "Workload", "PodGroup", "Pod"}
    demand = pods_demand(objs)
    assert {p.priority for p in demand.pods if p.gang} == {2}
    assert {p.priority for p in demand.pods if not p.gang} == {0, 1}
    assert all(g.min_count == min(2, g.size) for g in demand.gangs.values())


@pytest.mark.parametrize("args,needle", [
    (["--load", "1"], "--ai needs --load and --types"),
    (["--load", "1", "--types", "mig=2", "--mix", "train=1"], "need whole-GPU nodes"),
    (["--load", "1", "--types", "gpu=2", "--mix", "1g.5gb=1"], "need MIG nodes"),
    (["--load", "1", "--types", "gpu=2", "--nics", "4", "--train-gpus", "1", "--mix", "train=1"],
     "a whole number of NICs"),
    (["--load", "1", "--types", "gpu=2", "--train-gpus", "9", "--mix", "train=1"], "1 to 8 GPUs"),
    (["--load", "1", "--types", "gpu=2", "--mix", "train=1", "--min-count", "x"], "--min-count x"),
    (["--load", "1", "--types", "gpu=2", "--mix", "train=1", "--gang-sizes", "3-2"], "1 <= MIN <= MAX"),
    (["--load", "1", "--types", "mig:a100-40gb=1,mig:h100-80gb-sxm5=1", "--mix", "1g.5gb=1"], "several GPU models"),
])
def test_bad_ai_arguments_are_clear_errors(args: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", "demand", "--ai", *args]) == 2
    assert needle in capsys.readouterr().err


def test_the_optimum_places_every_gang_at_110_percent() -> None:
    """More asked for than the cluster holds; the gangs (above the other
    pods) all fit, so the optimum places every one of them."""
    types = [(NodeType("gpu", gpus=8, nics=8), 4), (NodeType("mig", gpus=8), 1)]
    docs = ai_demand(types, Fraction(11, 10), gangs=Gangs((2, 2)), seed=1)     # gangs of 2 and 1
    objs = gen.objects(gen.mixed_cluster(types) + docs)
    ans = answer("fit", objs, Options(time_limit=20))
    gangs = ans.detail["gangs"]
    assert len(gangs) >= 2
    assert all(g["optimal"] for g in gangs.values()), gangs
    assert ans.optimal["gangs"] == len(gangs)
    assert ans.optimal["pods"] < ans.detail["demand"]       # not everything fits: the load is above 1
