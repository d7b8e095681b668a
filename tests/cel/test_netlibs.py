"""The Kubernetes IP, CIDR and URL CEL libraries, through real selectors."""

from __future__ import annotations

import pytest
from cel_helpers import run

from dralloc.cel import CELCompileError, CELRuntimeError, compile_selector


@pytest.mark.parametrize("expr", [
    'ip("127.0.0.1").family() == 4 && ip("::1").family() == 6',
    'isIP("10.0.0.1") && isIP("2001:db8::1") && isIP("::1.2.3.4")',
    '!isIP("127.0.0.256") && !isIP(":::1") && !isIP("127.0.0.01") && !isIP(" 1.2.3.4")',
    '!isIP("::ffff:1.2.3.4") && !isIP("fe80::1%eth0") && !isIP("")',
    'ip.isCanonical("127.0.0.1") && ip.isCanonical("2001:db8::abcd")',
    '!ip.isCanonical("2001:DB8::ABCD") && !ip.isCanonical("2001:db8::0:0:0:abcd")',
    'string(ip("2001:DB8:0:0:0::ABCD")) == "2001:db8::abcd"',
    'ip("0.0.0.0").isUnspecified() && ip("::").isUnspecified() && !ip("::1").isUnspecified()',
    'ip("127.9.9.9").isLoopback() && ip("::1").isLoopback() && !ip("192.168.0.1").isLoopback()',
    'ip("224.0.0.1").isLinkLocalMulticast() && !ip("224.0.1.1").isLinkLocalMulticast()',
    'ip("ff02::1").isLinkLocalMulticast() && !ip("fd00::1").isLinkLocalMulticast()',
    'ip("169.254.169.254").isLinkLocalUnicast() && ip("fe80::1").isLinkLocalUnicast()',
    '!ip("fd80::1").isLinkLocalUnicast() && !ip("192.168.0.1").isLinkLocalUnicast()',
    'ip("192.168.0.1").isGlobalUnicast() && ip("2001:db8::abcd").isGlobalUnicast()',
    '!ip("255.255.255.255").isGlobalUnicast() && !ip("ff00::1").isGlobalUnicast()',
    '!ip("224.0.0.5").isGlobalUnicast() && !ip("0.0.0.0").isGlobalUnicast()',
    'ip("10.0.0.1") == ip("10.0.0.1") && ip("10.0.0.1") != ip("10.0.0.2")',
    'type(ip("10.0.0.1")) != type("10.0.0.1")',
])
def test_ip(expr: str) -> None:
    assert run(expr) is True


@pytest.mark.parametrize("expr", [
    'cidr("192.168.0.0/24").containsIP("192.168.0.77")',
    'cidr("192.168.0.0/24").containsIP(ip("192.168.0.255"))',
    '!cidr("192.168.0.0/24").containsIP("192.168.1.0")',
    '!cidr("::/0").containsIP("1.2.3.4") && cidr("0.0.0.0/0").containsIP("1.2.3.4")',
    'cidr("192.168.0.0/24").containsCIDR("192.168.0.128/25")',
    'cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/24"))',
    '!cidr("192.168.0.0/24").containsCIDR("192.168.0.0/23")',
    '!cidr("192.168.0.0/24").containsCIDR("2001:db8::/64")',
    'cidr("192.168.0.1/24").ip() == ip("192.168.0.1")',
    'cidr("192.168.0.1/24").masked() == cidr("192.168.0.0/24")',
    'cidr("192.168.0.1/24") != cidr("192.168.0.0/24")',
    'string(cidr("192.168.0.1/24").masked()) == "192.168.0.0/24"',
    'string(cidr("2001:DB8::1/32").masked()) == "2001:db8::/32"',
    'cidr("2001:db8::/32").prefixLength() == 32',
    'cidr("10.1.0.0/16").containsIP("10.1.255.3")',
    'isCIDR("10.0.0.0/8") && !isCIDR("10.0.0.0/33") && !isCIDR("10.0.0.0") && !isCIDR("10.0.0.0/08")',
    '!isCIDR("::ffff:1.2.3.4/96") && !isCIDR("fe80::1%eth0/64") && isCIDR("::/0")',
])
def test_cidr(expr: str) -> None:
    assert run(expr) is True


