"""CEL is total (issue 11): integer overflow, division and conversions as
cel-go reports them; no Python exception escapes the library, whatever the
arguments; every evaluation stops at the cost limit before it builds
something huge or runs a quadratic loop; nesting is refused with cel-go's
messages, and what is within the limits evaluates from any stack depth."""

from __future__ import annotations

import itertools
import random
import sys
from typing import Any

import pytest
from cel_helpers import gpu, run

from dralloc.cel import CELCompileError, CELRuntimeError, compile_selector
from dralloc.cel.cost import Env, metered
from dralloc.cel.errors import CELError
from dralloc.cel.interp import compile_node
from dralloc.cel.library import GLOBAL, MEMBER
from dralloc.cel.parse import parse
from dralloc.cel.values import Opt, UInt
from dralloc.errors import DrallocError

COST = "^operation cancelled: actual cost limit exceeded$"


# ------------------------------------------------------------ overflow and conversions
@pytest.mark.parametrize("expr,msg", [
    ("-9223372036854775808 % -1 == 0", "integer overflow"),
    ("-9223372036854775808 / -1 == 0", "integer overflow"),
    ("9223372036854775807 + 1 > 0", "integer overflow"),
    ("-9223372036854775808 - 1 < 0", "integer overflow"),
    ("-(-9223372036854775808) > 0", "integer overflow"),
    ("4611686018427387904 * 2 > 0", "integer overflow"),
    ("1 / 0 == 0", "division by zero"),
    ("1 % 0 == 0", "modulus by zero"),
    ("18446744073709551615u + 1u > 0u", "unsigned integer overflow"),
    ("0u - 1u > 0u", "unsigned integer overflow"),
    ("4294967296u * 4294967296u > 0u", "unsigned integer overflow"),
    ("1u / 0u == 0u", "division by zero"),
    ("1u % 0u == 0u", "modulus by zero"),
    ("[18446744073709551615u, 1u].sum() > 0u", "unsigned integer overflow"),
    ("[9223372036854775807, 1].sum() > 0", "integer overflow"),
    ("int(9223372036854775807.0) > 0", "integer overflow"),
    ("int(-9223372036854775808.0) < 0", "integer overflow"),
    ('int(double("NaN")) == 0', "integer overflow"),
    ('int(double("inf")) == 0', "integer overflow"),
    ("int(18446744073709551615u) > 0", "integer overflow"),
    ("uint(-1) > 0u", "unsigned integer overflow"),
    ("uint(-0.5) == 0u", "unsigned integer overflow"),
    ("uint(18446744073709551616.0) > 0u", "unsigned integer overflow"),
    ('uint(double("inf")) > 0u', "unsigned integer overflow"),
    ('int(" 12") == 12', "type conversion error from 'string' to 'int'"),
    ('int("1_000") == 1000', "type conversion error from 'string' to 'int'"),
    ('int("\u0661") == 1', "type conversion error from 'string' to 'int'"),
    ('int("9223372036854775808") > 0', "type conversion error from 'string' to 'int'"),
    ('uint("+1") == 1u', "type conversion error from 'string' to 'uint'"),
    ('uint("18446744073709551616") > 0u', "type conversion error from 'string' to 'uint'"),
    ('double("1_0") > 0.0', "type conversion error from 'string' to 'double'"),
    ('double("1e400") > 0.0', "type conversion error from 'string' to 'double'"),
    ('double(" 1") > 0.0', "type conversion error from 'string' to 'double'"),
    ('bool("yes")', "type conversion error from 'string' to 'bool'"),
    (r'string(b"\xff") == ""', "invalid UTF-8 in bytes, cannot convert to string"),
])
def test_errors_as_cel_go_reports_them(expr: str, msg: str) -> None:
    with pytest.raises(CELRuntimeError, match=f"^{msg}$"):
        run(expr)


