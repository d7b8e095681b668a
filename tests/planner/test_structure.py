"""Independent parts are solved apart and identical nodes grouped, without
changing the answer."""

from dralloc.planner.generate import clusters as gen
from dralloc.planner.pattern.structure import components
from dralloc.planner.questions import pattern as q
from dralloc.planner.view.cluster import build_cluster
from dralloc.planner.view.demand import demand_from
from tests.planner.helpers import workloads


def _objs():
    docs = gen.cluster(3, "a100-40gb", 1, nics=2, profiles=["1g.5gb", "3g.20gb"])
    docs += workloads([("3g.20gb", 5, 0)])
    docs.append(gen.claim_template("nic", "efa.networking.k8s.aws"))
    docs.append(gen.workload("net", ["nic"], 9, 0))
    return gen.objects(docs)


def test_gpu_and_nic_demand_are_two_components_with_exact_answers():
    objs = _objs()
    c = build_cluster(objs, demand_from(objs))
    gs = q.groups(c)
    sup = q.supplies(c, frozenset(k for g in gs for k in g.kinds))
    assert len(components(sup, gs)) == 2
    a = q.fit(c)
    per = a.optimal["perGroup"]
    assert per["default/nic@0"] == 6            # 3 nodes x 2 NICs
    assert per["default/mig-3g-20gb@0"] == 5     # 3 GPUs x two 3g (placements 0 and 4), 5 asked
    assert a.first_fit["pods"] == 11 and a.optimal["pods"] == 11


def test_identical_nodes_share_unit_types_but_keep_their_device_names():
    objs = _objs()
    c = build_cluster(objs, demand_from(objs))
    assert len(c.nodes) == 3
    gpus = [next(c.units[u] for u in n.units if c.units[u].total) for n in c.nodes]   # units with counters
    assert len({u.type for u in gpus}) == 1
    names = [u.device_ids[0] for u in gpus]
    assert names == [f"gpu.nvidia.com/node-000{i}/gpu-0-mig-1g5gb-19-0" for i in range(3)]
