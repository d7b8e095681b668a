"""CEL timestamps and durations (exact nanoseconds, UTC default)."""

from __future__ import annotations

from zoneinfo import ZoneInfo

import pytest
from cel_helpers import run

from dralloc.cel import CELCompileError, CELRuntimeError, compile_selector

T = 'timestamp("2023-02-03T23:31:20Z")'


@pytest.mark.parametrize("expr", [
    'string(timestamp("2023-02-03T23:31:20+01:00")) == "2023-02-03T22:31:20Z"',
    'string(timestamp("2023-02-03T23:31:20.120Z")) == "2023-02-03T23:31:20.12Z"',
    'string(timestamp("0001-01-01T00:00:00Z")) == "0001-01-01T00:00:00Z"',
    f'{T} + duration("1h30m") == timestamp("2023-02-04T01:01:20Z")',
    f'duration("30m") + {T} == timestamp("2023-02-04T00:01:20Z")',
    f'{T} - duration("20s") == timestamp("2023-02-03T23:31:00Z")',
    'timestamp("2023-01-02T00:00:00Z") - timestamp("2023-01-01T00:00:00Z") == duration("24h")',
    'timestamp("2023-01-01T00:00:00Z") < timestamp("2023-01-01T00:00:00.000000001Z")',
    'duration("1h") > duration("59m59.999999999s") && duration("-1s") < duration("0")',
    'duration("1.5h") == duration("90m") && duration("1500us") == duration("1.5ms")',
    'duration("1µs") == duration("1000ns") && duration("+2s") - duration("3s") == duration("-1s")',
    'string(duration("1h45m47s")) == "6347s" && string(duration("-1.5ms")) == "-0.0015s"',
    'duration("90m").getHours() == 1 && duration("90m").getMinutes() == 90',
    'duration("-90s").getMinutes() == -1 && duration("1.5s").getMilliseconds() == 1500',
    'duration("2m3s").getSeconds() == 123',
    f'{T}.getFullYear() == 2023 && {T}.getMonth() == 1 && {T}.getDate() == 3',
    f'{T}.getDayOfMonth() == 2 && {T}.getDayOfYear() == 33 && {T}.getDayOfWeek() == 5',
    f'{T}.getHours() == 23 && {T}.getMinutes() == 31 && {T}.getSeconds() == 20',
    'timestamp("2023-02-03T23:31:20.345Z").getMilliseconds() == 345',
    f'{T}.getHours("+05:30") == 5 && {T}.getMinutes("-01:15") == 16',
    'int(timestamp("1970-01-01T00:01:00Z")) == 60 && timestamp(60) == timestamp("1970-01-01T00:01:00Z")',
    f'"%s".format([{T}]) == "2023-02-03T23:31:20Z"',
    f'"%s".format([[{T}, duration("2h")]]) == \'[timestamp("2023-02-03T23:31:20Z"), duration("7200s")]\'',
])
def test_time(expr: str) -> None:
    assert run(expr) is True


def _has_zone_database() -> bool:
    try:
        ZoneInfo("America/New_York")
    except Exception:  # no system tz database and no tzdata package
        return False
    return True


@pytest.mark.skipif(not _has_zone_database(), reason="no IANA time zone database")
def test_named_time_zones() -> None:
    assert run(f'{T}.getHours("America/New_York") == 18 && {T}.getDate("Asia/Tokyo") == 4') is True


@pytest.mark.parametrize(("expr", "message"), [
    ('timestamp("2023-02-03 23:31:20Z") == timestamp(0)', "as RFC 3339"),
    ('timestamp("2023-02-30T00:00:00Z") == timestamp(0)', "day is out of range"),
    ('duration("1d") == duration("24h")', 'invalid duration "1d"|invalid duration \'1d\''),
    ('duration("") == duration("0")', "invalid duration"),
    ('timestamp("9999-12-31T23:59:59Z") + duration("1s") == timestamp(0)', "timestamp overflow"),
    ('duration("2562047h") + duration("2562047h") == duration("0")', "duration overflow"),
    (f'{T}.getHours("Mars/Olympus") == 1', "unknown time zone"),
    ('duration("1h").getFullYear() == 1', "no such overload"),
])
def test_time_errors(expr: str, message: str) -> None:
    with pytest.raises(CELRuntimeError, match=message):
        run(expr)


@pytest.mark.parametrize("expr", [
    f'{T} + {T} == {T}',
    f'{T} < duration("1s")',
    f'{T} == 1',
])
def test_time_type_errors(expr: str) -> None:
    with pytest.raises(CELCompileError, match="found no matching overload"):
        compile_selector(expr)