@pytest.mark.parametrize("expr", [
    "-9223372036854775807 % -1 == 0",
    "-7 % 2 == -1", "7 % -2 == 1", "-7 / 2 == -3",
    "9223372036854775807u + 1u == 9223372036854775808u",
    "int(-9223372036854774784.0) == -9223372036854774784",
    "int(1.9) == 1", "int(-1.9) == -1",
    "uint(18446744073709549568.0) == 18446744073709549568u",
    'int("+5") == 5', 'int("-0") == 0', 'int("0000000000000000000000000012") == 12',
    'uint("18446744073709551615") == 18446744073709551615u',
    'double("0x1p-2") == 0.25', 'double("-Infinity") < 0.0', 'double("1e-400") == 0.0',
    'double("nan") != double("nan")', 'double(".5") == 0.5',
    'bool("T") && bool("1") && !bool("F") && !bool("0")',
    "double(18446744073709551615u) == 18446744073709551616.0",
    "!!true", "--1 == 1",
])
def test_edge_values_as_cel_go(expr: str) -> None:
    assert run(expr) is True


# ------------------------------------------------------------ no Python exception escapes
def _value(expr: str) -> Any:
    return compile_node(parse(expr))(Env({}))


POOL: list[Any] = [
    0, 1, -1, 2**63 - 1, -(2**63), UInt(0), UInt(2**64 - 1), 0.0, -0.0, 1.5, float("inf"), float("-inf"),
    float("nan"), 1e308, True, False, None, "", "a", "é😀", "\ud800", "%s %d %f %e %x %o %b %X", "%.3", "1",
    "-5", "1e5", "0x1F", "10.0.0.1", "1.2.3", "1s", "2020-01-01T00:00:00Z", b"", b"\xff\xfe", b"abc", [],
    [1, 2], ["a", "b"], [1, "a"], [[1], [2]], [None], [1.5, 2.5], [UInt(1)], {}, {"a": 1}, {1: "x"},
    Opt(None, False), Opt(1),
]
SNIPPETS = ['quantity("1Gi")', 'quantity("-1.5")', 'quantity("1e1000")', 'semver("1.2.3-rc.1+b")',
            'timestamp("2020-01-01T00:00:00Z")', 'duration("-1h30m")', 'ip("10.0.0.1")', 'ip("::1")',
            'cidr("10.0.0.0/8")', 'url("https://u:p@x.com:80/a?b=c#d")', "format.dns1123Label()", "int"]


@pytest.mark.parametrize("seed", range(3))
def test_library_raises_only_cel_errors(seed: int) -> None:
    rng = random.Random(seed)
    pool = POOL + [_value(s) for s in SNIPPETS]
    for name, fn in sorted({**MEMBER, **GLOBAL}.items()):
        calls = [()] + [(v,) for v in pool]
        calls += [tuple(rng.choice(pool) for _ in range(n)) for n in (2, 3) for _ in range(60)]
        for args in calls:
            try:
                with metered(Env({})):
                    fn(*args)
            except (CELError, DrallocError):
                pass
            except Exception as e:  # noqa: BLE001 - the point of the test
                pytest.fail(f"{name}{tuple(repr(a)[:30] for a in args)} raised {type(e).__name__}: {e}")


@pytest.mark.parametrize("expr", [
    "{1: 2}[[1]] == 2", "[1] in {1: 2}", "[1] in device.attributes", "dyn() == 1", "type() == int",
    'optional.of() == optional.none()', 'quantity("1").add() == quantity("1")', '"a".indexOf() == 0',
    "optional.none().orValue() == 1", r'"\ud800".matches(".")', r'bytes("\ud800") == b""',
    'quantity("1e1000").asApproximateFloat() > 0.0', "[1, 2].sort()[5] == 1",
])
def test_odd_calls_are_cel_errors_or_answers(expr: str) -> None:
    try:
        run(expr)
    except CELError:
        pass


# ------------------------------------------------------------ cost bounds time and memory
def _bind_doubling(seed: str, times: int, body: str) -> str:
    return f"cel.bind(a, {seed}, " + "cel.bind(a, [a, a], " * times + body + ")" * (times + 1)


S = '"' + "x" * 64 + '"'
BIG_STRING = f"cel.bind(s, {S}, " + "cel.bind(s, s + s + s + s + s + s + s + s, " * 5
END = ")" * 6


