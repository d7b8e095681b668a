"""One test per library function family, evaluated through real selectors."""

from __future__ import annotations

import pytest
from cel_helpers import run

from dralloc.cel import CELRuntimeError


@pytest.mark.parametrize("expr", [
    'quantity("1Gi").compareTo(quantity("1024Mi")) == 0',
    'quantity("1").compareTo(quantity("2")) == -1',
    'quantity("2").isGreaterThan(quantity("1999m"))',
    'quantity("500m").isLessThan(quantity("1"))',
    'quantity("1k").add(quantity("1")).compareTo(quantity("1001")) == 0',
    'quantity("1k").add(24).compareTo(quantity("1024")) == 0',
    'quantity("1").sub(quantity("250m")).compareTo(quantity("750m")) == 0',
    'quantity("5").sub(7).sign() == -1',
    'quantity("0").sign() == 0',
    'quantity("10Gi").asInteger() == 10737418240',
    'quantity("1500m").isInteger() == false',
    'quantity("3").isInteger()',
    'quantity("1500m").asApproximateFloat() == 1.5',
    'isQuantity("1Gi") && !isQuantity("1 Gi")',
    'quantity("0.1").add(quantity("0.2")).compareTo(quantity("300m")) == 0',
    'device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("40Gi")) == 0',
    'device.capacity["gpu.nvidia.com"].memory == quantity("40960Mi")',
])
def test_quantity(expr: str) -> None:
    assert run(expr) is True


def test_quantity_errors() -> None:
    with pytest.raises(CELRuntimeError, match="cannot convert value to integer"):
        run('quantity("1500m").asInteger() == 1')
    with pytest.raises(CELRuntimeError):
        run('quantity("bogus").sign() == 0')
    with pytest.raises(CELRuntimeError, match="no such overload"):
        run('quantity("1").compareTo(semver("1.0.0")) == 0')


@pytest.mark.parametrize("expr", [
    'semver("1.2.3").major() == 1 && semver("1.2.3").minor() == 2 && semver("1.2.3").patch() == 3',
    'semver("1.2.3").isLessThan(semver("1.10.0"))',
    'semver("2.0.0").isGreaterThan(semver("2.0.0-rc.1"))',
    'semver("1.0.0-alpha").isLessThan(semver("1.0.0-alpha.1"))',
    'semver("1.0.0-alpha.beta").isGreaterThan(semver("1.0.0-alpha.1"))',
    'semver("1.0.0-2").isLessThan(semver("1.0.0-10"))',
    'semver("1.0.0+build.1").compareTo(semver("1.0.0+build.2")) == 0',
    'semver("1.0.0") == semver("1.0.0")',
    'isSemver("1.2.3") && !isSemver("1.2") && !isSemver("01.2.3") && !isSemver("v1.2.3")',
    'semver("v1.2", true) == semver("1.2.0")',
    'isSemver("v1", true)',
    'device.attributes["gpu.nvidia.com"].driverVersion.isGreaterThan(semver("535.104.5"))',
    'device.attributes["gpu.nvidia.com"].driverVersion.major() == 550',
    'device.attributes["gpu.nvidia.com"].driverVersion.compareTo(semver("550.54.15")) == 0',
])
def test_semver(expr: str) -> None:
    assert run(expr) is True


def test_semver_parse_error() -> None:
    with pytest.raises(CELRuntimeError, match="could not parse"):
        run('semver("1.2").major() == 1')


@pytest.mark.parametrize("expr", [
    '"abc".charAt(1) == "b" && "abc".charAt(3) == ""',
    '"hello".indexOf("l") == 2 && "hello".lastIndexOf("l") == 3 && "hello".indexOf("l", 3) == 3',
    '"HeLLo".lowerAscii() == "hello" && "abc".upperAscii() == "ABC"',
    '"a-b-c".replace("-", "+") == "a+b+c" && "a-b-c".replace("-", "+", 1) == "a+b-c"',
    '"a,b,c".split(",") == ["a", "b", "c"] && "a,b,c".split(",", 2) == ["a", "b,c"]',
    '"hello".substring(1) == "ello" && "hello".substring(1, 3) == "el"',
    '"  x ".trim() == "x"',
    '["a", "b"].join("-") == "a-b" && ["a", "b"].join() == "ab"',
    'strings.quote("a\\"b") == "\\"a\\\\\\"b\\""',
    '"abc".startsWith("ab") && "abc".endsWith("bc") && "abc".contains("b")',
    '"abc".size() == 3 && size("abc") == 3',
    'device.attributes["gpu.nvidia.com"].productName.lowerAscii().matches("^.*a100.*$")',
    'matches("abc", "b")',
])
def test_strings(expr: str) -> None:
    assert run(expr) is True


def test_substring_out_of_range() -> None:
    with pytest.raises(CELRuntimeError, match="index out of range"):
        run('"abc".substring(5) == ""')


