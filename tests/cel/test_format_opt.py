"""string.format (cel-go ext strings v2, en_US), string(double), optMap/optFlatMap."""

from __future__ import annotations

import pytest
from cel_helpers import gpu, run

from dralloc.cel import CELCompileError, CELRuntimeError, compile_selector


@pytest.mark.parametrize(("call", "want"), [
    ('"%s and %d".format(["str", 42])', "str and 42"),
    ('"100%% %s".format(["sure"])', "100% sure"),
    ('"%s %s".format([string, type(1)])', "string int"),
    ('"%s %s %s".format([true, null, b"xyz"])', "true null xyz"),
    ('"%s".format([2.0])', "2"),
    ('"%s".format([2.71])', "2.71"),
    ('"%s".format([1e-9])', "1e-09"),
    ('"%s".format([1234567.0])', "1.234567e+06"),
    ('"%s".format([[2.71]])', "[2.710000]"),
    ('"%s".format([[1, "a", null, [9, 8], b"x"]])', '[1, "a", null, [9, 8], b"x"]'),
    ('"%s".format([{"b": 2.5, "a": "x\\ny"}])', '{"a":"x\\ny", "b":2.500000}'),
    ('"%s".format([{2: "v2", 1: "v1"}])', '{1:"v1", 2:"v2"}'),
    ('"%f".format([2.718281828])', "2.718282"),
    ('"%.3f".format([1.2345])', "1.234"),
    ('"%.2f".format([1234567.125])', "1,234,567.12"),
    ('"%.0f".format([2.5])', "2"),
    ('"%.1f".format([0.25])', "0.2"),
    ('"%.20f".format([0.1])', "0.10000000000000000555"),
    ('"%f".format(["NaN"])', "NaN"),
    ('"%f %f".format([1.0/0.0, -1.0/0.0])', "∞ -∞"),
    ('"%e".format([2.718280])', "2.718280\u202f×\u202f10⁰⁰"),
    ('"%.6e".format([1052.032911275])', "1.052033\u202f×\u202f10⁰³"),
    ('"%.2e".format([0.000123])', "1.23\u202f×\u202f10⁻⁰⁴"),
    ('"%b %b %b".format([5, 5u, true])', "101 101 1"),
    ('"%x %X %x".format([30, 20, -30])', "1e 14 -1e"),
    ('"%x".format(["Hello world!"])', "48656c6c6f20776f726c6421"),
    ('"%X".format([b"byte string"])', "6279746520737472696E67"),
    ('"%o %o".format([30, 8u])', "36 10"),
    ('"%d".format([64u])', "64"),
    ('string(2.0) + "|" + string(0.1) + "|" + string(1e21) + "|" + string(-0.000012)', "2|0.1|1e+21|-1.2e-05"),
])
def test_format(call: str, want: str) -> None:
    assert run(f"{call} == {_cel_str(want)}") is True


def _cel_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


@pytest.mark.parametrize(("call", "message"), [
    ('"%d".format([2.0])', "decimal clause can only be used on integers, was given double"),
    ('"%f".format([2])', "fixed-point clause can only be used on doubles, was given int"),
    ('"%e".format(["x"])', "scientific clause can only be used on doubles, was given string"),
    ('"%x".format([1.5])', "only integers, byte buffers, and strings can be formatted as hex"),
    ('"%b".format(["1"])', "only integers and bools can be formatted as binary"),
    ('"%o".format([true])', "octal clause can only be used on integers"),
    ('"%E".format([1.0])', 'unrecognized formatting clause "E"'),
    ('"%d %d".format([1])', "index 1 out of range"),
    ('"%.3".format([1.0])', "could not find end of precision specifier"),
    ('"%s".format([quantity("1")])', "string clause can only be used on"),
    ('"%s".format([[ip("1.2.3.4")]])', "no formatting function for net.IP"),
    ('"%.99999999f".format([1.0])', "actual cost limit exceeded"),
])
def test_format_errors(call: str, message: str) -> None:
    with pytest.raises(CELRuntimeError, match=message.replace("(", r"\(")):
        run(f"{call} == \"\"")


def test_format_reads_device_values_and_keeps_projection() -> None:
    sel = compile_selector('"%s-%d".format([device.driver, device.attributes["gpu.nvidia.com"].index]) '
                           '== "gpu.nvidia.com-3"')
    assert sel.paths == frozenset({("driver",), ("attributes", "gpu.nvidia.com", "index")})
    assert sel.evaluate(gpu()) is True


@pytest.mark.parametrize("expr", [
    'optional.of(2).optMap(x, x * 10) == optional.of(20)',
    'optional.none().optMap(x, x * 10) == optional.none()',
    'device.attributes["gpu.nvidia.com"].?index.optMap(i, i + 1).orValue(0) == 4',
    'device.attributes["gpu.nvidia.com"].?missing.optMap(i, i + 1).orValue(0) == 0',
    'optional.of("a").optFlatMap(s, s == "a" ? optional.of(1) : optional.none()).value() == 1',
    'optional.of("b").optFlatMap(s, s == "a" ? optional.of(1) : optional.none()).hasValue() == false',
    'optional.none().optFlatMap(s, optional.of(s)).hasValue() == false',
    '[1, 2].exists(x, optional.of(x).optMap(y, y == 2).value())',
])
def test_opt_map(expr: str) -> None:
    assert run(expr) is True


def test_opt_map_errors() -> None:
    with pytest.raises(CELRuntimeError, match="no such overload"):
        run("optional.of(1).optFlatMap(x, x + 1).hasValue()")
    with pytest.raises(CELRuntimeError, match="no such overload"):
        run("[1].optMap(x, x).hasValue()")
    with pytest.raises(CELCompileError):
        compile_selector("optional.of(1).optMap(x).hasValue()")
    with pytest.raises(CELCompileError, match="undeclared reference to 'y'"):
        compile_selector("optional.of(1).optMap(x, y).hasValue()")
