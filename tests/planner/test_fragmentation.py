"""Stranded capacity, utilisation as cluster-autoscaler computes it for DRA,
and the optimal re-pack, on a state made by first-fit."""

from fractions import Fraction

from dralloc.features import Features
from dralloc.planner.api import without_allocations
from dralloc.planner.questions.fragmentation import fragmentation, node_utilisation
from dralloc.planner.simulate.replaysim import simulate_replay
from dralloc.planner.view.cluster import DEFAULT_GATES, build_cluster
from dralloc.planner.view.demand import Demand, demand_from
from tests.planner.helpers import objects


def _state(spec, gpus=2, profiles=("1g.5gb", "4g.20gb")):
    objs = objects(1, gpus, spec, list(profiles))
    placed = simulate_replay(objs, demand_from(objs), Features.from_gates(DEFAULT_GATES))
    for c in placed.claims:
        objs.add(c)
    objs.pods.clear()
    return objs


def test_stranded_slice_and_repack_frees_a_gpu():
    # first-fit: the 1g lands on GPU 0 slice 0, so the 4g goes to GPU 1
    objs = _state([("1g.5gb", 1, 1), ("4g.20gb", 1, 0)])
    state = build_cluster(objs, Demand())
    empty = build_cluster(without_allocations(objs), Demand())
    a = fragmentation(state, empty)
    assert a.first_fit["unitsInUse"] == 2
    assert a.optimal["units"] == 1 and a.optimal["proven"]   # 4g on 0-3 and 1g on 4 share a GPU
    assert a.gap == 1
    gpu0, gpu1 = a.detail["units"]
    # with only 1g and 4g published, memory slice 7 can serve no partition that still fits
    assert gpu0["stranded"]["0/memory-slice-7"] == 1
    assert gpu1["stranded"]["0/memory-slice-7"] == 1
    assert gpu0["largestAllocatable"] == "1g.5gb"
    assert gpu0["free"]["0/memory-slice-0"] == 0 and gpu0["free"]["0/memory-slice-1"] == 1


def test_autoscaler_utilisation_is_the_busiest_counter():
    idle = build_cluster(objects(1, 2, [], ["1g.5gb"]), Demand())
    assert node_utilisation(idle) == {"node-0000": Fraction(0)}
    one = build_cluster(_state([("1g.5gb", 1, 0)], profiles=("1g.5gb",)), Demand())
    # a single 1g takes a whole memory-slice counter: the pool counts as fully used
    assert node_utilisation(one) == {"node-0000": Fraction(1)}
