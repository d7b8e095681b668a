"""The cluster object against allocate() on clusters from `dralloc
generate` (whole-GPU nodes with aligned EFA NICs, DynamicMIG A100 and H100
nodes, TPU blocks with per-device node selection): random claims of the
shapes the drivers' examples use, committed as they come, in both allocator
variants the CLI and the planner select."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from typing import Any

import pytest

from dralloc.cluster import Cluster
from dralloc.features import DEFAULT_GATES, Features
from dralloc.io.loader import parse_object
from dralloc.models import ResourceClaim
from dralloc.planner.generate import clusters as gen
from dralloc.planner.generate import tpu
from dralloc.planner.generate.nodes import NodeType
from dralloc.planner.view.cluster import DEFAULT_GATES as PLANNER_GATES
from dralloc.solver import allocate

TYPES = [(NodeType("gpu", gpus=4, nics=2), 2), (NodeType("mig", gpus=2, profiles=("1g.5gb", "3g.20gb")), 1),
         (NodeType("mig", "h100-80gb-sxm5", gpus=1, name="h100"), 1), (NodeType("tpu"), 4)]


def _specs() -> list[dict[str, Any]]:
    mig = 'device.attributes["gpu.nvidia.com"].profile == "{}"'
    out = [gen.gpu_template("g1", 1)["spec"]["spec"], gen.gpu_template("g2n1", 2, 1)["spec"]["spec"],
           gen.claim_template("m1", "mig.nvidia.com", mig.format("1g.5gb"))["spec"]["spec"],
           gen.claim_template("m3", "mig.nvidia.com", mig.format("3g.20gb"))["spec"]["spec"],
           gen.claim_template("sm", "mig.nvidia.com",
                              'device.capacity["gpu.nvidia.com"].multiprocessors.isGreaterThan(quantity("20"))')
           ["spec"]["spec"],
           gen.claim_template("nic", "efa.networking.k8s.aws")["spec"]["spec"]]
    out += [tpu.slice_demand("t", topo)[0]["spec"] for topo in ("2x2", "2x4")]
    return out


def _ids() -> Callable[[], str]:
    n = itertools.count()
    return lambda: f"s{next(n)}"


def _claim(spec: dict[str, Any], name: str) -> ResourceClaim:
    obj = parse_object({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                        "metadata": {"name": name, "namespace": "default"}, "spec": spec})
    assert isinstance(obj, ResourceClaim)
    return obj


@pytest.mark.parametrize("gates", [DEFAULT_GATES, PLANNER_GATES], ids=["incubating", "stable"])
@pytest.mark.parametrize("seed", range(3))
def test_generated_cluster_answers_equal_allocate(gates: tuple[str, ...], seed: int) -> None:
    rng = random.Random(seed)
    cl = Cluster(gen.objects(gen.mixed_cluster(TYPES, seed=seed)), features=Features.from_gates(gates))
    specs, nodes = _specs(), [n.name for n in cl.nodes()]
    placed = 0
    for step in range(24):
        claims = [_claim(rng.choice(specs), f"c{step}-{i}") for i in range(rng.choice((1, 1, 2)))]
        mode = rng.choice(("replay", "first-fit"))
        fits = cl.fits(claims, limit=1) if step % 2 else []    # half the time where it fits
        node = fits[0][0].name if fits else rng.choice(nodes)
        mine = cl.allocate(node, claims, mode=mode, share_ids=_ids())
        whole = allocate(cl.objects(), node, claims, features=cl.features, mode=mode, share_ids=_ids())
        assert (mine.status, mine.error, [a.dump() for a in mine.allocations or []], mine.notes, mine.defects) == \
            (whole.status, whole.error, [a.dump() for a in whole.allocations or []], whole.notes, whole.defects)
        if mine.ok:
            cl.commit(mine, claims)
            placed += 1
    assert placed >= 6 and len(cl.allocated()) >= placed
