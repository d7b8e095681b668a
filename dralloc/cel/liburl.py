"""Kubernetes URL CEL library (``url``, ``isURL`` and the ``get*`` accessors).

A string is a URL when Go's ``url.ParseRequestURI`` accepts it (an absolute
URI or an absolute path) and ``url.Parse`` does too; the accessors return the
parts as Go's ``net/url`` splits them. Python's ``urllib.parse`` is more
lenient (no port or escape checks), so the parsing rules live here."""

from __future__ import annotations

import string
from typing import Any

from dralloc.cel.errors import CELRuntimeError, no_overload


class URLError(ValueError):
    pass


class URL:
    """A CEL ``kubernetes.URL`` value."""

    __slots__ = ("raw", "scheme", "host", "path", "raw_path", "query", "opaque")
    cel_type_name = "kubernetes.URL"

    def __init__(self, raw: str) -> None:
        self.raw = raw
        self.scheme = self.host = self.path = self.raw_path = self.query = self.opaque = ""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, URL) and other.raw == self.raw

    def __hash__(self) -> int:
        return hash(("URL", self.raw))

    def __repr__(self) -> str:
        return f"url({self.raw!r})"


_ALNUM = frozenset(string.ascii_letters + string.digits)
_SCHEME_REST = _ALNUM | frozenset("+-.")
_HEX = frozenset(string.hexdigits)
_UNRESERVED = _ALNUM | frozenset("-_.~")
_PATH_OK = _UNRESERVED | frozenset("$&+,/:;=@")  # not escaped in a path
_PATH_RAW_OK = _PATH_OK | frozenset("!$&'()*+,;=:@[]%")  # accepted as already encoded
_HOST_OK = _UNRESERVED | frozenset("!$&'()*+,;=:[]<>\"")
_USERINFO_OK = _UNRESERVED | frozenset("$&+,;=:!'()*%@")


def _split_scheme(raw: str) -> tuple[str, str]:
    for i, c in enumerate(raw):
        if c in string.ascii_letters:
            continue
        if c in _SCHEME_REST and i > 0:
            continue
        if c == ":":
            if i == 0:
                raise URLError("missing protocol scheme")
            return raw[:i].lower(), raw[i + 1:]
        return "", raw
    return "", raw


def _unescape(s: str, host: bool = False) -> str:
    out = bytearray()
    i = 0
    while i < len(s):
        c = s[i]
        if c == "%":
            esc = s[i:i + 3]
            if len(esc) < 3 or not set(esc[1:]) <= _HEX:
                raise URLError(f"invalid URL escape {go_quote(esc)}")
            if host and int(esc[1], 16) < 8 and esc != "%25":
                raise URLError(f"invalid URL escape {go_quote(esc)}")
            out.append(int(esc[1:], 16))
            i += 3
            continue
        if host and c.isascii() and c not in _HOST_OK:
            raise URLError(f"invalid character {go_quote(c)} in host name")
        out.extend(c.encode("utf-8"))
        i += 1
    return out.decode("utf-8", errors="surrogateescape")


def _valid_port(colon_port: str) -> bool:
    return colon_port == "" or (colon_port[0] == ":" and colon_port[1:].isascii()
                                and (colon_port[1:] == "" or colon_port[1:].isdigit()))


def _parse_host(host: str) -> str:
    if host.startswith("["):
        end = host.rfind("]")
        if end < 0:
            raise URLError("missing ']' in host")
        if not _valid_port(host[end + 1:]):
            raise URLError(f"invalid port {go_quote(host[end + 1:])} after host")
    else:
        colon = host.rfind(":")
        if colon >= 0 and not _valid_port(host[colon:]):
            raise URLError(f"invalid port {go_quote(host[colon:])} after host")
    return _unescape(host, host=True)


def _parse_authority(auth: str) -> str:
    at = auth.rfind("@")
    if at >= 0:
        userinfo = auth[:at]
        if any(c.isascii() and c not in _USERINFO_OK for c in userinfo):
            raise URLError("net/url: invalid userinfo")
        _unescape(userinfo)
    return _parse_host(auth[at + 1:])


