"""Kubernetes IP and CIDR CEL libraries (``kubernetes.net.ip`` / ``.cidr``).

Addresses follow Go's ``net/netip`` rules as Kubernetes applies them: IPv4
octets without leading zeros, no zones (``fe80::1%eth0``) and no IPv4-mapped
IPv6 addresses (``::ffff:1.2.3.4``); prefixes keep their host bits until
``masked()``."""

from __future__ import annotations

import ipaddress
import re
from typing import Any

from dralloc.cel.errors import CELRuntimeError, no_overload

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class IP:
    """A CEL ``net.IP`` value."""

    __slots__ = ("addr",)
    cel_type_name = "net.IP"

    def __init__(self, addr: Address) -> None:
        self.addr = addr

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IP) and self.addr == other.addr

    def __hash__(self) -> int:
        return hash(("IP", self.addr))

    def __repr__(self) -> str:
        return f"ip({self.cel_string()!r})"

    def cel_string(self) -> str:
        return str(self.addr)


class CIDR:
    """A CEL ``net.CIDR`` value: an address (host bits kept) and a prefix length."""

    __slots__ = ("addr", "bits")
    cel_type_name = "net.CIDR"

    def __init__(self, addr: Address, bits: int) -> None:
        self.addr, self.bits = addr, bits

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CIDR) and (self.addr, self.bits) == (other.addr, other.bits)

    def __hash__(self) -> int:
        return hash(("CIDR", self.addr, self.bits))

    def __repr__(self) -> str:
        return f"cidr({self.cel_string()!r})"

    def cel_string(self) -> str:
        return f"{self.addr}/{self.bits}"

    def network(self) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
        return ipaddress.ip_network(f"{self.addr}/{self.bits}", strict=False)

    def contains(self, addr: Address) -> bool:
        return addr.version == self.addr.version and addr in self.network()


class NetParseError(ValueError):
    pass


def _q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


_BITS = re.compile(r"0|[1-9][0-9]{0,2}")


def parse_addr(raw: str) -> Address:
    """An address as ``netip.ParseAddr`` accepts it, minus zones and mapped IPv4."""
    if "%" in raw:
        if _plain_addr(raw.split("%", 1)[0]) is not None:
            raise NetParseError(f"IP address {_q(raw)} with zone value is not allowed")
        raise NetParseError(f"IP Address {_q(raw)} parse error during conversion from string: "
                            "ParseAddr: unable to parse IP")
    addr = _plain_addr(raw)
    if addr is None:
        raise NetParseError(f"IP Address {_q(raw)} parse error during conversion from string: "
                            "ParseAddr: unable to parse IP")
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        raise NetParseError(f"IPv4-mapped IPv6 address {_q(raw)} is not allowed")
    return addr


def _plain_addr(raw: str) -> Address | None:
    if not raw or not raw.isascii() or raw.strip() != raw:
        return None
    try:
        return ipaddress.ip_address(raw)  # rejects IPv4 leading zeros, as netip does
    except ValueError:
        return None


def parse_cidr(raw: str) -> CIDR:
    addr_s, slash, bits_s = raw.rpartition("/")
    if not slash:
        raise NetParseError(f"network address parse error during conversion from string: "
                            f"netip.ParsePrefix({_q(raw)}): no '/'")
    if "%" in addr_s:
        raise NetParseError(f"network address parse error during conversion from string: "
                            f"netip.ParsePrefix({_q(raw)}): IPv6 zones cannot be present in a prefix")
    addr = _plain_addr(addr_s)
    if addr is None:
        raise NetParseError(f"network address parse error during conversion from string: "
                            f"netip.ParsePrefix({_q(raw)}): ParseAddr({_q(addr_s)}): unable to parse IP")
    if not _BITS.fullmatch(bits_s) or int(bits_s) > addr.max_prefixlen:
        raise NetParseError(f"network address parse error during conversion from string: "
                            f"netip.ParsePrefix({_q(raw)}): bad bits after slash: {_q(bits_s)}")
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        raise NetParseError(f"IPv4-mapped IPv6 address {_q(raw)} is not allowed")
    return CIDR(addr, int(bits_s))


def _str_arg(fn: str, a: tuple[Any, ...]) -> str:
    if len(a) != 1 or not isinstance(a[0], str):
        raise no_overload(fn, *a)
    return a[0]


def _ip_arg(fn: str, a: tuple[Any, ...]) -> Address:
    if len(a) != 1 or not isinstance(a[0], IP):
        raise no_overload(fn, *a)
    return a[0].addr


def _cidr_arg(fn: str, a: tuple[Any, ...], n: int = 1) -> CIDR:
    if len(a) != n or not isinstance(a[0], CIDR):
        raise no_overload(fn, *a)
    return a[0]


