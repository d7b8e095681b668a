"""What the pictures say (issue 22): identical nodes and GPUs are one row with
their count (identical gangs on identical nodes are one configuration), a
cut says what it leaves out and where everything is, each question's bars
carry its own labels (fragmentation: now against re-packed), counts that
span orders of magnitude get a log scale, the workloads that differ come
first."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from dralloc.planner.answer import Answer
from dralloc.planner.api import Options, answer
from dralloc.planner.generate import clusters as gen
from dralloc.planner.report import occupancy, plots
from dralloc.planner.report.grid import Row, aggregate
from tests.planner.aicluster import aligned, gpu_nic_node, pod

pytest.importorskip("matplotlib")


def test_identical_rows_are_one_with_their_count() -> None:
    rows = [Row("n1", ("a", "")), Row("n2", ("b", "")), Row("n3", ("a", "")), Row("n4", ("a", ""), (1,)),
            Row("n5", ("b", ""))]
    out = aggregate(rows)
    assert [(r.name, r.count) for r in out] == [("n1", 2), ("n2", 2), ("n4", 1)]   # most first, then input order
    assert out[0].label == "2 x like n1" and out[2].label == "n4"


def _gangs() -> tuple[Answer, list[Any]]:
    """Four one-GPU nodes, two gangs of two one-GPU pods: every node holds one pod."""
    docs = [d for i in range(4) for d in gpu_nic_node(f"node-{i}", gpus=1, roots=1)]
    docs += gen.device_classes() + [aligned("pair", 1), pod("gang-a", ["pair"], 2, gang="a"),
                                    pod("gang-b", ["pair"], 2, gang="b")]
    objs = gen.objects(docs)
    return answer("fit", objs, Options(workers=1, time_limit=20)), list(objs.nodes)


def test_identical_gangs_on_identical_nodes_are_one_configuration() -> None:
    ans, nodes = _gangs()
    src = ans.sources
    assert ans.optimal["gangs"] == 2
    by_template = occupancy.side_rows(nodes, src["slicesOf"], occupancy.owner_labels(src["optimal"], src["demand"],
                                                                                     "template"), one_each=False)
    assert [(r.count, sorted(set(r.cells) - {""})) for r in by_template] == [(4, ["pair"])]
    by_workload = occupancy.side_rows(nodes, src["slicesOf"], occupancy.owner_labels(src["optimal"], src["demand"]),
                                      one_each=False)
    assert sorted((r.count, tuple(sorted(set(r.cells) - {""}))) for r in by_workload) == [
        (2, ("gang-a",)), (2, ("gang-b",))]


def test_a_cut_says_what_is_left_out_and_where() -> None:
    full = [[Row("a", ("x",), count=5), Row("b", ("y",), count=3), Row("c", ("z",), count=2)], [Row("a", ("x",), count=10)]]
    shown = [full[0][:2], full[1]]
    note = occupancy.cut_note(full, shown, 10, one_each=False)
    assert note == ("Cut -- first-fit: 2 of 3 kinds of node (8 of 10 nodes). "
                    "Every pod's node: -o yaml, detail.placement.")
    assert occupancy.cut_note(full, full, 10, one_each=False) == ""


def test_the_nodes_picture_aggregates_past_its_row_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(occupancy, "MAX_ROWS", 2)
    ans, _ = _gangs()
    written = plots.write_all([ans], tmp_path / "g")
    assert [Path(p).name for p in written] == ["g-compare.png", "g-workloads.png", "g-nodes.png"]


@pytest.mark.parametrize("ff,opt,labels,what", [
    ({"unitsInUse": 5}, {"unitsInUse": 3}, ["now", "re-packed (optimal)"], "GPUs in use"),
    ({"pods": 4, "perWorkload": {}}, {"pods": 5, "podsAfterRepack": 7},
     ["now: first-fit (Kubernetes)", "now: optimal", "after a re-pack: optimal"], "pending pods placed"),
])
def test_fragmentation_is_now_against_re_packed(ff: dict[str, Any], opt: dict[str, Any], labels: list[str],
                                               what: str) -> None:
    got, bars = plots.headline(Answer("fragmentation", ff, opt))
    assert got == what and [b for b, _ in bars] == labels


def test_fit_in_the_objective_unit() -> None:
    a = Answer("fit", {"pods": 2, "gpus": "6/7"}, {"pods": 3, "gpus": 1},
               objective={"name": "gpus", "unit": "GPUs"})
    assert plots.headline(a) == ("GPUs placed", [("first-fit (Kubernetes)", "6/7"), ("optimal", 1)])
    assert plots.headline(Answer("fit", {"pods": 2}, {"pods": 3}))[0] == "pods placed"


def test_a_log_scale_when_counts_span_orders_of_magnitude() -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    assert plots._log_if_wide(ax, [Fraction(8000), Fraction(2), Fraction(0)]) and ax.get_yscale() == "log"
    fig2, ax2 = plt.subplots()
    assert not plots._log_if_wide(ax2, [Fraction(90), Fraction(1)]) and ax2.get_yscale() == "linear"
    plt.close(fig)
    plt.close(fig2)


def test_workloads_that_differ_come_first_and_alike_ones_are_one() -> None:
    ff = {"a": 5, "b": 0, "c": 9, "e": 5}
    opt = {"a": 5, "b": 4, "c": 10, "e": 5}
    asked = {"a": 5, "b": 4, "c": 20, "d": 1, "e": 5}
    assert plots.workload_order(ff, opt, asked) == [("b", 1), ("c", 1), ("a", 2), ("d", 1)]


def test_utilisation_of_many_nodes_is_a_histogram(tmp_path: Path) -> None:
    import matplotlib.pyplot as plt

    util = {f"n{i:03d}": Fraction(1) if i % 3 else Fraction(1, 2) for i in range(300)}
    fig, ax = plt.subplots()
    plots._histogram(ax, util)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["50%", "100%"]
    assert sorted(p.get_height() for p in ax.patches) == [100, 200]
    plt.close(fig)
    plots.utilisation({k: str(v) for k, v in util.items()}, tmp_path / "u.png")
    assert (tmp_path / "u.png").stat().st_size > 0
