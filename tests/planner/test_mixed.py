"""The configuration model for mixed demand (dralloc.planner.mixed):
against the joint model on small random clusters, column generation against
the compact model, the bound's honesty, identical nodes and pods counted."""

from __future__ import annotations

import random
import tracemalloc
from typing import Any

import pytest

from dralloc.features import Features
from dralloc.planner.api import Options, answer
from dralloc.planner.general.parts import GeneralResult
from dralloc.planner.generate import clusters as gen
from dralloc.planner.mixed.fit import mixed_fit
from dralloc.planner.mixed.items import read_items
from dralloc.planner.questions.general import general_fit
from dralloc.planner.simulate.podsim import NodeObjects, PodSimulator, probes, simulate_pods
from dralloc.planner.view.cluster import DEFAULT_GATES
from dralloc.planner.view.pods import pods_demand
from tests.planner.aicluster import ai_cluster, aligned, pod

F = Features.from_gates(DEFAULT_GATES)
A100 = gen.gpu_model("a100-40gb")
TEMPLATES = [aligned("pair", 1), aligned("quad", 4), gen.claim_template("gpu1", "gpu.nvidia.com"),
             gen.mig_template(A100.profile("1g.5gb")), gen.mig_template(A100.profile("3g.20gb"))]
SHAPES = ["pair", "quad", "gpu1", "mig-1g-5gb", "mig-3g-20gb"]


def random_docs(seed: int, gpus: int = 4) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    docs = ai_cluster(rng.randint(1, 2), 1, gpus) + TEMPLATES
    for i in range(rng.randint(2, 5)):
        shape = rng.choice(SHAPES)
        gang = f"g{i}" if rng.random() < 0.4 else None
        docs.append(pod(f"p{i}", [shape], replicas=rng.randint(1, 5), priority=rng.choice([0, 0, 1]), gang=gang,
                        min_count=rng.randint(1, 3) if gang else None))
    return docs


def solve(docs: list[dict[str, Any]], model: str, compact_nodes: int | None = None) -> tuple[Any, GeneralResult]:
    objs = gen.objects(docs)
    demand = pods_demand(objs)
    per_node = NodeObjects(objs, probes(demand))
    greedy = simulate_pods(objs, demand, F, per_node=per_node)
    sim = PodSimulator(objs, demand, F, objs.nodes, per_node=per_node)
    if model == "mixed":
        got = mixed_fit(objs, demand, F, sim, greedy, 30.0, 1, compact_nodes=compact_nodes
                        if compact_nodes is not None else 12)
        assert isinstance(got, GeneralResult), got
        return greedy, got
    return general_fit(objs, demand, F, time_limit=30.0, workers=1, model="joint")


@pytest.mark.parametrize("seed", range(8))
def test_configuration_model_equals_the_joint_model(seed: int) -> None:
    docs = random_docs(seed)
    greedy, mixed = solve(docs, "mixed")
    _, joint = solve(docs, "joint")
    assert mixed.status == joint.status == "OPTIMAL", (mixed.notes, joint.notes)
    assert mixed.value == joint.value >= greedy.weighted(pods_demand(gen.objects(docs)))
    assert not [n for n in mixed.notes if "rejects" in n]


@pytest.mark.parametrize("seed", range(8))
def test_column_generation_is_bounded_by_the_compact_optimum(seed: int) -> None:
    """Forced onto column generation, the answer is never above the proven
    optimum and the bound never below it; proven means equal."""
    docs = random_docs(seed)
    _, exact = solve(docs, "mixed")
    _, cg = solve(docs, "mixed", compact_nodes=0)
    assert cg.detail["method"] == "column generation"
    assert cg.value <= exact.value <= cg.bound
    assert (cg.status == "OPTIMAL") == (cg.value == cg.bound)
    assert not [n for n in cg.notes if "rejects" in n]


@pytest.mark.parametrize("seed", range(6))
def test_remembered_allocator_answers_change_nothing(seed: int) -> None:
    """The simulation reusing answers across identical nodes gives the same
    placements, device by device, as asking the allocator every time."""
    docs = random_docs(seed)
    objs = gen.objects(docs)
    demand = pods_demand(objs)
    fast, slow = simulate_pods(objs, demand, F), simulate_pods(objs, demand, F, cache=False)

    def where(sim: Any) -> list[tuple[str, int, str, list[str]]]:
        return [(p.pod, p.replica, p.node, [f"{r.pool}/{r.device}" for c in p.claims
                                            for r in c.status.allocation.devices.results]) for p in sim.placed]
    assert where(fast) == where(slow)
    assert fast.calls <= slow.calls


