"""Kubernetes' named-format CEL library (``format.named``, ``format.<name>()``,
``<format>.validate(s)``).

Each format is a validator returning Kubernetes' error strings; ``validate``
gives ``optional.none()`` for a valid string and ``optional.of([messages])``
otherwise. The validators follow apimachinery (DNS labels and subdomains,
qualified names, label values) and kube-openapi's strfmt (uuid, byte, date,
datetime), with Go's regexp semantics (whole-string matches, no trailing
newline leniency) and lengths counted in bytes as Go does."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dralloc.cel.errors import no_overload
from dralloc.cel.liburl import URLError, go_quote, parse_request_uri
from dralloc.cel.values import Opt

Validator = Callable[[str], list[str]]


@dataclass(frozen=True)
class NamedFormat:
    """A CEL ``kubernetes.NamedFormat`` value; equal when the names are."""

    name: str
    validator: Validator
    max_regex_size: int

    cel_type_name = "kubernetes.NamedFormat"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NamedFormat) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("NamedFormat", self.name))

    def __repr__(self) -> str:
        return f"format.{self.name}()"


# ---------------------------------------------------------------- apimachinery
_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN = _LABEL + "(\\." + _LABEL + ")*"
_LABEL1035 = "[a-z]([-a-z0-9]*[a-z0-9])?"
_KEY = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_VALUE = "(" + _KEY + ")?"
_RX = {p: re.compile(p) for p in (_LABEL, _SUBDOMAIN, _LABEL1035, _KEY, _VALUE)}


def _match(pattern: str, s: str) -> bool:
    return _RX[pattern].fullmatch(s) is not None


def _blen(s: str) -> int:
    return len(s.encode("utf-8", "surrogatepass"))


def _max_len(n: int, unit: str = "characters") -> str:
    return f"must be no more than {n} {unit}"


def _regex_error(msg: str, pattern: str, *examples: str) -> str:
    shown = " or ".join(f"'{e}'" for e in examples)
    return f"{msg} (e.g. {shown}, regex used for validation is '{pattern}')"


_LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
              "and must start and end with an alphanumeric character")
_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                  "'-' or '.', and must start and end with an alphanumeric character")
_LABEL1035_MSG = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
                  "start with an alphabetic character, and end with an alphanumeric character")
_KEY_MSG = ("must consist of alphanumeric characters, '-', '_' or '.', "
            "and must start and end with an alphanumeric character")
_VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
              "and must start and end with an alphanumeric character")


def dns1123_label(s: str, unit: str = "characters") -> list[str]:
    errs = [_max_len(63, unit)] if _blen(s) > 63 else []
    if not _match(_LABEL, s):
        errs.append("must not contain dots" if _match(_SUBDOMAIN, s)
                    else _regex_error(_LABEL_MSG, _LABEL, "my-name", "123-abc"))
    return errs


def dns1123_subdomain(s: str, unit: str = "characters") -> list[str]:
    errs = [_max_len(253, unit)] if _blen(s) > 253 else []
    if not _match(_SUBDOMAIN, s):
        errs.append(_regex_error(_SUBDOMAIN_MSG, _SUBDOMAIN, "example.com"))
    return errs


def dns1035_label(s: str) -> list[str]:
    errs = [_max_len(63)] if _blen(s) > 63 else []
    if not _match(_LABEL1035, s):
        errs.append(_regex_error(_LABEL1035_MSG, _LABEL1035, "my-name", "abc-123"))
    return errs


def _mask_trailing_dash(s: str) -> str:
    """A generated-name prefix may end in '-': judge it as if the dash were a letter."""
    raw = s.encode("utf-8", "surrogatepass")
    if len(raw) > 1 and raw.endswith(b"-"):
        return (raw[:-2] + b"a").decode("utf-8", "replace")
    return s


def qualified_name(s: str) -> list[str]:
    parts = s.split("/")
    if len(parts) > 2:
        return ["a valid label key " + _regex_error(_KEY_MSG, _KEY, "MyName", "my.name", "123-abc")
                + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    errs: list[str] = []
    name = parts[-1]
    if len(parts) == 2:
        if parts[0] == "":
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in dns1123_subdomain(parts[0], "bytes"))
    if name == "":
        errs.append("name part must be non-empty")
    elif _blen(name) > 63:
        errs.append("name part " + _max_len(63, "bytes"))
    if not _match(_KEY, name):
        errs.append("name part " + _regex_error(_KEY_MSG, _KEY, "MyName", "my.name", "123-abc"))
    return errs


def label_value(s: str) -> list[str]:
    errs = [_max_len(63, "bytes")] if _blen(s) > 63 else []
    if not _match(_VALUE, s):
        errs.append(_regex_error(_VALUE_MSG, _VALUE, "MyValue", "my_value", "12345"))
    return errs


# ---------------------------------------------------------------- strfmt
_UUID = re.compile(r"[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}", re.I | re.ASCII)
_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_TIME = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))")
_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def is_date(s: str) -> bool:
    """Go's ``time.Parse("2006-01-02", s)``: fixed widths and a real calendar day."""
    m = _DATE.fullmatch(s)
    if m is None:
        return False
    year, month, day = (int(g) for g in m.groups())
    if not 1 <= month <= 12:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return 1 <= day <= _DAYS[month - 1] + (month == 2 and leap)


