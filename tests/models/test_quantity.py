"""Every quantity form: parsing, exact value, Kubernetes canonical text, and
invalid texts rejected with the offending text in the message."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dralloc.quantity import BINARY_SI, DECIMAL_EXPONENT, DECIMAL_SI, Quantity, QuantityError

F = Fraction
# (input, exact value, format, canonical text)
VALID: list[tuple[object, Fraction, str, str]] = [
    ("0", F(0), DECIMAL_SI, "0"),
    ("-0", F(0), DECIMAL_SI, "0"),
    ("1", F(1), DECIMAL_SI, "1"),
    ("+1", F(1), DECIMAL_SI, "1"),
    ("-1", F(-1), DECIMAL_SI, "-1"),
    ("1.", F(1), DECIMAL_SI, "1"),
    (".5", F(1, 2), DECIMAL_SI, "500m"),
    ("1.5", F(3, 2), DECIMAL_SI, "1500m"),
    ("007", F(7), DECIMAL_SI, "7"),
    (" 3 ", F(3), DECIMAL_SI, "3"),  # as Kubernetes' JSON decoding trims
    ("12000", F(12000), DECIMAL_SI, "12k"),
    ("1500", F(1500), DECIMAL_SI, "1500"),
    # decimal SI suffixes
    ("1n", F(1, 10**9), DECIMAL_SI, "1n"),
    ("1u", F(1, 10**6), DECIMAL_SI, "1u"),
    ("1m", F(1, 1000), DECIMAL_SI, "1m"),
    ("1000m", F(1), DECIMAL_SI, "1"),
    ("1k", F(1000), DECIMAL_SI, "1k"),
    ("1M", F(10**6), DECIMAL_SI, "1M"),
    ("1G", F(10**9), DECIMAL_SI, "1G"),
    ("1T", F(10**12), DECIMAL_SI, "1T"),
    ("1P", F(10**15), DECIMAL_SI, "1P"),
    ("1E", F(10**18), DECIMAL_SI, "1E"),
    ("1000E", F(10**21), DECIMAL_SI, "1000E"),
    ("-2.5G", F(-25 * 10**8), DECIMAL_SI, "-2500M"),
    # binary SI suffixes
    ("1Ki", F(1024), BINARY_SI, "1Ki"),
    ("1Mi", F(2**20), BINARY_SI, "1Mi"),
    ("1Gi", F(2**30), BINARY_SI, "1Gi"),
    ("1Ti", F(2**40), BINARY_SI, "1Ti"),
    ("1Pi", F(2**50), BINARY_SI, "1Pi"),
    ("1Ei", F(2**60), BINARY_SI, "1Ei"),
    ("1.5Gi", F(3 * 2**29), BINARY_SI, "1536Mi"),
    ("1025Ki", F(1025 * 1024), BINARY_SI, "1025Ki"),
    ("0.1Ki", F(512, 5), BINARY_SI, "102400m"),  # below 1024: printed as decimal
    ("-1Gi", F(-(2**30)), BINARY_SI, "-1Gi"),
    ("8Ei", F(2**63 - 1), BINARY_SI, "9223372036854775807"),  # capped at the int64 maximum
    # decimal exponents
    ("1e3", F(1000), DECIMAL_EXPONENT, "1e3"),
    ("1E3", F(1000), DECIMAL_EXPONENT, "1e3"),
    ("1e+3", F(1000), DECIMAL_EXPONENT, "1e3"),
    ("1e-3", F(1, 1000), DECIMAL_EXPONENT, "1e-3"),
    ("1.5e3", F(1500), DECIMAL_EXPONENT, "1500"),
    ("0.5e0", F(1, 2), DECIMAL_EXPONENT, "500e-3"),
    ("1e21", F(10**21), DECIMAL_EXPONENT, "1e21"),
    # below nano: rounded away from zero to the next nano
    ("0.1n", F(1, 10**9), DECIMAL_SI, "1n"),
    ("1.0000000001", F(10**9 + 1, 10**9), DECIMAL_SI, "1000000001n"),
    ("-0.0000000001", F(-1, 10**9), DECIMAL_SI, "-1n"),
    ("1e-1000", F(1, 10**9), DECIMAL_EXPONENT, "1e-9"),
    # YAML numbers
    (4, F(4), DECIMAL_SI, "4"),
    (0.5, F(1, 2), DECIMAL_SI, "500m"),
]


@pytest.mark.parametrize(("text", "value", "fmt", "canonical"), VALID, ids=[repr(v[0]) for v in VALID])
def test_valid_quantity(text: object, value: Fraction, fmt: str, canonical: str) -> None:
    q = Quantity.parse(text)
    assert q.value == value
    assert q.format == fmt
    assert q.canonical() == canonical == str(q)
    assert Quantity.parse(canonical) == q, "canonical text parses back to the same value"


INVALID: list[tuple[object, str]] = [
    ("", "cannot be empty"),
    (".", "'.'"),
    ("1K", "'1K'"),  # kilo is lower-case k
    ("1ki", "'1ki'"),
    ("1e", "'1e'"),
    ("1e3.5", "'1e3.5'"),
    ("1.5.5", "'1.5.5'"),
    ("--1", "'--1'"),
    ("1 Gi", "'1 Gi'"),
    ("Gi", "'Gi'"),
    ("abc", "'abc'"),
    ("inf", "'inf'"),
    ("1e999999999", "out of range"),
    ("9" * 101, "longer than 100"),
    (True, "boolean"),
    (None, "NoneType"),
    ([1], "list"),
]


@pytest.mark.parametrize(("text", "why"), INVALID, ids=[repr(i[0])[:20] for i in INVALID])
def test_invalid_quantity_names_the_text(text: object, why: str) -> None:
    with pytest.raises(QuantityError) as exc:
        Quantity.parse(text)
    assert why in str(exc.value)


def test_arithmetic_and_ordering_are_exact() -> None:
    a, b = Quantity.parse("1.5Gi"), Quantity.parse("512Mi")
    assert (a + b).canonical() == "2Gi" and (a - b).canonical() == "1Gi"
    assert Quantity.parse("1000m") == Quantity.parse("1") and hash(Quantity.parse("1k")) == hash(Quantity.parse("1e3"))
    assert sorted([Quantity.parse(t) for t in ("1Gi", "1G", "1500M")]) == [Quantity.parse(t) for t in ("1G", "1Gi", "1500M")]
    assert Quantity.parse("1.5").ceil() == 2 and Quantity.parse("1.5").milli_value() == 1500
