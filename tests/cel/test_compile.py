"""Compile errors, limits, cost, hostile expressions."""

from __future__ import annotations

import pytest
from cel_helpers import run

from dralloc.cel import MAX_EXPRESSION_LENGTH, CELCompileError, CELRuntimeError, compile_selector


@pytest.mark.parametrize("expr,msg", [
    ("x", "ERROR: <input>:1:1: undeclared reference to 'x' (in container '')"),
    ("noSuchFunction(1)", "undeclared reference to 'noSuchFunction'"),
    ('device.driver.noSuchMethod()', "undeclared reference to 'noSuchMethod'"),
    ("device.nope", "undefined field 'nope'"),
    ('device.attributes["a"].b ==', "Syntax error"),
    ('device.driver', "must evaluate to bool or the unknown type, not string"),
    ('"abc"', "must evaluate to bool or the unknown type, not string"),
    ("1 + 2", "must evaluate to bool or the unknown type, not int"),
    ('device.driver == 1', "found no matching overload for '_==_'"),
    ('1 && true', "found no matching overload for '_&&_'"),
    ('quantity("1") < quantity("2")', "found no matching overload for '_<_'"),
    ('device.driver.x == 1', "does not support field selection"),
])
def test_compile_errors(expr: str, msg: str) -> None:
    with pytest.raises(CELCompileError) as e:
        compile_selector(expr)
    assert msg in str(e.value)


def test_dyn_result_compiles() -> None:
    assert compile_selector('device.attributes["a"].b').expression == 'device.attributes["a"].b'


def test_compile_is_cached_per_string() -> None:
    assert compile_selector("true") is compile_selector("true")
    with pytest.raises(CELCompileError):
        compile_selector("zzz")
    with pytest.raises(CELCompileError, match="undeclared reference"):
        compile_selector("zzz")


def test_length_limit() -> None:
    ok = "true" + " " * (MAX_EXPRESSION_LENGTH - 4)
    assert compile_selector(ok).evaluate is not None
    with pytest.raises(CELCompileError, match="too long"):
        compile_selector(ok + " ")


@pytest.mark.parametrize("expr", [
    "lists.range(1000).all(i, lists.range(1000).all(j, i + j >= 0))",
    "lists.range(2000000).size() > 0",
    'cel.bind(a, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", '
    + "cel.bind(a, a + a, " * 40 + "a.size() > 0" + ")" * 40 + ")",
    "cel.bind(a, [1, 2], " + "cel.bind(a, a + a, " * 40 + "a.size() > 0" + ")" * 40 + ")",
    "lists.range(1000).map(i, lists.range(1000)).size() > 0",
])
def test_cost_limit_stops_hostile_expressions(expr: str) -> None:
    with pytest.raises(CELRuntimeError, match="^operation cancelled: actual cost limit exceeded$"):
        run(expr)


def test_cheap_loops_stay_under_limit() -> None:
    assert run("lists.range(300).all(i, lists.range(300).all(j, i + j >= 0))") is True


@pytest.mark.parametrize("expr", [
    "(" * 3000 + "true" + ")" * 3000,
    "!" * 3000 + "true",
    "[" * 2000 + "1" + "]" * 2000 + " == []",
])
def test_deep_nesting_never_crashes(expr: str) -> None:
    try:
        assert run(expr) in (True, False)
    except (CELCompileError, CELRuntimeError):
        pass