def _go_lower(s: str) -> str:
    # Go lowercases rune by rune; Python expands U+0130 to two runes
    return "".join("i" if c == "\u0130" else c.lower() for c in s)


def is_datetime(s: str) -> bool:
    """strfmt's date-time check: the part before the first 't' is a date and the
    part after it (up to any further 't') is a time with a zone."""
    if _blen(s) < 4:
        return False
    parts = _go_lower(s).split("t")
    if len(parts) < 2 or not is_date(parts[0]):
        return False
    m = _TIME.fullmatch(parts[1])
    return m is not None and m[1] <= "23" and m[2] <= "59" and m[3] <= "59"


def _uri(s: str) -> list[str]:
    try:
        parse_request_uri(s)
    except URLError as e:
        return [f"parse {go_quote(s)}: {e}"]
    return []


def _check(ok: Callable[[str], bool], message: str) -> Validator:
    return lambda s: [] if ok(s) else [message]


FORMATS: dict[str, NamedFormat] = {f.name: f for f in (
    NamedFormat("dns1123Label", dns1123_label, 30),
    NamedFormat("dns1123Subdomain", dns1123_subdomain, 60),
    NamedFormat("dns1035Label", dns1035_label, 30),
    NamedFormat("qualifiedName", qualified_name, 60),
    NamedFormat("dns1123LabelPrefix", lambda s: dns1123_label(_mask_trailing_dash(s)), 30),
    NamedFormat("dns1123SubdomainPrefix", lambda s: dns1123_subdomain(_mask_trailing_dash(s)), 60),
    NamedFormat("dns1035LabelPrefix", lambda s: dns1035_label(_mask_trailing_dash(s)), 30),
    NamedFormat("labelValue", label_value, 40),
    NamedFormat("uri", _uri, 1103),
    NamedFormat("uuid", _check(lambda s: _UUID.fullmatch(s) is not None, "does not match the UUID format"), 70),
    NamedFormat("byte", _check(lambda s: _BASE64.fullmatch(s) is not None, "invalid base64"), 84),
    NamedFormat("date", _check(is_date, "invalid date"), 71),
    NamedFormat("datetime", _check(is_datetime, "invalid datetime"), 71),
)}


# ---------------------------------------------------------------- CEL functions
def f_named(*a: Any) -> Opt:
    if len(a) != 1 or not isinstance(a[0], str):
        raise no_overload("format.named", *a)
    f = FORMATS.get(a[0])
    return Opt.NONE if f is None else Opt(f, True)


def f_validate(*a: Any) -> Opt:
    if len(a) != 2 or not isinstance(a[0], NamedFormat) or not isinstance(a[1], str):
        raise no_overload("validate", *a)
    errs = a[0].validator(a[1])
    return Opt(errs, True) if errs else Opt.NONE


def validate_cost(*a: Any) -> int:
    """Kubernetes' runtime cost of ``validate``: string traversal (0.1 per
    character, one added) times the format's regex size (0.25 per byte)."""
    if len(a) != 2 or not isinstance(a[0], NamedFormat) or not isinstance(a[1], str):
        return 0
    return -(-(1 + len(a[1])) // 10) * -(-a[0].max_regex_size // 4)


def _constant(f: NamedFormat) -> Callable[..., NamedFormat]:
    def make(*a: Any) -> NamedFormat:
        if a:
            raise no_overload(f"format.{f.name}", *a)
        return f
    return make


MEMBER = {"validate": f_validate}
GLOBAL: dict[str, Callable[..., Any]] = {
    "format.named": f_named, **{f"format.{n}": _constant(f) for n, f in FORMATS.items()},
}
RETURNS = {"format.named": "optional_type", "validate": "optional_type",
           **{f"format.{n}": "kubernetes.NamedFormat" for n in FORMATS}}
COSTS = {"validate": validate_cost}
