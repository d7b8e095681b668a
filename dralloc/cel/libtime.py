"""CEL timestamps and durations (standard CEL, UTC default time zone).

Both are exact integer nanoseconds: a Timestamp counts from the Unix epoch
(range 0001-01-01 to 9999-12-31, as cel-go), a Duration is an int64 count.
``timestamp()`` reads RFC 3339 text; ``duration()`` reads Go duration text
(``1h30m``, ``1.5s``, ``300ms``, ``-2us``)."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from fractions import Fraction
from typing import Any
from zoneinfo import ZoneInfo

from dralloc.cel.errors import CELRuntimeError, no_overload

NS = 1_000_000_000
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
MIN_TS = -62135596800 * NS  # 0001-01-01T00:00:00Z
MAX_TS = 253402300799 * NS + NS - 1  # 9999-12-31T23:59:59.999999999Z
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
_UNITS = {"ns": 1, "us": 1000, "µs": 1000, "μs": 1000, "ms": 10**6, "s": NS, "m": 60 * NS, "h": 3600 * NS}
_DUR_PART = re.compile(r"([0-9]*)(?:\.([0-9]*))?(ns|us|µs|μs|ms|s|m|h)")
_RFC3339 = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})")


class TimeValue:
    __slots__ = ("ns",)
    cel_type_name = ""

    def __init__(self, ns: int) -> None:
        self.ns = ns

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.ns == self.ns  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((self.cel_type_name, self.ns))

    def __repr__(self) -> str:
        return f"{type(self).__name__.lower()}({self.cel_string()!r})"

    def cel_string(self) -> str:
        raise NotImplementedError


class Timestamp(TimeValue):
    __slots__ = ()
    cel_type_name = "google.protobuf.Timestamp"

    def cel_string(self) -> str:
        secs, frac = divmod(self.ns, NS)
        text = (_EPOCH + dt.timedelta(seconds=secs)).strftime("%Y-%m-%dT%H:%M:%S")
        if len(text) < 19:  # years below 1000
            text = text.zfill(19)
        return text + (f".{frac:09d}".rstrip("0") if frac else "") + "Z"


class Duration(TimeValue):
    __slots__ = ()
    cel_type_name = "google.protobuf.Duration"

    def cel_string(self) -> str:
        text = format(Decimal(repr(self.ns / NS)), "f")
        return (text[:-2] if text.endswith(".0") else text) + "s"


def timestamp_of(ns: int) -> Timestamp:
    if not MIN_TS <= ns <= MAX_TS:
        raise CELRuntimeError("timestamp overflow")
    return Timestamp(ns)


def duration_of(ns: int) -> Duration:
    if not INT64_MIN <= ns <= INT64_MAX:
        raise CELRuntimeError("duration overflow")
    return Duration(ns)


def parse_duration(text: str) -> int:
    s = text
    sign = -1 if s.startswith("-") else 1
    s = s[1:] if s[:1] in "+-" else s
    if s == "0":
        return 0
    if not s:
        raise ValueError(f"time: invalid duration {text!r}")
    total, pos = Fraction(0), 0
    while pos < len(s):
        m = _DUR_PART.match(s, pos)
        if m is None or not (m.group(1) or m.group(2)):
            raise ValueError(f"time: invalid duration {text!r}")
        whole = Fraction(int(m.group(1) or "0"))
        frac = Fraction(int(m.group(2)), 10 ** len(m.group(2))) if m.group(2) else Fraction(0)
        total += (whole + frac) * _UNITS[m.group(3)]
        pos = m.end()
    ns = sign * int(total)
    if not INT64_MIN <= ns <= INT64_MAX:
        raise ValueError(f"time: invalid duration {text!r}")
    return ns


def parse_timestamp(text: str) -> int:
    m = _RFC3339.fullmatch(text)
    if m is None:
        raise ValueError(f'parsing time "{text}" as RFC 3339: cannot parse')
    y, mo, d, h, mi, sec = (int(m.group(i)) for i in range(1, 7))
    try:
        day = dt.date(y, mo, d)
    except ValueError as e:
        raise ValueError(f'parsing time "{text}": {e}') from None
    if h > 23 or mi > 59 or sec > 59:
        raise ValueError(f'parsing time "{text}": time out of range')
    frac = int((m.group(7) or "0").ljust(9, "0"))
    off = 0
    if m.group(8) != "Z":
        oh, om = int(m.group(8)[1:3]), int(m.group(8)[4:6])
        off = (1 if m.group(8)[0] == "+" else -1) * (oh * 3600 + om * 60)
    secs = (day.toordinal() - dt.date(1970, 1, 1).toordinal()) * 86400 + h * 3600 + mi * 60 + sec - off
    return secs * NS + frac


# ---------------------------------------------------------------- arithmetic (used by ops)
def add(a: Any, b: Any) -> Any:
    if isinstance(a, Duration) and isinstance(b, Duration):
        return duration_of(a.ns + b.ns)
    if isinstance(a, Timestamp) and isinstance(b, Duration):
        return timestamp_of(a.ns + b.ns)
    if isinstance(a, Duration) and isinstance(b, Timestamp):
        return timestamp_of(a.ns + b.ns)
    raise no_overload("_+_", a, b)


def sub(a: Any, b: Any) -> Any:
    if isinstance(a, Timestamp) and isinstance(b, Timestamp):
        return duration_of(a.ns - b.ns)
    if isinstance(a, Duration) and isinstance(b, Duration):
        return duration_of(a.ns - b.ns)
    if isinstance(a, Timestamp) and isinstance(b, Duration):
        return timestamp_of(a.ns - b.ns)
    raise no_overload("_-_", a, b)


# ---------------------------------------------------------------- functions
def f_timestamp(*a: Any) -> Timestamp:
    v = a[0] if len(a) == 1 else None
    if isinstance(v, Timestamp):
        return v
    if isinstance(v, int) and not isinstance(v, bool):
        return timestamp_of(int(v) * NS)
    if not isinstance(v, str):
        raise no_overload("timestamp", *a)
    try:
        return timestamp_of(parse_timestamp(v))
    except ValueError as e:
        raise CELRuntimeError(f"type conversion error from 'string' to 'google.protobuf.Timestamp': {e}") from None


def f_duration(*a: Any) -> Duration:
    v = a[0] if len(a) == 1 else None
    if isinstance(v, Duration):
        return v
    if not isinstance(v, str):
        raise no_overload("duration", *a)
    try:
        return Duration(parse_duration(v))
    except ValueError as e:
        raise CELRuntimeError(f"type conversion error from 'string' to 'google.protobuf.Duration': {e}") from None


def _zone(name: str) -> dt.tzinfo:
    m = re.fullmatch(r"([+-]?)(\d{1,2}):(\d{2})", name)
    if m:
        sign = -1 if m.group(1) == "-" else 1
        return dt.timezone(sign * dt.timedelta(hours=int(m.group(2)), minutes=int(m.group(3))))
    try:
        return ZoneInfo(name)
    except Exception:  # unknown or malformed zone name
        raise CELRuntimeError(f"unknown time zone {name!r}") from None


def _local(fn: str, a: tuple[Any, ...]) -> tuple[dt.datetime, int]:
    if not 1 <= len(a) <= 2 or not isinstance(a[0], Timestamp) or (len(a) == 2 and not isinstance(a[1], str)):
        raise no_overload(fn, *a)
    secs, frac = divmod(a[0].ns, NS)
    when = _EPOCH + dt.timedelta(seconds=secs)
    if len(a) == 2:
        try:
            when = when.astimezone(_zone(a[1]))
        except OverflowError:
            raise CELRuntimeError("timestamp overflow") from None
    return when, frac


def _ts_or_dur(fn: str, ts_part: Any, dur_unit: int) -> Any:
    def impl(*a: Any) -> int:
        if len(a) == 1 and isinstance(a[0], Duration):
            if not dur_unit:
                raise no_overload(fn, *a)
            q = abs(a[0].ns) // dur_unit
            return q if a[0].ns >= 0 else -q
        when, frac = _local(fn, a)
        return int(ts_part(when, frac))
    return impl


MEMBER = {
    "getFullYear": _ts_or_dur("getFullYear", lambda w, f: w.year, 0),
    "getMonth": _ts_or_dur("getMonth", lambda w, f: w.month - 1, 0),
    "getDate": _ts_or_dur("getDate", lambda w, f: w.day, 0),
    "getDayOfMonth": _ts_or_dur("getDayOfMonth", lambda w, f: w.day - 1, 0),
    "getDayOfYear": _ts_or_dur("getDayOfYear", lambda w, f: w.timetuple().tm_yday - 1, 0),
    "getDayOfWeek": _ts_or_dur("getDayOfWeek", lambda w, f: (w.weekday() + 1) % 7, 0),
    "getHours": _ts_or_dur("getHours", lambda w, f: w.hour, 3600 * NS),
    "getMinutes": _ts_or_dur("getMinutes", lambda w, f: w.minute, 60 * NS),
    "getSeconds": _ts_or_dur("getSeconds", lambda w, f: w.second, NS),
    "getMilliseconds": _ts_or_dur("getMilliseconds", lambda w, f: f // 10**6, 10**6),
}
GLOBAL = {"timestamp": f_timestamp, "duration": f_duration}
RETURNS = {"timestamp": "google.protobuf.Timestamp", "duration": "google.protobuf.Duration",
           **{name: "int" for name in MEMBER}}
