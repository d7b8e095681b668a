"""Every CP-SAT search has a time limit and says when it stopped (issue 11):
first-fit, optimal, explain, the audit's joint placement and the planner's
pattern model. A limit of a nanosecond stops CP-SAT before it decides
anything (measured: every time, even on a one-literal model)."""

from __future__ import annotations

from dralloc.audit.joint import Group, place_jointly
from dralloc.features import Features
from dralloc.inventory.problem import build_problem
from dralloc.io import ObjectSet
from dralloc.models import Node, ObjectMeta
from dralloc.planner.pattern.layouts import Layout
from dralloc.planner.pattern.model import Group as PatternGroup
from dralloc.planner.pattern.model import PatternModel, Supply
from dralloc.planner.questions.pattern import _opt
from dralloc.solver import Status, allocate
from dralloc.solver.cpsat import _params
from dralloc.solver.explain import explain
from dralloc.solver.limits import DEFAULT_TIME_LIMIT, limit_or_default
from tests.solver.test_cpsat import _claim, trap

GATES = ["DRAPartitionableDevices"]
NOW = 1e-9


def test_first_fit_says_it_stopped_and_compares_nothing() -> None:
    objs, claim = trap(8)
    out = allocate(objs, "node-1", [claim], allocated=[], features=GATES, mode="first-fit", time_limit=NOW)
    assert out.status is Status.ERROR
    assert out.error is not None and "stopped at its time limit" in out.error
    assert not out.defects and not out.notes


def test_optimal_says_it_stopped() -> None:
    objs, claim = trap(8)
    out = allocate(objs, "node-1", [claim], allocated=[], features=GATES, mode="optimal", time_limit=NOW)
    assert out.status is Status.ERROR
    assert out.error is not None and "stopped at its time limit" in out.error


def test_optimal_with_time_returns_a_proven_answer() -> None:
    objs, claim = trap(8)
    out = allocate(objs, "node-1", [claim], allocated=[], features=GATES, mode="optimal")
    assert out.status is Status.ALLOCATED
    assert all(r["status"] == "OPTIMAL" for r in out.solver["objectives"])  # type: ignore[attr-defined]
    assert not any("time limit" in n for n in out.notes)


def test_explain_says_it_stopped() -> None:
    objs, _ = trap(8)
    claim = _claim(8)   # all eight devices: the counter cannot hold them
    os = ObjectSet()
    for o in objs:
        os.add(o)
    node = Node(metadata=ObjectMeta(name="node-1"))
    problem = build_problem(os.slices, os.classes, node, [claim], [], Features.from_gates(GATES))
    assert any("minimal conflicting set" in line for line in explain(problem))
    lines = explain(problem, time_limit=NOW)
    assert any("stopped at its time limit" in line for line in lines), lines


def test_joint_placement_says_it_stopped() -> None:
    objs, claim = trap(4)
    os = ObjectSet()
    for o in objs:
        os.add(o)
    node = Node(metadata=ObjectMeta(name="node-1"))
    res = place_jointly(os, [Group("pod", (claim,), (node,))], [], Features.from_gates(GATES), time_limit=NOW)
    assert res.status == "UNKNOWN"
    assert any("stopped at its time limit" in n for n in res.notes)


def test_pattern_model_says_it_stopped() -> None:
    model = PatternModel([Supply("gpu", (Layout(((0, 2),), (0, 1)),), 3)], [PatternGroup("pods", frozenset({0}), 5)])
    model.fit()
    res = model.solve(NOW)
    assert res.status == "UNKNOWN"
    assert "stopped at its time limit" in str(_opt(res, NOW)["stopped"])


def test_no_search_without_a_limit() -> None:
    assert limit_or_default(None) == DEFAULT_TIME_LIMIT
    assert _params(True, limit_or_default(None)).parameters.max_time_in_seconds == DEFAULT_TIME_LIMIT


def test_one_default_per_command_in_help_docs_and_code() -> None:
    """dralloc/solver/limits.DEFAULTS is the one policy: every --help prints
    it, docs/engine.md's table states it, the engines fall back to it."""
    from pathlib import Path

    from dralloc.audit.analysis import JOINT_TIME_LIMIT
    from dralloc.cli.main import build_parser
    from dralloc.planner.general.parts import DEFAULT_TIME_LIMIT as PLAN_PART
    from dralloc.solver.compare import DEFAULT_COMPARE_SECONDS
    from dralloc.solver.limits import DEFAULTS
    from dralloc.solver.replay_run import DEFAULT_REPLAY_SECONDS

    options = [("allocate", "--time-limit", "allocate"), ("explain", "--time-limit", "explain"),
               ("plan", "--time-limit", "plan"), ("availability", "--time-limit", "availability"),
               ("allocate", "--compare-time-limit", "compare"), ("check", "--compare-time-limit", "compare"),
               ("check", "--time-limit", "check")]
    for command, option, key in options:
        sub = build_parser([command])._subparsers._group_actions[0].choices[command]  # type: ignore[union-attr]
        action = next(a for a in sub._actions if option in a.option_strings)
        assert f"(default: {DEFAULTS[key]:g} s)" in str(action.help), (command, option, action.help)
        assert action.default in (None, DEFAULTS[key])
    docs = (Path(__file__).resolve().parents[2] / "docs" / "engine.md").read_text()
    for command in ("allocate", "explain", "plan", "verify", "availability", "check"):
        assert f"| `dralloc {command}` | {DEFAULTS[command]:g} s |" in docs, command
    assert f"| `--compare-time-limit` | {DEFAULTS['compare']:g} s |" in docs
    assert DEFAULT_TIME_LIMIT == DEFAULT_REPLAY_SECONDS == DEFAULTS["allocate"]
    assert PLAN_PART == DEFAULTS["plan"] and JOINT_TIME_LIMIT == DEFAULTS["verify"]
    assert DEFAULT_COMPARE_SECONDS == DEFAULTS["compare"]
