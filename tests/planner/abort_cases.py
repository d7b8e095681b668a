"""The three inputs with which ``dralloc plan`` aborted the process on
OR-Tools 9.15 (issue 21: ``Check failed: solution->size() ==
postsolve_mapping.size()``), made small: H100 nodes with two GPUs, a NIC per
GPU on its PCIe root and the 1g.10gb MIG profile; 2-GPU pods with aligned
NICs, 1-GPU pods and 1g.10gb pods. First-fit places the whole demand, so the
mixed planner's integer master got a hint that already met its target bound
and stopped on it -- with interleaved workers, the configuration that aborts.

``python -m tests.planner.abort_cases`` runs them all (a crash must not take
the test runner down, so tests/planner/test_no_abort.py runs this in a
subprocess) and prints one JSON line per case."""

from __future__ import annotations

import json
import sys
from typing import Any

from dralloc.features import Features
from dralloc.io import ObjectSet
from dralloc.models import ObjectMeta, ResourceClaim
from dralloc.planner.api import Options, answer
from dralloc.planner.generate import clusters as gen
from dralloc.planner.generate.demand import mig_template, workload
from dralloc.planner.generate.profiles import gpu_model
from dralloc.planner.questions.general import general_fit
from dralloc.planner.simulate.podsim import done
from dralloc.planner.view.cluster import DEFAULT_GATES
from dralloc.planner.view.pods import pods_demand
from dralloc.solver import allocate
from tests.planner.aicluster import aligned

F = Features.from_gates(DEFAULT_GATES)
MIG = mig_template(gpu_model("h100-80gb-sxm5").profile("1g.10gb"))


def cluster(nodes: int) -> ObjectSet:
    docs = gen.cluster(nodes, "h100-80gb-sxm5", 2, 2, profiles=["1g.10gb"], seed=1)
    return gen.objects([*docs, aligned("train", 2), aligned("infer", 1), MIG])


def add_demand(objs: ObjectSet, train: int, infer: int, mig: int) -> ObjectSet:
    for o in gen.objects([workload("train", ["train"], train), workload("infer", ["infer"], infer),
                          workload("mig", [MIG["metadata"]["name"]], mig)]).all():
        objs.add(o)
    return objs


def allocated_state(objs: ObjectSet, ones: int, migs: int) -> ObjectSet:
    """``ones`` 1-GPU claims then ``migs`` 1g.10gb claims allocated round
    robin over the nodes (each node left fragmented)."""
    tmpl = {t.metadata.name: t for t in objs.templates}
    held: list[ResourceClaim] = []
    for i in range(ones + migs):
        t = tmpl["infer"] if i < ones else tmpl[MIG["metadata"]["name"]]
        claim = ResourceClaim(metadata=ObjectMeta(name=f"run-{i}", namespace="default"), spec=t.spec.spec)
        res = allocate(objs, objs.nodes[i % len(objs.nodes)], [claim], allocated=held, features=F)
        assert res.ok and res.allocations, claim.metadata.name
        held.append(done(claim, res.allocations[0]))
    for c in held:
        objs.add(c)
    return objs


def cases() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    fit = answer("fit", add_demand(cluster(5), 2, 3, 14), Options())
    out["fit"] = {"demand": fit.detail["demand"], "firstFit": fit.first_fit["pods"], **fit.optimal}
    grown = answer("fit", add_demand(cluster(2), 2, 3, 14), Options(add=3, template="node-0000"))
    out["fit --add"] = {"demand": grown.detail["demand"], "firstFit": grown.first_fit["pods"], **grown.optimal}
    frag = answer("fragmentation", add_demand(allocated_state(cluster(5), 2, 6), 1, 2, 6), Options())
    out["fragmentation"] = {"firstFit": frag.first_fit["pods"], **frag.optimal}
    objs = add_demand(cluster(5), 2, 3, 14)   # the configuration model itself, not the shortcut
    demand = pods_demand(objs)
    greedy, opt = general_fit(objs, demand, F, model="mixed")
    out["mixed model"] = {"demand": demand.total(), "firstFit": sum(greedy.served.values()),
                          "pods": sum(opt.served.values()), "proven": opt.proven, "model": opt.model}
    return out


if __name__ == "__main__":
    for name, got in cases().items():
        print(json.dumps({"case": name, **{k: v for k, v in got.items() if isinstance(v, (int, str, bool, list))}}))
    sys.stdout.flush()