@pytest.mark.parametrize(("expr", "message"), [
    ('ip("127.0.0.256").family() == 4', 'IP Address "127.0.0.256" parse error'),
    ('ip("::ffff:1.2.3.4").family() == 6', 'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed'),
    ('ip("fe80::1%eth0").family() == 6', 'IP address "fe80::1%eth0" with zone value is not allowed'),
    ('cidr("10.0.0.0/33").prefixLength() == 1', "network address parse error"),
    ('cidr("10.0.0.0/8").containsIP("10.0.0.300")', 'IP Address "10.0.0.300" parse error'),
    ('ip(1).family() == 4', r"no such overload: ip\(int\)"),
    ('ip.isCanonical("x")', 'IP Address "x" parse error'),
    ('url("../relative").getScheme() == ""', 'parse "../relative": invalid URI for request'),
    ('url("https://a:b:c/").getHost() == ""', "invalid port"),
    ('url("/p%zz").getHost() == ""', "invalid URL escape"),
])
def test_runtime_errors(expr: str, message: str) -> None:
    with pytest.raises(CELRuntimeError, match=message):
        run(expr)


@pytest.mark.parametrize(("expr", "message"), [
    ('ip("10.0.0.1")', "must evaluate to bool or the unknown type, not net.IP"),
    ('ip("10.0.0.1") == "10.0.0.1"', "found no matching overload for '_==_' applied to '(net.IP, string)'"),
    ('url("/x").getQuery()', "not map"),
    ('isIPv4("1.2.3.4")', "undeclared reference to 'isIPv4'"),
])
def test_compile_errors(expr: str, message: str) -> None:
    with pytest.raises(CELCompileError, match=message.replace("(", r"\(").replace(")", r"\)")):
        compile_selector(expr)


@pytest.mark.parametrize("expr", [
    'url("https://user:pass@example.com:80/path?query=val#fragment").getHost() == "example.com:80"',
    'url("/path").getScheme() == "" && url("HTTPS://example.com/").getScheme() == "https"',
    'url("https://example.com/").getHost() == "example.com"',
    'url("https://[::1]:80/").getHost() == "[::1]:80" && url("https://[::1]/").getHost() == "[::1]"',
    'url("/path").getHost() == "" && url("/path").getHostname() == "" && url("/path").getPort() == ""',
    'url("https://example.com:80/").getHostname() == "example.com"',
    'url("https://127.0.0.1:80/").getHostname() == "127.0.0.1"',
    'url("https://[::1]:80/").getHostname() == "::1" && url("https://[::1]:80/").getPort() == "80"',
    'url("https://example.com/").getPort() == "" && url("https://example.com:/").getPort() == ""',
    'url("https://example.com/path").getEscapedPath() == "/path"',
    'url("https://example.com/path with spaces/").getEscapedPath() == "/path%20with%20spaces/"',
    'url("https://example.com/a%2Fb").getEscapedPath() == "/a%2Fb"',
    'url("https://example.com").getEscapedPath() == ""',
    'url("https://example.com/path?k1=a&k2=b&k2=c").getQuery() == {"k1": ["a"], "k2": ["b", "c"]}',
    'url("https://example.com/path?key with spaces=value with spaces").getQuery()'
    ' == {"key with spaces": ["value with spaces"]}',
    'url("https://example.com/p?a=1+2&b=%41&bad=%zz&c").getQuery() == {"a": ["1 2"], "b": ["A"], "c": [""]}',
    'url("https://example.com/path?").getQuery() == {} && url("https://example.com/path").getQuery() == {}',
    'isURL("https://user:pass@example.com:80/path?query=val#fragment") && isURL("/absolute-path")',
    '!isURL("https://a:b:c/") && !isURL("../relative-path") && !isURL("") && !isURL("example.com")',
    'isURL("mailto:someone@example.com") && url("mailto:someone@example.com").getHost() == ""',
    '!isURL("https://exa mple.com/") && !isURL("http://[::1/") && !isURL("https://ex.com/\\x01")',
    'url("/a") == url("/a") && url("/a") != url("/b")',
])
def test_url(expr: str) -> None:
    assert run(expr) is True