def test_identical_nodes_and_pods_are_counted_not_expanded() -> None:
    docs = ai_cluster(3, 3, 4) + TEMPLATES + [pod("a", ["mig-1g-5gb"], replicas=500),
                                              pod("b", ["quad"], replicas=7, gang="job", min_count=3)]
    objs = gen.objects(docs)
    items = read_items(pods_demand(objs))
    assert not isinstance(items, str)
    assert [(g.count, len(g.pods)) for g in items.groups] == [(500, 1)]
    assert [(t.size, t.needed, len(t.gangs)) for t in items.gangs] == [(7, 3, 1)]
    ans = answer("fit", objs, Options(workers=1))
    assert ans.detail["method"] == "column generation" and ans.detail["nodeTypes"] == 2 and ans.optimal["proven"]
    assert ans.optimal["perWorkload"] == {"default/a": 3 * 4 * 7, "default/b": 3}   # 3 MIG nodes x 4 GPUs x 7 1g; one quad per GPU node


def measure(replicas: int) -> int:
    docs = ai_cluster(1, 1, 2) + TEMPLATES + [pod("a", ["mig-1g-5gb"], replicas=replicas),
                                              pod("b", ["pair"], replicas=replicas)]
    objs = gen.objects(docs)
    tracemalloc.start()
    ans = answer("fit", objs, Options(workers=1))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert ans.optimal["pods"] == min(replicas, 2 * 7) + min(replicas, 2) and ans.optimal["proven"]
    return peak


def test_a_million_replicas_cost_no_more_memory_than_ten() -> None:
    """Pods are counted: 10^6 replicas of each shape need about the memory of
    10 (tracemalloc's peak during the whole fit; the placed pods are bounded
    by the cluster, not by the demand)."""
    measure(10)   # caches filled once (CEL programs, imports)
    small, big = measure(10), measure(1_000_000)
    assert big < small * 1.5 + 2**19, (small, big)


def test_pictures_of_a_mixed_answer(tmp_path: Any) -> None:
    pytest.importorskip("matplotlib")
    from dralloc.planner.report import plots
    from dralloc.planner.report.occupancy import node_row, owner_labels

    docs = ai_cluster(1, 1, 2) + TEMPLATES + [pod("a", ["mig-1g-5gb"], replicas=3), pod("b", ["pair"], replicas=1)]
    objs = gen.objects(docs)
    ans = answer("fit", objs, Options(workers=1))
    written = plots.write_all([ans], tmp_path / "p.png")
    assert [p.rpartition("-")[2] for p in written] == ["compare.png", "workloads.png", "nodes.png"]
    assert all((tmp_path / p.rpartition("/")[2]).stat().st_size > 0 for p in written)
    holders = owner_labels(ans.sources["optimal"], ans.sources["demand"])
    mig = next(n for n in objs.nodes if n.name.startswith("mig"))
    row = node_row(mig, ans.sources["slicesOf"](mig), holders)
    assert len(row.cells) == 2 * 8 and row.cells.count("a") == 3   # 2 GPUs x 8 memory slices, three 1g of pod a


def test_claims_no_pod_refers_to_are_pods_of_their_own() -> None:
    """Unallocated claims without a pod (a GPU with its NIC each) beside a
    gang: the optimum allocates them as such, and says where."""
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"namespace": "default"}, "spec": aligned("x", 1)["spec"]["spec"]}
    lone = [{**claim, "metadata": {"name": f"lone-{i}", "namespace": "default"}} for i in range(3)]
    docs = ai_cluster(1, 0, 8) + TEMPLATES + lone + [pod("job", ["pair"], replicas=2, gang="job")]
    objs = gen.objects(docs)
    demand = pods_demand(objs)
    greedy, opt = general_fit(objs, demand, F, workers=1, model="mixed")   # first-fit places all, too
    assert opt.model == "mixed" and opt.value == 5 and opt.proven
    allocated = {c.key for cs in opt.claims.values() for c in cs if c.status and c.status.allocation}
    assert {"default/lone-0", "default/lone-1", "default/lone-2"} <= allocated
    assert {k for k in opt.placed if k.startswith("default/lone")} == {f"default/lone-{i}#0" for i in range(3)}
