"""``<string>.format(<list>)`` as cel-go's ext Strings version 2 does it (the
version Kubernetes enables): clauses ``%s %d %f %e %b %x %X %o`` and ``%%``,
with an optional ``.N`` precision for ``%f``/``%e`` (default 6), numbers in
the en_US locale (``%.2f`` of 1234.5 is ``1,234.50``; ``%e`` of 2.5 is
``2.500000 × 10⁰⁰``). Floats are rendered from their exact binary value, as Go
does, never through an intermediate rounding. Also ``go_float`` — the CEL
``string(double)`` text (Go's shortest ``%g``)."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from dralloc.cel.cost import charge, text_cost
from dralloc.cel.errors import CELRuntimeError, no_overload
from dralloc.cel.values import UInt, type_name

DEFAULT_PRECISION = 6
MAX_PRECISION = 1_000_000
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
_STRING_TYPES = "strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps"


class FormatError(ValueError):
    pass


def go_float(x: float) -> str:
    """Go's ``strconv.FormatFloat(x, 'g', -1, 64)``: the shortest round-trip
    digits, in exponent form below 1e-4 and from 1e6 upwards."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "+Inf" if x > 0 else "-Inf"
    if x == 0:
        return "-0" if math.copysign(1.0, x) < 0 else "0"
    sign = "-" if x < 0 else ""
    _, digits, exp = Decimal(repr(abs(x))).normalize().as_tuple()
    ds = "".join(map(str, digits))
    point = len(ds) + int(exp)  # position of the decimal point
    e = point - 1
    if e < -4 or e >= 6:
        mant = ds[0] + ("." + ds[1:] if len(ds) > 1 else "")
        return f"{sign}{mant}e{'-' if e < 0 else '+'}{abs(e):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{ds}"
    if point >= len(ds):
        return sign + ds + "0" * (point - len(ds))
    return f"{sign}{ds[:point]}.{ds[point:]}"


def go_quote(s: str) -> str:
    """Go's ``%q`` of a string."""
    out = ['"']
    for c in s:
        o = ord(c)
        if c in '"\\':
            out.append("\\" + c)
        elif c in "\a\b\f\n\r\t\v":
            out.append("\\" + "abfnrtv"["\a\b\f\n\r\t\v".index(c)])
        elif o < 0x20 or o == 0x7F:
            out.append(f"\\x{o:02x}")
        elif c.isprintable():
            out.append(c)
        else:
            out.append(f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}")
    out.append('"')
    return "".join(out)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


# ---------------------------------------------------------------- %s
def fmt_string(v: Any) -> str:
    if isinstance(v, list):
        charge(len(v))   # nested lists may share elements: charge every member rendered
        return "[" + ", ".join(_member(x) for x in v) + "]"
    if isinstance(v, dict):
        return _fmt_map(v)
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if _is_int(v) or isinstance(v, str):
        return str(v)
    if isinstance(v, float):
        return go_float(v)
    if isinstance(v, bytes):
        return v.decode("utf-8", errors="replace")
    if type_name(v) in ("type", "google.protobuf.Timestamp", "google.protobuf.Duration"):
        return str(v.cel_string()) if hasattr(v, "cel_string") else repr(v)
    raise FormatError(f"error during formatting: string clause can only be used on {_STRING_TYPES}, "
                      f"was given {type_name(v)}")


def _unquoted_member(v: Any) -> str:
    t = type_name(v)
    if t in ("google.protobuf.Timestamp", "google.protobuf.Duration"):
        word = "timestamp" if t.endswith("Timestamp") else "duration"
        return f'{word}("{v.cel_string()}")'
    if isinstance(v, float):
        return _go_fixed(v, DEFAULT_PRECISION)
    if isinstance(v, list | dict | str | bytes | bool) or v is None or _is_int(v) or t == "type":
        return fmt_string(v)
    raise FormatError(f"error during formatting: no formatting function for {t}")


def _member(v: Any) -> str:
    s = _unquoted_member(v)
    charge(text_cost(len(s)))
    if isinstance(v, str):
        return go_quote(s)
    if isinstance(v, bytes):
        return "b" + go_quote(s)
    if isinstance(v, float) and (math.isinf(v) or math.isnan(v)):
        return go_quote(s)
    return s


def _fmt_map(m: dict[Any, Any]) -> str:
    charge(len(m))
    pairs = []
    for k, v in m.items():
        if not isinstance(k, str | int):
            raise FormatError(f"error during formatting: no formatting function for map key of type {type_name(k)}")
        pairs.append((_member(k), _member(v)))
    pairs.sort(key=lambda p: p[0].encode("utf-8"))
    return "{" + ", ".join(f"{k}:{v}" for k, v in pairs) + "}"


