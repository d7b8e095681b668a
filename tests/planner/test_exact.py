"""The aggregated answer is exact: it equals a monolithic CP-SAT model with
one boolean per (device, claim type) on an 80-GPU instance, and it is never
below first-fit; the fast first-fit simulation equals the replay engine run
pod by pod."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from ortools.sat.python import cp_model

from dralloc.features import Features
from dralloc.planner.questions import pattern as q
from dralloc.planner.simulate.firstfit import simulate
from dralloc.planner.simulate.replaysim import simulate_replay
from dralloc.planner.view.cluster import DEFAULT_GATES, Cluster
from dralloc.planner.view.demand import demand_from
from tests.planner.helpers import cluster

PROFILES = ["1g.5gb", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"]


def monolithic(c: Cluster) -> int:
    """Max weighted pods, device by device (no layouts, no grouping)."""
    m = cp_model.CpModel()
    demand: dict[tuple[int, int], int] = {}
    for w in c.demand.workloads:
        demand[w.type, w.priority] = demand.get((w.type, w.priority), 0) + w.replicas
    weights: dict[int, int] = {}     # one more pod of a priority outweighs every pod below it
    below = 0
    for level in sorted({p for _, p in demand}):
        weights[level] = below + 1
        below += weights[level] * sum(n for (_, p), n in demand.items() if p == level)
    take: dict[tuple[int, int], list[cp_model.IntVar]] = {key: [] for key in demand}
    for ui, u in enumerate(c.units):
        ut = c.types[u.type]
        used = [0] * len(ut.caps)
        for di, (use, kind) in enumerate(ut.devices):
            mine = [m.new_bool_var(f"a{ui}_{di}_{t}_{p}") for (t, p) in demand if t in c.kinds[kind][0]]
            keys = [(t, p) for (t, p) in demand if t in c.kinds[kind][0]]
            if not mine:
                continue
            m.add(sum(mine) <= 1)
            for key, v in zip(keys, mine, strict=True):
                take[key].append(v)
            used = [a + b * sum(mine) for a, b in zip(used, use, strict=True)]
        for expr, cap in zip(used, ut.caps, strict=True):
            if not isinstance(expr, int):
                m.add(expr <= cap)
    for key, vs in take.items():
        m.add(sum(vs) <= demand[key])
    m.maximize(sum(weights[p] * sum(vs) for (_, p), vs in take.items()))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 2
    assert solver.solve(m) == cp_model.OPTIMAL
    return round(solver.objective_value)   # CP-SAT may report 13.999999999999998 for 14


def test_eighty_gpus_equal_monolithic_optimum():
    spec = [("1g.5gb", 160, 2), ("2g.10gb", 70, 1), ("3g.20gb", 40, 1), ("4g.20gb", 25, 0),
            ("7g.40gb", 10, 3), ("1g.10gb", 30, 0)]
    _, c = cluster(10, 8, spec)
    assert len(c.units) == 80 and len(c.types) == 1
    a = q.fit(c)
    assert a.optimal["proven"]
    assert a.optimal["objective"] == monolithic(c)
    assert a.optimal["objective"] >= a.first_fit["weighted"]


# one demand entry per profile: the helper names claims after their profile, so
# two entries of one profile would be two claim types with one name
demands = st.lists(st.tuples(st.sampled_from(PROFILES), st.integers(1, 6), st.integers(0, 2)),
                   min_size=1, max_size=4, unique_by=lambda t: t[0])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nodes=st.integers(1, 3), gpus=st.integers(1, 2), spec=demands,
       policy=st.sampled_from(["first", "most", "least"]))
# CP-SAT reported this objective (14) as 13.999999999999998: objectives are rounded, never truncated
@example(nodes=1, gpus=1, spec=[("2g.10gb", 2, 1), ("4g.20gb", 6, 0)], policy="first")
def test_optimal_never_below_first_fit_and_matches_monolithic(nodes, gpus, spec, policy):
    _, c = cluster(nodes, gpus, spec, PROFILES)
    a = q.fit(c, policy=policy)
    assert a.optimal["objective"] >= a.first_fit["weighted"]
    assert a.optimal["pods"] >= a.first_fit["pods"] or a.optimal["objective"] > a.first_fit["weighted"]
    assert a.optimal["objective"] == monolithic(c)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nodes=st.integers(1, 3), gpus=st.integers(1, 2), spec=demands)
def test_fast_first_fit_equals_replay_pod_by_pod(nodes, gpus, spec):
    objs, c = cluster(nodes, gpus, spec, PROFILES)
    fast = simulate(c)
    slow = simulate_replay(objs, demand_from(objs), Features.from_gates(DEFAULT_GATES))
    assert [(p.workload, p.node, p.device) for p in fast.placed] == \
           [(p.workload, p.node, p.device) for p in slow.placed]
