"""add-nodes in the configuration model: the lower bound from the
configuration LP's (Lagrangian) bounds, the integer master near it, and the
proof words -- against the joint model tried count by count on small
clusters."""

from __future__ import annotations

import random
from typing import Any

import pytest

from dralloc.features import Features
from dralloc.planner.api import Options, answer
from dralloc.planner.generate import clusters as gen
from dralloc.planner.mixed import grow
from dralloc.planner.mixed.master import Master, Solution
from dralloc.planner.questions.general import general_fit
from dralloc.planner.questions.grow import Grower, unit_from
from dralloc.planner.view.cluster import DEFAULT_GATES
from dralloc.planner.view.pods import pods_demand
from tests.planner.aicluster import ai_cluster, aligned, pod

F = Features.from_gates(DEFAULT_GATES)
A100 = gen.gpu_model("a100-40gb")
TEMPLATES = [aligned("pair", 1), aligned("quad", 4), gen.claim_template("gpu1", "gpu.nvidia.com"),
             gen.mig_template(A100.profile("1g.5gb")), gen.mig_template(A100.profile("3g.20gb"))]
GPU_SHAPES = ["pair", "quad", "gpu1"]
MOST = 3          # the joint model answers counts up to this one


def random_docs(seed: int) -> list[dict[str, Any]]:
    """One 4-GPU node with NICs, one MIG node; GPU pods (some in gangs)
    beyond the GPU node, MIG pods the MIG node holds."""
    rng = random.Random(seed)
    docs = ai_cluster(1, 1, 4) + TEMPLATES + [pod("m", ["mig-1g-5gb"], replicas=rng.randint(1, 8))]
    for i in range(rng.randint(2, 4)):
        gang = f"g{i}" if rng.random() < 0.4 else None
        docs.append(pod(f"p{i}", [rng.choice(GPU_SHAPES)], replicas=rng.randint(1, 6), gang=gang,
                        min_count=rng.randint(1, 2) if gang else None))
    return docs


def joint_fits(docs: list[dict[str, Any]], template: str, k: int) -> bool:
    """The old way, one count: the joint model (not the configuration
    model) on the cluster with k copies; every pod placed, or proven not."""
    objs = gen.objects(docs)
    demand = pods_demand(objs)
    res = general_fit(Grower(objs, unit_from(objs, None, template)).with_k(k), demand, F, time_limit=30.0,
                      workers=1, model="joint")[1]
    if sum(res.served.values()) == demand.total():
        return True
    assert res.proven, f"the joint model did not decide k={k}"
    return False


@pytest.mark.parametrize("seed", range(6))
def test_the_bound_and_the_master_give_the_joint_models_count(seed: int) -> None:
    """Every count below the answer is too few for the joint model and the
    answer is enough, for answers up to MOST; for a larger answer or none,
    the first two counts are too few (beyond, the joint model is slow to prove it)."""
    docs = random_docs(seed)
    ans = answer("add-nodes", gen.objects(docs), Options(workers=1, template="gpu-0000", time_limit=30))
    opt, n = ans.optimal, ans.optimal["nodes"]
    assert opt["model"] == "mixed" and opt["proven"]
    assert opt["status"] == ("INFEASIBLE" if n is None else "OPTIMAL")
    assert opt["lowerBound"] == n
    for k in range(2 if n is None or n > MOST else n):
        assert not joint_fits(docs, "gpu-0000", k), k
    if n is not None and n <= MOST:
        assert joint_fits(docs, "gpu-0000", n)
        assert ans.first_fit["nodes"] is not None and ans.first_fit["nodes"] >= n


def gang_docs() -> list[dict[str, Any]]:
    """A gang of five 8-GPU pods (with a NIC each) on one 8-GPU node: four more nodes."""
    return [*ai_cluster(1, 0), aligned("train", 8), pod("job", ["train"], replicas=5, gang="job")]