# ---------------------------------------------------------------- numbers
def _go_fixed(x: float, prec: int) -> str:
    """Go's plain ``%.Nf`` (no locale)."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "+Inf" if x > 0 else "-Inf"
    return f"{x:.{prec}f}"


def _float_arg(clause: str, v: Any) -> float:
    if isinstance(v, str) and v in ("NaN", "Infinity", "-Infinity"):
        return float(v.replace("Infinity", "inf"))
    if not isinstance(v, float):
        raise FormatError(f"error during formatting: {clause} clause can only be used on doubles, "
                          f"was given {type_name(v)}")
    return v


def fmt_fixed(v: Any, prec: int) -> str:
    x = _float_arg("fixed-point", v)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    return f"{x:,.{prec}f}"


def fmt_scientific(v: Any, prec: int) -> str:
    x = _float_arg("scientific", v)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    mant, _, exp = f"{x:.{prec}e}".partition("e")
    e = int(exp)
    sup = f"{'-' if e < 0 else ''}{abs(e):02d}".translate(_SUPERSCRIPT)
    return f"{mant}\u202f×\u202f10{sup}"


def fmt_decimal(v: Any) -> str:
    if not _is_int(v):
        raise FormatError(f"error during formatting: decimal clause can only be used on integers, "
                          f"was given {type_name(v)}")
    return str(int(v))


def fmt_binary(v: Any) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    if not _is_int(v):
        raise FormatError(f"error during formatting: only integers and bools can be formatted as binary, "
                          f"was given {type_name(v)}")
    return format(int(v), "b")


def fmt_hex(v: Any, upper: bool) -> str:
    if _is_int(v):
        s = format(int(v), "x")
    elif isinstance(v, str | bytes):
        s = (v.encode("utf-8") if isinstance(v, str) else v).hex()
    else:
        raise FormatError(f"error during formatting: only integers, byte buffers, and strings can be "
                          f"formatted as hex, was given {type_name(v)}")
    return s.upper() if upper else s


def fmt_octal(v: Any) -> str:
    if not _is_int(v):
        raise FormatError(f"error during formatting: octal clause can only be used on integers, "
                          f"was given {type_name(v)}")
    return format(int(v), "o")


# ---------------------------------------------------------------- the clause parser
def _precision(fmt: str, i: int) -> tuple[int, int | None]:
    """Parse ``.N`` at ``fmt[i]``; returns (next index, precision or None)."""
    if fmt[i] != ".":
        return i, None
    j = i + 1
    while j < len(fmt) and fmt[j].isascii() and fmt[j].isdigit():
        j += 1
    if j >= len(fmt):
        raise FormatError("could not parse formatting clause: error while parsing precision: "
                          "could not find end of precision specifier")
    if j == i + 1:
        raise FormatError("could not parse formatting clause: error while parsing precision: "
                          "error while converting precision to integer: strconv.Atoi: parsing \"\": invalid syntax")
    prec = int(fmt[i + 1:j])
    if prec > MAX_PRECISION:
        raise CELRuntimeError("operation cancelled: actual cost limit exceeded")
    return j, prec


def _clause(fmt: str, i: int, arg: Any) -> tuple[int, str]:
    i, prec = _precision(fmt, i)
    c = fmt[i]
    p = DEFAULT_PRECISION if prec is None else prec
    simple = {"s": fmt_string, "d": fmt_decimal, "b": fmt_binary, "o": fmt_octal}
    if c in simple:
        return i + 1, simple[c](arg)
    if c == "f":
        return i + 1, fmt_fixed(arg, p)
    if c == "e":
        return i + 1, fmt_scientific(arg, p)
    if c in "xX":
        return i + 1, fmt_hex(arg, c == "X")
    raise FormatError(f'could not parse formatting clause: unrecognized formatting clause "{c}"')


def format_string(fmt: str, args: list[Any]) -> str:
    out: list[str] = []
    i, n = 0, 0
    while i < len(fmt):
        c = fmt[i]
        if c != "%":
            out.append(c)
            i += 1
            continue
        if fmt[i + 1:i + 2] == "%":
            out.append("%")
            i += 2
            continue
        if n >= len(args):
            raise FormatError(f"index {n} out of range")
        if i + 1 >= len(fmt):
            raise FormatError("unexpected end of string")
        i, text = _clause(fmt, i + 1, args[n])
        charge(text_cost(len(text)))
        out.append(text)
        n += 1
    return "".join(out)


def f_format(*a: Any) -> str:
    if len(a) != 2 or not isinstance(a[0], str) or not isinstance(a[1], list):
        raise no_overload("format", *a)
    try:
        return format_string(a[0], a[1])
    except FormatError as e:
        raise CELRuntimeError(str(e)) from None


MEMBER = {"format": f_format}
GLOBAL: dict[str, Any] = {}
RETURNS = {"format": "string"}
__all__ = ["go_float", "go_quote", "format_string", "UInt"]
