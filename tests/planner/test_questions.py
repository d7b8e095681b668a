"""fit, add-nodes and layout on cases small enough to check by hand.

On an A100-40GB a 4g.20gb partition can only start at memory slice 0 and a
1g.5gb at slices 0..6; first-fit takes the first free placement in device
order, so a 1g allocated first sits on slice 0 and blocks every 4g."""

from dralloc.planner.questions import pattern as q
from tests.planner.helpers import cluster

MIG = ["1g.5gb", "4g.20gb", "3g.20gb"]


def test_fit_one_gpu_first_fit_blocks_the_4g_optimal_places_both():
    # queue: the 1g (priority 1) then the 4g; one GPU
    _, c = cluster(1, 1, [("1g.5gb", 1, 1), ("4g.20gb", 1, 0)], MIG)
    a = q.fit(c)
    assert a.first_fit["pods"] == 1          # 1g on slice 0, then no 4g placement is left
    assert a.optimal["pods"] == 2            # 4g on slices 0-3, 1g on slice 4
    assert a.optimal["proven"] is True
    assert a.gap == 1


def test_fit_priority_wins_over_count():
    # one GPU: either one 7g-sized 4g+3g pair, or ... keep it simple: 3 x 3g asked, 2 fit;
    # the higher-priority 3g pods are served first
    _, c = cluster(1, 1, [("3g.20gb", 1, 5), ("3g.20gb", 2, 0)], MIG)
    a = q.fit(c)
    assert a.optimal["pods"] == 2
    per = a.optimal["perGroup"]
    assert per["default/mig-3g-20gb@5"] == 1 and per["default/mig-3g-20gb@0"] == 1


def test_add_nodes_first_fit_needs_two_optimal_one():
    # one 1-GPU node; queue: 2 x 1g then 2 x 4g.
    # first-fit: 1g on slices 0,1 of node 0 -> each 4g needs a fresh GPU: 2 nodes added.
    # optimal: node 0 holds 4g (0-3) + 1g (4) + 1g (5); the other 4g needs 1 node.
    _, c = cluster(1, 1, [("1g.5gb", 2, 1), ("4g.20gb", 2, 0)], MIG)
    a = q.add_nodes(c, "node-0000")
    assert a.first_fit["nodes"] == 2
    assert a.optimal["nodes"] == 1
    assert a.optimal["proven"] is True
    assert a.gap == 1


def test_add_nodes_zero_when_it_already_fits():
    _, c = cluster(1, 1, [("3g.20gb", 2, 0)], MIG)
    a = q.add_nodes(c, "node-0000")
    assert a.first_fit["nodes"] == 0 and a.optimal["nodes"] == 0


def test_layout_fewest_gpus_with_concrete_devices():
    # three GPUs; 2 x 1g then 2 x 4g: first-fit touches 3 GPUs, optimal needs 2:
    # {4g, 1g, 1g} and {4g}
    _, c = cluster(1, 3, [("1g.5gb", 2, 1), ("4g.20gb", 2, 0)], MIG)
    a = q.layout(c)
    assert a.first_fit["units"] == 3 and a.first_fit["allPlaced"] is True
    assert a.optimal["units"] == 2
    assert a.gap == 1
    rows = a.detail["assignment"]
    assert sorted(tuple(sorted(r["partitions"].items())) for r in rows) == [
        (("1g.5gb", 2), ("4g.20gb", 1)), (("4g.20gb", 1),)]
    for r in rows:   # the devices named realise the partitions, on distinct memory slices
        assert len(r["devices"]) == sum(r["partitions"].values())
        assert all(d.startswith("gpu.nvidia.com/node-0000/gpu-") for d in r["devices"])


def test_layout_reports_a_demand_that_cannot_fit():
    _, c = cluster(1, 1, [("4g.20gb", 2, 0)], MIG)
    a = q.layout(c)
    assert a.optimal["units"] is None and "does not fit" in a.optimal["note"]
    assert a.first_fit["allPlaced"] is False
