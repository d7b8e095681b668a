"""CEL runtime values beyond plain Python ones, and the CEL comparison rules.

Mapping: bool → bool, int → int (int64 checked), uint → :class:`UInt`,
double → float, string → str, bytes → bytes, null → None, list → list,
map → dict, Kubernetes Quantity → :class:`dralloc.quantity.Quantity`,
Kubernetes Semver → :class:`Semver`, optional → :class:`Opt`, type → :class:`CelType`.
"""

from __future__ import annotations

import re
from functools import total_ordering
from typing import Any

from dralloc.cel.cost import charge
from dralloc.cel.errors import CELRuntimeError, type_name
from dralloc.cel.libtime import TimeValue

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1


class UInt(int):
    """A CEL uint."""

    cel_type_name = "uint"

    __slots__ = ()


class CelType:
    """A CEL type value, as returned by ``type(x)``."""

    cel_type_name = "type"

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CelType) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("CelType", self.name))

    def __repr__(self) -> str:
        return self.name


class Opt:
    """A CEL optional value; ``Opt.NONE`` is the empty optional."""

    cel_type_name = "optional_type"

    __slots__ = ("value", "present")
    NONE: Opt

    def __init__(self, value: Any = None, present: bool = True) -> None:
        self.value = value
        self.present = present

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Opt):
            return False
        if self.present != other.present:
            return False
        return not self.present or cel_eq(self.value, other.value)

    def __hash__(self) -> int:
        return hash(("Opt", self.present))


Opt.NONE = Opt(None, False)

_NUM = r"0|[1-9][0-9]*"
_IDENT = r"[0-9A-Za-z-]+"
_SEMVER_RE = re.compile(rf"^({_NUM})\.({_NUM})\.({_NUM})(?:-({_IDENT}(?:\.{_IDENT})*))?(?:\+({_IDENT}(?:\.{_IDENT})*))?$")


class SemverError(ValueError):
    pass


@total_ordering
class Semver:
    """A strict semantic version 2.0.0 value (precedence ignores build metadata)."""

    cel_type_name = "kubernetes.Semver"

    __slots__ = ("major", "minor", "patch", "pre", "build", "text")

    def __init__(self, major: int, minor: int, patch: int, pre: tuple[str, ...] = (),
                 build: tuple[str, ...] = (), text: str = "") -> None:
        self.major, self.minor, self.patch = major, minor, patch
        self.pre, self.build = pre, build
        self.text = text or self._render()

    def _render(self) -> str:
        s = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            s += "-" + ".".join(self.pre)
        if self.build:
            s += "+" + ".".join(self.build)
        return s

    @classmethod
    def parse(cls, text: str) -> Semver:
        m = _SEMVER_RE.match(text)
        if m is None:
            raise SemverError(_semver_problem(text))
        pre = tuple(m.group(4).split(".")) if m.group(4) else ()
        for p in pre:
            if p.isdigit() and len(p) > 1 and p[0] == "0":
                raise SemverError(f"Numeric PreRelease version must not contain leading zeroes {p!r}")
        build = tuple(m.group(5).split(".")) if m.group(5) else ()
        return cls(int(m.group(1)), int(m.group(2)), int(m.group(3)), pre, build, text)

    @classmethod
    def parse_normalized(cls, text: str) -> Semver:
        """``semver(s, true)``: drop a leading ``v``, fill missing parts, drop leading zeros."""
        s = text[1:] if text.startswith("v") else text
        core, sep, rest = s.partition("-") if "-" in s.split("+")[0] else s.partition("+")
        parts = core.split(".")
        if not 1 <= len(parts) <= 3 or not all(p.isdigit() for p in parts):
            return cls.parse(text)
        parts = [str(int(p)) for p in parts] + ["0"] * (3 - len(parts))
        return cls.parse(".".join(parts) + (sep + rest if sep else ""))

    def _key(self) -> tuple[Any, ...]:
        return (self.major, self.minor, self.patch)

    def compare(self, other: Semver) -> int:
        a, b = self._key(), other._key()
        if a != b:
            return -1 if a < b else 1
        return _cmp_pre(self.pre, other.pre)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Semver) and self.compare(other) == 0

    def __lt__(self, other: Semver) -> bool:
        return self.compare(other) < 0

    def __hash__(self) -> int:
        return hash(("Semver", self._key(), self.pre))

    def __repr__(self) -> str:
        return f"Semver({self.text!r})"


def _semver_problem(text: str) -> str:
    if not text:
        return "Version string empty"
    core = re.split(r"[-+]", text, maxsplit=1)[0]
    parts = core.split(".")
    if len(parts) != 3:
        return "No Major.Minor.Patch elements found"
    for name, p in zip(("major", "minor", "patch"), parts, strict=True):
        if not p.isdigit():
            return f"Invalid character(s) found in {name} number {p!r}"
        if len(p) > 1 and p[0] == "0":
            return f"{name.capitalize()} number must not contain leading zeroes {p!r}"
    return f"Invalid character(s) found in prerelease or build metadata {text[len(core):]!r}"


def _cmp_pre(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    if a == b:
        return 0
    if not a:
        return 1
    if not b:
        return -1
    for x, y in zip(a, b, strict=False):
        if x == y:
            continue
        xd, yd = x.isdigit(), y.isdigit()
        if xd and yd:
            return -1 if int(x) < int(y) else 1
        if xd != yd:
            return -1 if xd else 1
        return -1 if x < y else 1
    return -1 if len(a) < len(b) else 1


def _is_num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def cel_eq(a: Any, b: Any) -> bool:
    """Heterogeneous CEL equality: values of different types are unequal,
    except numbers, which compare by value across int, uint and double."""
    if _is_num(a) and _is_num(b):
        return bool(a == b)
    ta, tb = type(a), type(b)
    if ta is not tb:
        if isinstance(a, list | tuple) and isinstance(b, list | tuple):
            pass
        else:
            return False
    if isinstance(a, list | tuple):
        if len(a) != len(b):
            return False
        charge(len(a))   # nested lists can share elements: charge every comparison
        return all(cel_eq(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        if len(a) != len(b):
            return False
        charge(len(a))
        for k, v in a.items():
            if k not in b or not cel_eq(v, b[k]):
                return False
        return True
    return bool(a == b)


def cel_cmp(op: str, a: Any, b: Any) -> int:
    """Three-way comparison for the ordering operators; errors when unordered."""
    if _is_num(a) and _is_num(b):
        return (a > b) - (a < b)
    if type(a) is type(b) and isinstance(a, bool | str | bytes):
        return (a > b) - (a < b)
    if type(a) is type(b) and isinstance(a, TimeValue):
        return (a.ns > b.ns) - (a.ns < b.ns)
    raise CELRuntimeError(f"no such overload: {op}({type_name(a)}, {type_name(b)})")


def check_int(v: int) -> int:
    if v < INT64_MIN or v > INT64_MAX:
        raise CELRuntimeError("integer overflow")
    return v


def check_uint(v: int) -> UInt:
    if v < 0 or v > UINT64_MAX:
        raise CELRuntimeError("unsigned integer overflow")
    return UInt(v)
