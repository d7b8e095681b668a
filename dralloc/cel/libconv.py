"""Type conversions ``int()``, ``uint()``, ``double()``, ``string()``,
``bool()``, ``bytes()`` with cel-go's rules and messages.

* ``int(double)``: NaN, ±Inf and values outside (−2^63, 2^63) are ``integer
  overflow`` (cel-go refuses −2^63 itself); ``uint(double)``: NaN, ±Inf,
  negative values and values ≥ 2^64 are ``unsigned integer overflow``;
  ``uint(int)`` of a negative and ``int(uint)`` beyond int64 likewise.
* From strings, Go's ``strconv``: ``int`` takes ``[+-]?[0-9]+`` (no spaces,
  no underscores, no other digits), ``uint`` ``[0-9]+``, ``double`` Go's float
  syntax (decimal, hexadecimal with a ``p`` exponent, ``inf``/``infinity``/
  ``nan`` in any case; a value beyond the double range is an error, not
  ``inf``), ``bool`` one of ``1 t T TRUE true True 0 f F FALSE false False``.
  Anything else is ``type conversion error from 'string' to '<type>'``.
* Strings are Go strings: a lone surrogate (which JSON can smuggle in) is the
  replacement character U+FFFD, as Go's JSON decoder makes it."""

from __future__ import annotations

import math
import re
from typing import Any

from dralloc.cel import libformat, libtime
from dralloc.cel.errors import CELRuntimeError, no_overload
from dralloc.cel.values import UINT64_MAX, Semver, UInt, check_int, check_uint

_INT = re.compile(r"[+-]?[0-9]+")
_UINT = re.compile(r"[0-9]+")
_DEC = r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_HEX = r"0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+"
_FLOAT = re.compile(rf"([+-]?)(?:({_DEC})|({_HEX})|(inf|infinity|nan))", re.IGNORECASE)
_SURROGATE = re.compile("[\ud800-\udfff]")
TWO_63 = 2.0**63
TWO_64 = 2.0**64


def go_str(s: str) -> str:
    """``s`` with lone surrogates replaced by U+FFFD (a Go string is UTF-8)."""
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", s)


def _conversion(to: str) -> CELRuntimeError:
    return CELRuntimeError(f"type conversion error from 'string' to '{to}'")


def _one(fn: str, a: tuple[Any, ...]) -> Any:
    if len(a) != 1 or isinstance(a[0], bool) and fn != "bool":
        raise no_overload(fn, *a)
    return a[0]


def _digits(text: str, pattern: re.Pattern[str], to: str) -> int:
    if not pattern.fullmatch(text):
        raise _conversion(to)
    body = text.lstrip("+-").lstrip("0") or "0"
    if len(body) > 20:   # beyond 64 bits whatever the digits (and before Python's digit limit)
        raise _conversion(to)
    return int(text[0] + body if text[0] in "+-" else body)


def f_int(*a: Any) -> int:
    v = _one("int", a)
    if isinstance(v, UInt | int):
        return check_int(int(v))
    if isinstance(v, float):
        if math.isnan(v) or v <= -TWO_63 or v >= TWO_63:
            raise CELRuntimeError("integer overflow")
        return int(v)
    if isinstance(v, str):
        n = _digits(v, _INT, "int")
        if not -(2**63) <= n < 2**63:
            raise _conversion("int")
        return n
    if isinstance(v, libtime.Timestamp):
        return v.ns // libtime.NS
    raise no_overload("int", *a)


def f_uint(*a: Any) -> UInt:
    v = _one("uint", a)
    if isinstance(v, int):
        return check_uint(int(v))
    if isinstance(v, float):
        if math.isnan(v) or v < 0 or v >= TWO_64:
            raise CELRuntimeError("unsigned integer overflow")
        return UInt(int(v))
    if isinstance(v, str):
        n = _digits(v, _UINT, "uint")
        if n > UINT64_MAX:
            raise _conversion("uint")
        return UInt(n)
    raise no_overload("uint", *a)


def parse_double(text: str) -> float:
    """Go's ``strconv.ParseFloat(text, 64)``, or the conversion error."""
    m = _FLOAT.fullmatch(text)
    if m is None:
        raise _conversion("double")
    sign, dec, hexa, special = m.groups()
    if special is not None:
        if special.lower() == "nan":
            return math.nan
        return -math.inf if sign == "-" else math.inf
    try:
        v = float(sign + dec) if dec is not None else float.fromhex(sign + hexa)
    except OverflowError:
        raise _conversion("double") from None
    if math.isinf(v):   # beyond the double range: Go's ErrRange
        raise _conversion("double")
    return v


def f_double(*a: Any) -> float:
    v = _one("double", a)
    if isinstance(v, int):
        return float(v)
    if isinstance(v, float):
        return v
    if isinstance(v, str):
        return parse_double(v)
    raise no_overload("double", *a)


def f_string(*a: Any) -> str:
    v = a[0] if len(a) == 1 else None
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return v
    if isinstance(v, int):
        return str(int(v))
    if isinstance(v, float):
        return libformat.go_float(v)
    if isinstance(v, bytes):
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:
            raise CELRuntimeError("invalid UTF-8 in bytes, cannot convert to string") from None
    if isinstance(v, Semver):
        return v.text
    to_text = getattr(v, "cel_string", None)  # net.IP, net.CIDR, timestamps, durations
    if len(a) == 1 and to_text is not None:
        return str(to_text())
    raise no_overload("string", *a)


_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})


def f_bool(*a: Any) -> bool:
    v = _one("bool", a)
    if isinstance(v, bool):
        return v
    if isinstance(v, str):
        if v in _TRUE:
            return True
        if v in _FALSE:
            return False
        raise _conversion("bool")
    raise no_overload("bool", *a)


def f_bytes(*a: Any) -> bytes:
    v = _one("bytes", a)
    if isinstance(v, bytes):
        return v
    if isinstance(v, str):
        return go_str(v).encode("utf-8")
    raise no_overload("bytes", *a)


GLOBAL = {"int": f_int, "uint": f_uint, "double": f_double, "string": f_string, "bool": f_bool,
          "bytes": f_bytes}
MEMBER: dict[str, Any] = {}