@pytest.mark.parametrize("expr", [
    _bind_doubling("[1, 1]", 40, "a == a"),                       # equality over a shared-element tree
    _bind_doubling("[1, 1]", 40, "a.flatten(40).size() > 0"),     # flattening it
    _bind_doubling("[1, 1]", 40, '"%s".format([a]) != ""'),       # formatting it
    _bind_doubling("[1, 1]", 40, "[a, a].distinct().size() > 0"),
    _bind_doubling("[1, 1]", 40, "a in [a]"),
    BIG_STRING + "lists.range(1000).map(i, s).join().size() > 0" + END,
    BIG_STRING + 's.split("").size() > 0' + END,
    BIG_STRING + 's.findAll("").size() > 0' + END,
    BIG_STRING + 's.replace("", s).size() > 0' + END,
    BIG_STRING + "lists.range(1000).all(i, s == s + string(i))" + END,
    BIG_STRING + 'lists.range(1000).all(i, s.contains("y"))' + END,
    "sets.contains(lists.range(5000).map(i, [i]), lists.range(5000).map(i, [i]))",
    "lists.range(200000).sort().size() > 0",
    "lists.range(200000).sortBy(i, -i).size() > 0",
    "lists.range(1000).all(i, [" + ", ".join(["i"] * 2000) + "].size() > 0)",
])
def test_growth_stops_at_the_cost_limit(expr: str) -> None:
    with pytest.raises(CELRuntimeError, match=COST):
        run(expr)


def test_within_the_limit_is_still_answered() -> None:
    assert run("lists.range(20000).distinct().size() == 20000")
    assert run('lists.range(2000).map(i, "x").join().size() == 2000')
    assert run(_bind_doubling("[1, 1]", 8, "a == a"))


# ------------------------------------------------------------ nesting
@pytest.mark.parametrize("expr,msg", [
    ("(" * 260 + "true" + ")" * 260, "expression recursion limit exceeded: 250"),
    ("size(" + "[" * 260 + "]" * 260 + ") == 1", "expression recursion limit exceeded: 250"),
    ("+".join(["1"] * 300) + " > 0", "max recursion depth exceeded"),
    ("[1]" + "[0]" * 300 + " == 1", "max recursion depth exceeded"),
    ("device" + ".driver" * 300 + " == 1", "max recursion depth exceeded"),
])
def test_deep_nesting_is_refused_as_cel_go_does(expr: str, msg: str) -> None:
    with pytest.raises(CELCompileError, match=f"^ERROR: <input>:-1:0: {msg}"):
        compile_selector(expr)


DEEP_OK = [
    "(" * 240 + "true" + ")" * 240,
    "size(" + "[" * 240 + "]" * 240 + ") == 1",
    "+".join(["1"] * 240) + " > 0",
    " || ".join(["false"] * 1100) + " || true",
    "!" * 3000 + "true",
    "".join(f"cel.bind(x{i}, {i}, " for i in range(200)) + "x199 == 199" + ")" * 200,
    "[" * 120 + "1" + "]" * 120 + " == " + "[" * 120 + "1" + "]" * 120,
]


def _at_depth(frames: int, fn: Any) -> Any:
    return fn() if frames <= 0 else _at_depth(frames - 1, fn)


@pytest.mark.parametrize("expr", DEEP_OK, ids=range(len(DEEP_OK)))
def test_nesting_within_the_limits_works_from_a_deep_stack(expr: str) -> None:
    compile_selector.__globals__["_selectors"].pop(expr, None)   # compile it here, deep down
    depth = max(0, sys.getrecursionlimit() - 150)
    assert _at_depth(depth, lambda: compile_selector(expr).evaluate(gpu())) is True


def test_combinations_of_operators_stay_cel_errors() -> None:
    ops = ["+", "-", "*", "/", "%", "==", "<", "in", "&&", "||"]
    vals = ["1", "1u", "1.0", '"a"', "[1]", "{1: 1}", "null", "true", 'quantity("1")', "optional.of(1)"]
    for a, op, b in itertools.product(vals, ops, vals):
        try:
            compile_selector(f"dyn({a}) {op} dyn({b}) == dyn(true)").evaluate(gpu())
        except CELError:
            pass