@pytest.mark.parametrize("expr", [
    'lists.range(4) == [0, 1, 2, 3]',
    '[1, 2, 3, 4].slice(1, 3) == [2, 3]',
    '[[1], [2, [3]]].flatten() == [1, 2, [3]] && [[1], [2, [3]]].flatten(2) == [1, 2, 3]',
    '[1, 2, 1, 3].distinct() == [1, 2, 3]',
    '[1, 2, 3].reverse() == [3, 2, 1]',
    '[3, 1, 2].sort() == [1, 2, 3]',
    '["bb", "a"].sortBy(s, s.size()) == ["a", "bb"]',
    '[1, 2, 3].isSorted() && ![2, 1].isSorted()',
    '[1, 2, 3].sum() == 6 && [1.5, 2.5].sum() == 4.0',
    '[3, 1, 2].min() == 1 && [3, 1, 2].max() == 3',
    '[1, 2, 1].indexOf(1) == 0 && [1, 2, 1].lastIndexOf(1) == 2 && [1].indexOf(5) == -1',
    '[1, 2, 3].exists(x, x == 2) && [1, 2, 3].all(x, x > 0) && [1, 2, 3].exists_one(x, x > 2)',
    '[1, 2, 3].map(x, x * 2) == [2, 4, 6] && [1, 2, 3].filter(x, x > 1) == [2, 3]',
    '[1, 2, 3].map(x, x > 1, x * 10) == [20, 30]',
    '[10, 20].all(i, v, v == (i + 1) * 10) && [10, 20].exists(i, v, i == 1 && v == 20)',
    '[1, 2].transformList(i, v, v + i) == [1, 3]',
    '{"a": 1}.transformMap(k, v, v + 1) == {"a": 2}',
    '{"a": 1, "b": 2}.all(k, k in ["a", "b"])',
])
def test_lists(expr: str) -> None:
    assert run(expr) is True


@pytest.mark.parametrize("expr", [
    'sets.contains([1, 2, 3], [3, 1]) && !sets.contains([1], [2])',
    'sets.equivalent([1, 2, 2], [2, 1]) && !sets.equivalent([1], [1, 2])',
    'sets.intersects([1, 2], [2, 5]) && !sets.intersects([1], [3])',
])
def test_sets(expr: str) -> None:
    assert run(expr) is True


@pytest.mark.parametrize("expr", [
    '"abc123def".find("[0-9]+") == "123" && "abc".find("x") == ""',
    '"a1b22c333".findAll("[0-9]+") == ["1", "22", "333"]',
    '"a1b22c333".findAll("[0-9]+", 2) == ["1", "22"]',
])
def test_regex(expr: str) -> None:
    assert run(expr) is True


def test_regex_is_re2_linear() -> None:
    # catastrophic backtracking for Python's re; RE2 answers at once
    assert run('("a" + "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!").matches("^(a+)+$")') is False


def test_invalid_regex_is_runtime_error() -> None:
    with pytest.raises(CELRuntimeError, match="invalid regular expression"):
        run('"a".matches("(")')


@pytest.mark.parametrize("expr", [
    'cel.bind(x, 2, x * x == 4)',
    'cel.bind(x, [1, 2], cel.bind(y, x.size(), y == 2))',
    'optional.of(1).orValue(2) == 1 && optional.none().orValue(2) == 2',
    'optional.of(1).hasValue() && !optional.none().hasValue() && optional.of(3).value() == 3',
    'optional.none().or(optional.of(5)).value() == 5',
    'optional.ofNonZeroValue("").orValue("z") == "z"',
    '{"a": 1}.?b.orValue(7) == 7 && {"a": 1}.?a.orValue(7) == 1',
    '[1, 2][?5].orValue(0) == 0 && {"a": 1}[?"a"].value() == 1',
    'type(1) == int && type("a") == string && type(1u) == uint',
    'int("12") == 12 && string(12) == "12" && double(1) == 1.0 && uint(3) == 3u',
    'bool("true") && bytes("a") == b"a"',
    '1 == 1.0 && 1u == 1 && dyn(1) != "1" && [1, "a"] != [1, 2]',
    '1 < 1.5 && 2u > 1 && "a" < "b"',
    '7 / 2 == 3 && -7 / 2 == -3 && -7 % 3 == -1 && 7.0 / 2.0 == 3.5',
    'true ? true : false',
])
def test_core_and_bind(expr: str) -> None:
    assert run(expr) is True


@pytest.mark.parametrize("expr,msg", [
    ("1 / 0 == 0", "division by zero"),
    ("9223372036854775807 + 1 > 0", "overflow"),
    ("[1][3] == 1", "index out of bounds"),
    ('{"a": 1}.b == 1', "no such key: b"),
    ('dyn(1) + dyn("a") == 1', "no such overload"),
    ('dyn("a") < dyn(1)', "no such overload"),
])
def test_core_runtime_errors(expr: str, msg: str) -> None:
    with pytest.raises(CELRuntimeError, match=msg):
        run(expr)


def test_includes_scalar_and_list() -> None:
    assert run('device.attributes["gpu.nvidia.com"].tags.includes("cheap")') is True
    assert run('device.attributes["gpu.nvidia.com"].tags.includes("slow")') is False
    assert run('device.attributes["gpu.nvidia.com"].index.includes(3)') is True


def test_includes_over_48_elements_is_error() -> None:
    with pytest.raises(CELRuntimeError, match="48"):
        run("lists.range(49).includes(1)")
