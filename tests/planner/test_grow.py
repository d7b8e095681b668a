"""Adding capacity for mixed demand and gangs: add-nodes with a node or a
multi-host block as the unit, and fit with N added copies (what if)."""

from __future__ import annotations

from typing import Any

import pytest

from dralloc.errors import InputError
from dralloc.planner.api import Options, answer
from dralloc.planner.generate import clusters as gen
from dralloc.planner.generate.tpu import slice_demand, tpu_block, tpu_class, tpu_cluster
from dralloc.planner.questions.grow import Unit
from tests.planner.aicluster import ai_cluster, aligned, gpu_nic_node, pod


def test_a_block_copy_renames_its_hosts_everywhere() -> None:
    block = gen.objects(tpu_block("blk"))
    [host, *_] = Unit(block.nodes, block.slices).copy(3)
    assert host.name == "blk-host-0-added-0003"
    objs = Unit(block.nodes, block.slices).copy(0)
    devices = next(o for o in objs if getattr(o, "kind", "") == "ResourceSlice" and o.spec.devices).spec.devices
    assert devices[-1].node_name == "blk-host-3-added-0000"                       # a 2x2 on one host
    assert devices[1].node_selector.node_selector_terms[0].match_expressions[0].values == [
        "blk-host-0-added-0000", "blk-host-1-added-0000"]                          # a 2x4 over two hosts
    counters = next(o for o in objs if getattr(o, "kind", "") == "ResourceSlice" and o.spec.shared_counters)
    assert sorted(counters.spec.shared_counters[0].counters)[0] == "tpus-blk-host-0-added-0000"
    assert counters.spec.pool.name == "blk-added-0000"


def test_add_nodes_with_a_tpu_block_as_the_unit() -> None:
    """One block holds one 4x4 slice; three 4x4 slices on one block need two more blocks."""
    docs = [*tpu_cluster(1), *[d for i in range(3) for d in slice_demand(f"s{i}", "4x4")]]
    tmpl = gen.objects([tpu_class(), *tpu_block("tmpl")])
    ans = answer("add-nodes", gen.objects(docs), Options(workers=1, template="tmpl-host-0"), tmpl)
    assert ans.optimal["nodes"] == 2 and ans.first_fit["nodes"] == 2
    assert ans.detail["template"].startswith("block of 4 nodes")


def gpu_docs() -> list[dict[str, Any]]:
    return [*gen.device_classes(), *gpu_nic_node("a"), aligned("train", 8),
            pod("job", ["train"], replicas=3, gang="job")]


def test_fit_with_added_nodes_answers_what_if() -> None:
    """A gang of three 8-GPU pods does not fit on one node; with two more like it, it does."""
    assert answer("fit", gen.objects(gpu_docs()), Options(workers=1)).optimal["gangs"] == 0
    ans = answer("fit", gen.objects(gpu_docs()), Options(workers=1, template="a", add=2))
    assert ans.first_fit["gangs"] == ans.optimal["gangs"] == 1 and ans.detail["nodes"] == 3
    assert set(ans.detail["placement"].values()) == {"a", "a-added-0000", "a-added-0001"}


def test_add_nodes_for_a_gang() -> None:
    """Counted in the configuration model: the added type's count is a knob."""
    ans = answer("add-nodes", gen.objects(gpu_docs()), Options(workers=1, template="a"))
    assert ans.first_fit["nodes"] == ans.optimal["nodes"] == 2
    assert ans.optimal["model"] == "mixed" and ans.optimal["proven"]


def test_a_node_type_that_cannot_help_is_proven_useless() -> None:
    """MIG pods on a cluster of whole-GPU nodes: no number of added GPU
    nodes helps, and the bound says so at once (no copies built)."""
    docs = [*ai_cluster(1, 1, 2), gen.mig_template(gen.gpu_model("a100-40gb").profile("1g.5gb")),
            pod("mig", ["mig-1g-5gb"], replicas=20, gang="g", min_count=1)]
    ans = answer("add-nodes", gen.objects(docs), Options(workers=1, template="gpu-0000"))
    assert ans.optimal["nodes"] is None and ans.optimal["proven"] and ans.first_fit["nodes"] is None
    assert "no number of added nodes like the template holds the demand" in ans.optimal["note"]
    assert ans.optimal["model"] == "mixed"


def test_add_is_for_fit_only() -> None:
    with pytest.raises(InputError, match="--add answers fit"):
        answer("add-nodes", gen.objects(gpu_docs()), Options(workers=1, template="a", add=1))
