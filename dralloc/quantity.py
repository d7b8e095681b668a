"""Exact Kubernetes resource quantities.

A :class:`Quantity` holds its value as a :class:`fractions.Fraction` (never a
float) together with the *format* Kubernetes remembers for it (binary SI,
decimal SI or decimal exponent), so it can be printed in Kubernetes' canonical
form. Parsing follows the grammar of ``k8s.io/apimachinery/pkg/api/resource``::

    quantity  ::= sign? number suffix
    number    ::= digits | digits "." digits? | "." digits
    suffix    ::= Ki | Mi | Gi | Ti | Pi | Ei            (binary SI)
                | n | u | m | "" | k | M | G | T | P | E  (decimal SI)
                | (e | E) sign? digits                     (decimal exponent)

Kubernetes keeps at most nine fractional decimal digits (nano precision) and
rounds anything finer *up*; so does this module.

Each quantity also remembers whether Go would hold it as an ``*inf.Dec`` rather
than an int64 (:attr:`Quantity.inf_dec`). Go's parser takes an int64 fast path
for most texts and falls back to a heap-allocated decimal for the others; a
copy of a Go Quantity shares that decimal, and in-place arithmetic on the copy
changes the original. Only the replay of the Kubernetes allocator uses this
(see :mod:`dralloc.inventory.capacity`); equality and hashing ignore it.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from functools import total_ordering
from typing import Any

from dralloc.errors import DrallocError

BINARY_SI = "BinarySI"
DECIMAL_SI = "DecimalSI"
DECIMAL_EXPONENT = "DecimalExponent"

_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_BY_EXP = {v: k for k, v in _DECIMAL.items()}
_BINARY_BY_EXP = {v: k for k, v in _BINARY.items()}

_RE = re.compile(
    r"^(?P<sign>[+-])?(?P<num>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
    r"(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$"
)
_NANO = Fraction(1, 10**9)
# Parsed texts, shared: a cluster repeats the same few counter and capacity
# values hundreds of thousands of times.
_PARSED: dict[str, Quantity] = {}
_PARSED_MAX = 100_000
_MAX_TEXT = 100
_MAX_EXPONENT = 1000     # larger decimal exponents are rejected (no real device is that big)
_MIN_EXPONENT = -200     # smaller ones round up to 1n anyway (the text is at most 100 digits)
_MAX_BINARY = 2**63 - 1  # Kubernetes caps binary-SI quantities at the largest int64
_MAX_INT64_DIGITS = 18   # Go's fast path takes at most this many mantissa digits


class QuantityError(DrallocError, ValueError):
    """A text that is not a Kubernetes quantity."""


def _round_up_nano(value: Fraction) -> Fraction:
    """Round to nano precision *away from zero*, as Kubernetes does: any
    non-zero amount, however small, stays non-zero (-0.1n becomes -1n)."""
    scaled = value / _NANO
    if scaled.denominator == 1:
        return value
    magnitude = math.ceil(abs(scaled))
    return Fraction(magnitude if value > 0 else -magnitude) * _NANO


def _bad(text: Any, why: str = "") -> QuantityError:
    shown = repr(text) if len(str(text)) <= 60 else repr(str(text)[:60]) + "..."
    return QuantityError(f"invalid quantity {shown}: " + (why or
                         "quantities must match '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"))


@total_ordering
class Quantity:
    """An exact Kubernetes quantity. Immutable and hashable."""

    __slots__ = ("_value", "_format", "_dec")

    def __init__(self, value: int | Fraction | str | Quantity, fmt: str | None = None,
                 *, inf_dec: bool = False) -> None:
        if isinstance(value, Quantity):
            self._value: Fraction = value._value
            self._format: str = fmt or value._format
            self._dec: bool = value._dec or inf_dec
            return
        if isinstance(value, str):
            parsed = Quantity.parse(value)
            self._value = parsed._value
            self._format = fmt or parsed._format
            self._dec = parsed._dec or inf_dec
            return
        if isinstance(value, bool) or not isinstance(value, int | Fraction):
            raise QuantityError(f"cannot make a quantity from {type(value).__name__} {value!r}")
        self._value = _round_up_nano(Fraction(value))
        self._format = fmt or DECIMAL_SI
        self._dec = inf_dec

    # ---- construction -------------------------------------------------
    @classmethod
    def parse(cls, text: Any) -> Quantity:
        if isinstance(text, Quantity):
            return text
        if isinstance(text, bool):
            raise QuantityError(f"quantity must be a string or number, not a boolean ({text!r})")
        if isinstance(text, int):
            return cls(text)
        if isinstance(text, float):
            # YAML may hand us 0.5 for an unquoted value; go through its repr,
            # which is the shortest exact decimal that round-trips.
            text = repr(text)
        if not isinstance(text, str):
            raise QuantityError(f"quantity must be a string, not {type(text).__name__}")
        cached = _PARSED.get(text)
        if cached is not None:
            return cached
        q = cls._parse_text(text)
        if len(_PARSED) < _PARSED_MAX:  # quantities are immutable: share them
            _PARSED[text] = q
        return q

    @classmethod
    def _parse_text(cls, text: str) -> Quantity:
        s = text.strip()
        if not s:
            raise _bad(text, "a quantity cannot be empty")
        if len(s) > _MAX_TEXT:
            raise _bad(text, f"longer than {_MAX_TEXT} characters")
        m = _RE.match(s)
        if not m:
            raise _bad(text)
        value, fmt = _value_of(m, text)
        q = cls.__new__(cls)
        q._value = _round_up_nano(value)
        q._format = fmt
        q._dec = s != "0" and _go_holds_dec(m)
        return q

    # ---- accessors ----------------------------------------------------
    @property
    def value(self) -> Fraction:
        """The exact value."""
        return self._value

    @property
    def format(self) -> str:
        return self._format

    @property
    def inf_dec(self) -> bool:
        """Whether Go holds this value as an ``*inf.Dec`` (shared by copies)
        rather than an int64. Parsed texts follow Go's parser; computed values
        are int64 unless built from one that is not."""
        return self._dec

    def ceil(self) -> int:
        """Kubernetes ``Value()``: the value rounded up to an integer."""
        return math.ceil(self._value)

    def milli_value(self) -> int:
        return math.ceil(self._value * 1000)

    def is_integer(self) -> bool:
        return self._value.denominator == 1

    def sign(self) -> int:
        return (self._value > 0) - (self._value < 0)

    # ---- arithmetic ---------------------------------------------------
    def __add__(self, other: object) -> Quantity:
        if not isinstance(other, Quantity):
            return NotImplemented
        return Quantity(self._value + other._value, self._format, inf_dec=self._dec or other._dec)

    def __sub__(self, other: object) -> Quantity:
        if not isinstance(other, Quantity):
            return NotImplemented
        return Quantity(self._value - other._value, self._format, inf_dec=self._dec or other._dec)

    def __neg__(self) -> Quantity:
        return Quantity(-self._value, self._format, inf_dec=self._dec)

    def cmp(self, other: Quantity) -> int:
        return (self._value > other._value) - (self._value < other._value)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Quantity):
            return self._value == other._value
        return NotImplemented

    def __lt__(self, other: object) -> bool:
        if isinstance(other, Quantity):
            return self._value < other._value
        return NotImplemented

    def __hash__(self) -> int:
        return hash(("Quantity", self._value))

    def __bool__(self) -> bool:
        return self._value != 0

    # ---- printing -----------------------------------------------------
    def __str__(self) -> str:
        return self.canonical()

    def __repr__(self) -> str:
        return f"Quantity({self.canonical()!r})"

    def canonical(self) -> str:
        """Kubernetes' canonical text for this quantity (``Quantity.String()``)."""
        v = self._value
        fmt = self._format
        if fmt == BINARY_SI and (v.denominator != 1 or -1024 < v < 1024):
            fmt = DECIMAL_SI
        if v == 0:
            return "0"
        sign = "-" if v < 0 else ""
        a = abs(v)
        if fmt == BINARY_SI:
            n = int(a)
            exp = 0
            while exp < 60 and n % 1024 == 0:
                n //= 1024
                exp += 10
            return f"{sign}{n}{_BINARY_BY_EXP.get(exp, '')}"
        # decimal: mantissa * 10**exp with exp a multiple of 3, mantissa an integer
        exp = 0
        while a.denominator != 1:
            a *= 1000
            exp -= 3
        n = int(a)
        # Decimal SI has no suffix above E (10^18). Kubernetes would print the
        # bare mantissa there (1000E -> "1", a lossy quirk); dralloc keeps the
        # value exact and prints "1000E".
        cap = 10**9 if fmt == DECIMAL_EXPONENT else 18
        while n != 0 and n % 1000 == 0 and exp < cap:
            n //= 1000
            exp += 3
        if fmt == DECIMAL_EXPONENT:
            return f"{sign}{n}" + (f"e{exp}" if exp else "")
        if exp < -9:  # cannot happen after nano rounding; defensive
            return f"{sign}{n}e{exp}"
        return f"{sign}{n}{_DECIMAL_BY_EXP[exp]}"