# ---------------------------------------------------------------- IP
def f_ip(*a: Any) -> IP:
    if len(a) == 1 and isinstance(a[0], CIDR):  # cidr.ip()
        return IP(a[0].addr)
    try:
        return IP(parse_addr(_str_arg("ip", a)))
    except NetParseError as e:
        raise CELRuntimeError(str(e)) from None


def f_is_ip(*a: Any) -> bool:
    try:
        parse_addr(_str_arg("isIP", a))
    except NetParseError:
        return False
    return True


def f_is_canonical(*a: Any) -> bool:
    s = _str_arg("ip.isCanonical", a)
    try:
        return str(parse_addr(s)) == s
    except NetParseError as e:
        raise CELRuntimeError(str(e)) from None


def f_family(*a: Any) -> int:
    return _ip_arg("family", a).version


def f_is_unspecified(*a: Any) -> bool:
    return int(_ip_arg("isUnspecified", a)) == 0


def f_is_loopback(*a: Any) -> bool:
    addr = _ip_arg("isLoopback", a)
    if addr.version == 4:
        return int(addr) >> 24 == 127
    return int(addr) == 1


def f_is_link_local_multicast(*a: Any) -> bool:
    addr = _ip_arg("isLinkLocalMulticast", a)
    if addr.version == 4:
        return int(addr) >> 8 == 0xE00000  # 224.0.0.0/24
    return (int(addr) >> 112) & 0xFF0F == 0xFF02  # ff02::/16, any flags


def _link_local_unicast(addr: Address) -> bool:
    if addr.version == 4:
        return int(addr) >> 16 == 0xA9FE  # 169.254.0.0/16
    return (int(addr) >> 112) & 0xFFC0 == 0xFE80  # fe80::/10


def f_is_link_local_unicast(*a: Any) -> bool:
    return _link_local_unicast(_ip_arg("isLinkLocalUnicast", a))


def f_is_global_unicast(*a: Any) -> bool:
    addr = _ip_arg("isGlobalUnicast", a)
    if int(addr) == 0 or (addr.version == 4 and int(addr) == 0xFFFFFFFF):
        return False
    multicast = int(addr) >> 28 == 0xE if addr.version == 4 else int(addr) >> 120 == 0xFF
    return not (f_is_loopback(IP(addr)) or multicast or _link_local_unicast(addr))


# ---------------------------------------------------------------- CIDR
def f_cidr(*a: Any) -> CIDR:
    try:
        return parse_cidr(_str_arg("cidr", a))
    except NetParseError as e:
        raise CELRuntimeError(str(e)) from None


def f_is_cidr(*a: Any) -> bool:
    try:
        parse_cidr(_str_arg("isCIDR", a))
    except NetParseError:
        return False
    return True


def f_contains_ip(*a: Any) -> bool:
    c = _cidr_arg("containsIP", a, 2)
    other = a[1]
    if isinstance(other, str):
        other = f_ip(other)
    if not isinstance(other, IP):
        raise no_overload("containsIP", *a)
    return c.contains(other.addr)


def f_contains_cidr(*a: Any) -> bool:
    c = _cidr_arg("containsCIDR", a, 2)
    other = a[1]
    if isinstance(other, str):
        other = f_cidr(other)
    if not isinstance(other, CIDR):
        raise no_overload("containsCIDR", *a)
    return other.addr.version == c.addr.version and c.bits <= other.bits and c.contains(other.addr)


def f_prefix_length(*a: Any) -> int:
    return _cidr_arg("prefixLength", a).bits


def f_masked(*a: Any) -> CIDR:
    c = _cidr_arg("masked", a)
    return CIDR(c.network().network_address, c.bits)


MEMBER = {
    "family": f_family, "isUnspecified": f_is_unspecified, "isLoopback": f_is_loopback,
    "isLinkLocalMulticast": f_is_link_local_multicast,
    "isLinkLocalUnicast": f_is_link_local_unicast, "isGlobalUnicast": f_is_global_unicast,
    "containsIP": f_contains_ip, "containsCIDR": f_contains_cidr, "ip": f_ip,
    "prefixLength": f_prefix_length, "masked": f_masked,
}
GLOBAL = {
    "ip": f_ip, "isIP": f_is_ip, "ip.isCanonical": f_is_canonical, "cidr": f_cidr,
    "isCIDR": f_is_cidr,
}
RETURNS = {
    "ip": "net.IP", "isIP": "bool", "ip.isCanonical": "bool", "family": "int",
    "isUnspecified": "bool", "isLoopback": "bool", "isLinkLocalMulticast": "bool",
    "isLinkLocalUnicast": "bool", "isGlobalUnicast": "bool", "cidr": "net.CIDR",
    "isCIDR": "bool", "containsIP": "bool", "containsCIDR": "bool", "prefixLength": "int",
    "masked": "net.CIDR",
}
