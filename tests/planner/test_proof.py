"""What a planner answer claims (dralloc.solver.proof): proven when its
objective meets its bound -- CP-SAT's, or the floor of the LP bound --
whatever status the search ended with; "stopped at its time limit" only
when a search did reach it."""

from __future__ import annotations

import math
from fractions import Fraction

from dralloc.planner.api import Options, answer
from dralloc.planner.general.parts import GeneralResult
from dralloc.planner.questions.general import _opt
from dralloc.solver.proof import Proof, meets, optimum, proof
from tests.planner.abort_cases import add_demand, cluster


def test_an_answer_equal_to_the_floor_of_the_lp_bound_is_proven() -> None:
    """Column generation converges at LP 200/7 = 28.57...; the integer master
    reaches 28 = floor(200/7) (and stops there, at its target): proven."""
    ans = answer("fit", add_demand(cluster(6), 3, 8, 20), Options())
    lp = Fraction(ans.detail["bound"])
    assert ans.detail["lpConverged"] is True and lp.denominator > 1
    assert ans.optimal["objective"] == math.floor(lp) == ans.optimal["bound"] == 28
    assert ans.optimal["proven"] is True and ans.optimal["status"] == "OPTIMAL"
    assert "stopped" not in ans.optimal


def test_proven_by_the_bound_whatever_the_status() -> None:
    for status in ("FEASIBLE", "UNKNOWN"):
        out = _opt(GeneralResult(status=status, value=28, bound=28, why="stopped"), None)
        assert out["proven"] is True and out["status"] == "OPTIMAL" and "stopped" not in out


def test_a_finished_search_below_its_bound_is_not_said_to_have_stopped() -> None:
    """The planner's master is optimal over the configurations found in 9.7 s
    of a 120 s limit, under the LP bound: not proven, and no "stopped"."""
    out = _opt(GeneralResult(status="FEASIBLE", value=20, bound=28, seconds=9.7), 120.0)
    assert out["proven"] is False and out["status"] == "FEASIBLE" and "stopped" not in out
    stopped = _opt(GeneralResult(status="FEASIBLE", value=20, bound=28, why="time limit"), 120.0)
    assert stopped["stopped"] == "CP-SAT stopped at its time limit (120 s) before proving the optimum"
    assert _opt(GeneralResult(status="FEASIBLE", value=20, bound=28, why="time limit"), None)["stopped"] == \
        "CP-SAT stopped at its time limit (20 s) before proving the optimum"   # plan's default


def test_the_words() -> None:
    assert meets(5, 5) and meets(6, 5) and not meets(4, 5)
    assert meets(3, 3, maximize=False) and not meets(4, 3, maximize=False)   # fewest units: a lower bound
    assert proof(5, 5) is Proof.PROVEN and str(Proof.PROVEN) == "proven"
    assert proof(4, 5, why="time limit") is Proof.STOPPED and str(Proof.STOPPED) == "stopped at its time limit"
    assert proof(4, 5) is Proof.NOT_PROVEN and proof(None, 5) is Proof.NOT_DECIDED
    assert optimum(None, 5, "UNKNOWN", why="time limit", limit=2.0)["stopped"] == \
        "CP-SAT stopped at its time limit (2 s) without an answer"