def _parse(raw: str, request: bool) -> URL:
    """One pass of Go's parser: ``request`` for ParseRequestURI (no fragment split)."""
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in raw):
        raise URLError("net/url: invalid control character in URL")
    if request and raw == "":
        raise URLError("empty url")
    u = URL(raw)
    if raw == "*":
        u.path = u.raw_path = "*"
        return u
    u.scheme, rest = _split_scheme(raw)
    if rest.endswith("?") and rest.count("?") == 1:
        rest = rest[:-1]
    else:
        rest, _, u.query = rest.partition("?")
    if not rest.startswith("/"):
        if u.scheme:
            u.opaque = rest
            return u
        if request:
            raise URLError("invalid URI for request")
        if ":" in rest.split("/", 1)[0]:
            raise URLError("first path segment in URL cannot contain colon")
    if (u.scheme or not request and not rest.startswith("///")) and rest.startswith("//"):
        authority, slash, tail = rest[2:].partition("/")
        u.host = _parse_authority(authority)
        rest = slash + tail
    u.path = _unescape(rest)
    u.raw_path = rest
    return u


def parse_url(raw: str) -> URL:
    try:
        _parse(raw, request=True)
        base, _, fragment = raw.partition("#")
        u = _parse(base, request=False)
        _unescape(fragment)
    except URLError as e:
        raise URLError(f"URL parse error during conversion from string: parse {go_quote(raw)}: {e}") from None
    return u


_GO_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
               "\v": "\\v", "\\": "\\\\", '"': '\\"'}


def _go_quote_char(c: str) -> str:
    if c in _GO_ESCAPES:
        return _GO_ESCAPES[c]
    n = ord(c)
    if c.isprintable() or c == " ":
        return c
    if n < 0x80 or 0xDC80 <= n <= 0xDCFF:  # ASCII control or a raw (invalid UTF-8) byte
        return f"\\x{n & 0xFF:02x}"
    return f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}"


def go_quote(s: str) -> str:
    """Go's ``strconv.Quote``: double quotes, C-style and hex escapes."""
    return '"' + "".join(_go_quote_char(c) for c in s) + '"'


def parse_request_uri(raw: str) -> URL:
    """Go's ``url.ParseRequestURI`` (no fragment split); raises URLError."""
    return _parse(raw, request=True)


def _escape_path(path: str) -> str:
    return "".join(c if c in _PATH_OK else "".join(f"%{b:02X}" for b in c.encode("utf-8", "surrogateescape"))
                   for c in path)


def escaped_path(u: URL) -> str:
    raw = u.raw_path
    if raw == "*":
        return "*"
    if all(c in _PATH_RAW_OK or not c.isascii() for c in raw) and all(c.isascii() for c in raw):
        return raw
    return _escape_path(u.path)


def _query_unescape(s: str) -> str:
    return _unescape(s.replace("+", " "))


def query_map(u: URL) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for part in u.query.split("&"):
        if not part or ";" in part:
            continue
        key, _, value = part.partition("=")
        try:
            k, v = _query_unescape(key), _query_unescape(value)
        except URLError:
            continue
        out.setdefault(k, []).append(v)
    return out


def _split_host_port(host: str) -> tuple[str, str]:
    colon = host.rfind(":")
    name, port = host, ""
    if colon >= 0 and _valid_port(host[colon:]):
        name, port = host[:colon], host[colon + 1:]
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    return name, port


# ---------------------------------------------------------------- CEL functions
def _url_arg(fn: str, a: tuple[Any, ...]) -> URL:
    if len(a) != 1 or not isinstance(a[0], URL):
        raise no_overload(fn, *a)
    return a[0]


def f_url(*a: Any) -> URL:
    if len(a) != 1 or not isinstance(a[0], str):
        raise no_overload("url", *a)
    try:
        return parse_url(a[0])
    except URLError as e:
        raise CELRuntimeError(str(e)) from None


def f_is_url(*a: Any) -> bool:
    if len(a) != 1 or not isinstance(a[0], str):
        raise no_overload("isURL", *a)
    try:
        _parse(a[0], request=True)
    except URLError:
        return False
    return True


MEMBER = {
    "getScheme": lambda *a: _url_arg("getScheme", a).scheme,
    "getHost": lambda *a: _url_arg("getHost", a).host,
    "getHostname": lambda *a: _split_host_port(_url_arg("getHostname", a).host)[0],
    "getPort": lambda *a: _split_host_port(_url_arg("getPort", a).host)[1],
    "getEscapedPath": lambda *a: escaped_path(_url_arg("getEscapedPath", a)),
    "getQuery": lambda *a: query_map(_url_arg("getQuery", a)),
}
GLOBAL = {"url": f_url, "isURL": f_is_url}
RETURNS = {
    "url": "kubernetes.URL", "isURL": "bool", "getScheme": "string", "getHost": "string",
    "getHostname": "string", "getPort": "string", "getEscapedPath": "string",
    "getQuery": "map(string, list(string))",
}
