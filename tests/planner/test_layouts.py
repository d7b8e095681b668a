"""Layouts of one A100-40GB, checked against the MIG placement rules."""

from dralloc.planner.generate.clusters import cluster, objects
from dralloc.planner.pattern.layouts import enumerate_layouts
from dralloc.planner.view.cluster import build_cluster
from dralloc.planner.view.demand import Demand


def _layouts(profiles):
    # the full GPU published next to its partitions (the driver does so from Hopper on)
    objs = objects(cluster(1, "a100-40gb", 1, profiles=profiles, full_gpu=True))
    c = build_cluster(objs, Demand())
    assert len(c.types) == 1
    out = set()
    for lay in enumerate_layouts(c.types[0]):
        out.add(tuple(sorted((c.kinds[k][1], n) for k, n in lay.kinds)))
    return out


def test_a100_maximal_layouts_follow_memory_slice_placements():
    got = _layouts(["1g.5gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"])
    assert (("7g.40gb", 1),) in got
    assert (("3g.20gb", 1), ("4g.20gb", 1)) in got        # 4g at 0-3, 3g at 4-7
    assert (("3g.20gb", 2),) in got
    assert (("1g.5gb", 7),) in got                         # slice 7 only for 7g / double 1g
    assert (("1g.5gb", 1), ("2g.10gb", 3)) in got          # 2g at 0,2,4 and 1g at 6
    # 4g only starts at 0, so two never fit; eight 1g never fit
    assert not any(dict(lay).get("4g.20gb", 0) > 1 for lay in got)
    assert not any(dict(lay).get("1g.5gb", 0) > 7 for lay in got)
    assert (("gpu", 1),) in got                            # the full GPU excludes every partition
    assert len(got) == 13


def test_layouts_are_maximal_and_each_witness_fits():
    objs = objects(cluster(1, "a100-40gb", 1))
    c = build_cluster(objs, Demand())
    ut = c.types[0]
    lays = enumerate_layouts(ut)
    for lay in lays:
        used = [0] * len(ut.caps)
        for i in lay.witness:
            used = [a + b for a, b in zip(used, ut.devices[i][0], strict=True)]
        assert all(u <= cap for u, cap in zip(used, ut.caps, strict=True))
        assert sorted(ut.devices[i][1] for i in lay.witness) == sorted(k for k, n in lay.kinds for _ in range(n))
    # the +me profile exists once at most (one JPEG and one OFA engine)
    me = next(k for k, (_, label) in enumerate(c.kinds) if label == "1g.5gb+me")
    assert max(lay.count(me) for lay in lays) == 1