def test_the_lp_bound_leaves_few_counts_to_try() -> None:
    """k = 0 prices the configurations; its bound (one node holds one pod)
    says four are missing, and four is tried next: two counts, not a search."""
    ans = answer("add-nodes", gen.objects(gang_docs()), Options(workers=1, template="gpu-0000"))
    assert ans.optimal["nodes"] == ans.optimal["lowerBound"] == 4 and ans.optimal["proven"]
    assert ans.detail["countsTried"] == [0, 4]
    assert ans.first_fit["nodes"] == 4 and ans.gap == 0


def test_a_count_not_decided_in_time_leaves_the_answer_unproven(monkeypatch: pytest.MonkeyPatch) -> None:
    """The integer master stops at its time limit at the bound's count (4):
    5 is found to hold the demand, the bound says 4; the answer says both,
    which count was not decided and why, and does not claim an optimum."""
    real = Master.solve_ip
    calls: list[int] = []

    def solve_ip(self: Master, *args: Any, **kw: Any) -> Solution:
        calls.append(1)
        if len(calls) == 1:          # k = 0 is below the bound; the first search is at k = 4
            return Solution(status="UNKNOWN", why="time limit")
        return real(self, *args, **kw)

    monkeypatch.setattr(Master, "solve_ip", solve_ip)
    ans = answer("add-nodes", gen.objects(gang_docs()), Options(workers=1, template="gpu-0000", time_limit=5))
    opt = ans.optimal
    assert (opt["nodes"], opt["lowerBound"], opt["proven"], opt["status"]) == (5, 4, False, "FEASIBLE")
    assert opt["boundGap"] == 1 and "stopped at its time limit (5 s)" in opt["stopped"]
    assert "not proven: 5 added nodes hold the demand, the configuration LP's bound says at least 4" in opt["note"]
    assert "not decided for k = [4] (time limit)" in opt["note"]
    assert ans.detail["countsTried"] == [0, 4, 5]


def test_a_useless_node_type_is_proven_useless_for_any_count() -> None:
    """MIG pods and whole-GPU nodes: the added type is worth nothing at the
    LP's prices, so no count helps -- proven without trying any other count."""
    docs = [*ai_cluster(1, 1, 2), gen.mig_template(A100.profile("1g.5gb")),
            pod("mig", ["mig-1g-5gb"], replicas=20, gang="g", min_count=1)]
    ans = answer("add-nodes", gen.objects(docs), Options(workers=1, template="gpu-0000"))
    opt = ans.optimal
    assert opt["nodes"] is None and opt["proven"] and opt["lowerBound"] is None and opt["status"] == "INFEASIBLE"
    assert "no number of added nodes like the template holds the demand" in opt["note"]
    assert ans.detail["countsTried"] == [0] and ans.first_fit["nodes"] is None


def test_progress_tells_each_count_with_the_bounds() -> None:
    seen: list[tuple[str, str]] = []
    ans = answer("add-nodes", gen.objects(gang_docs()),
                 Options(workers=1, template="gpu-0000", progress=lambda step, done=None, total=None, note="":
                         seen.append((step, note))))
    counts = [note for step, note in seen if step == "add-nodes (optimal): count"]
    assert counts == ["0 added? (nodes needed >= 0, none found yet)", "4 added? (nodes needed >= 4, none found yet)"]
    assert ans.optimal["nodes"] == 4
    assert ("first-fit with 4 added: pods simulated", "") in seen      # the simulation, from the bound up


def test_least_count_of_one_cut_is_exact() -> None:
    """The bound of one cut with k added nodes is A + (base - 1 + k) v: the
    fewest k reaching the demand's weight, exactly at the boundary."""
    objs = gen.objects(gang_docs())
    grower = Grower(objs, unit_from(objs, None, "gpu-0000"))
    demand = pods_demand(objs)
    items = grow.applies(grower.with_k(1), demand)
    assert not isinstance(items, str)
    model = grow.Counted(grower.with_k(1), demand, F, items, "gpu-0000-added-0000", 1)
    assert model.fits(0, 10.0) is False and model.lower == 4     # 5 pods, 1 per node, 1 node there
    for cut in model.cuts:
        assert model._least(cut) <= 4