def _value_of(m: re.Match[str], text: Any) -> tuple[Fraction, str]:
    """The exact value and format of a matched quantity text."""
    digits = m.group("num")
    num = Fraction(digits[:-1] if digits.endswith(".") else digits)
    if m.group("sign") == "-":
        num = -num
    suffix = m.group("suffix") or ""
    if suffix in _BINARY:
        value = num * (2 ** _BINARY[suffix])
        value = max(min(value, Fraction(_MAX_BINARY)), Fraction(-_MAX_BINARY))
        return value, BINARY_SI
    if suffix[:1] in ("e", "E") and len(suffix) > 1:
        exp = int(suffix[1:])
        if exp > _MAX_EXPONENT:
            raise _bad(text, f"exponent {exp} is out of range (at most {_MAX_EXPONENT})")
        return num * Fraction(10) ** max(exp, _MIN_EXPONENT), DECIMAL_EXPONENT
    return num * Fraction(10) ** _DECIMAL[suffix], DECIMAL_SI


def _go_holds_dec(m: re.Match[str]) -> bool:
    """Whether Go's ``ParseQuantity`` leaves its int64 fast path for this text.

    The fast path needs: for a binary suffix, no fractional digits and few
    enough integer digits that ``digits * 2**exp`` surely fits (Ki 11, Mi 8,
    Gi 5, Ti 2, Pi and Ei none); for a decimal suffix or exponent, at most 18
    mantissa digits (integer digits without leading zeros, plus every
    fractional digit) and nothing finer than nano once the fraction is shifted
    into the exponent. Everything else becomes an ``inf.Dec``."""
    digits = m.group("num")
    whole, _, frac = digits.partition(".")
    whole = whole.lstrip("0") or "0"
    suffix = m.group("suffix") or ""
    if suffix in _BINARY:
        exp = _BINARY[suffix]
        if frac:
            return True
        if 15 - len(whole) - exp * 3 // 10 - 1 < 0:
            return True
        return int(whole) << exp > _MAX_BINARY
    exp = int(suffix[1:]) if suffix[:1] in ("e", "E") and len(suffix) > 1 else _DECIMAL[suffix]
    if len(whole) + len(frac) > _MAX_INT64_DIGITS:
        return True
    return exp - len(frac) < -9


def parse_quantity(text: Any, where: str = "") -> Quantity:
    """Parse ``text``; on failure raise a :class:`QuantityError` naming ``where``."""
    try:
        return Quantity.parse(text)
    except QuantityError as e:
        raise QuantityError(f"{where}: {e}" if where else str(e)) from None


def binary_si(value: int | Fraction) -> Quantity:
    """A quantity in binary-SI format (as Kubernetes builds computed integers)."""
    return Quantity(value, BINARY_SI)


def amount_text(value: int | Fraction) -> str:
    """An exact amount for people, in Kubernetes units: binary suffixes when it
    is a whole multiple of 1024 (``40Gi``), decimal ones otherwise (``1500m``,
    ``7``, ``2k``); never raw bytes of a binary size."""
    v = Fraction(value)
    if v.denominator == 1 and v and int(v) % 1024 == 0:
        return Quantity(v, BINARY_SI).canonical()
    return Quantity(v).canonical()
