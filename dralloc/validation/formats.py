"""Name and value formats the API server enforces (apimachinery validation)."""

from __future__ import annotations

import re

from dralloc.validation.finding import Collector

_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS_LABEL = re.compile(rf"^{_LABEL}$")
DNS_SUBDOMAIN = re.compile(rf"^{_LABEL}(\.{_LABEL})*$")
C_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
LABEL_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(-((0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(\.(0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?"
    r"(\+([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?$")

MAX_LABEL, MAX_SUBDOMAIN, MAX_ID, MAX_DRIVER = 63, 253, 32, 63
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


_LABELS: set[str] = set()  # values seen to be DNS labels (counter and attribute names repeat)
_LABELS_MAX = 1 << 16


def is_dns_label(value: str) -> bool:
    if value in _LABELS:
        return True
    if not value or len(value) > MAX_LABEL or not DNS_LABEL.match(value):
        return False
    if len(_LABELS) < _LABELS_MAX:
        _LABELS.add(value)
    return True


def dns_label(c: Collector, path: str, value: str | None, what: str, required: bool = True) -> None:
    if not value:
        if required:
            c.add(path, "format.required", f"{what} is required")
    elif not is_dns_label(value):
        c.add(path, "format.dns-label", f"{what} {value!r} must be a DNS label (lower-case "
              f"letters, digits and '-', starting and ending alphanumeric, at most {MAX_LABEL})")


def dns_subdomain(c: Collector, path: str, value: str | None, what: str,
                  required: bool = True, most: int = MAX_SUBDOMAIN) -> None:
    if not value:
        if required:
            c.add(path, "format.required", f"{what} is required")
        return
    if len(value) > most or not DNS_SUBDOMAIN.match(value):
        c.add(path, "format.dns-subdomain", f"{what} {value!r} must be a DNS subdomain (lower-case "
              f"DNS labels joined by '.', at most {most} characters)")


def driver_name(c: Collector, path: str, value: str | None, what: str = "driver name") -> None:
    """A driver name (as a CSI driver name): at most 63 characters, a DNS
    subdomain once lower-cased."""
    if not value:
        c.add(path, "format.required", f"{what} is required")
    elif len(value) > MAX_DRIVER or not DNS_SUBDOMAIN.match(value.lower()):
        c.add(path, "format.dns-subdomain", f"{what} {value!r} must be a DNS subdomain of at most "
              f"{MAX_DRIVER} characters (letters, digits, '-' and '.', starting and ending alphanumeric)")


_VALID_NAMES: set[tuple[str, bool]] = set()  # qualified names seen valid (a cluster repeats a few)
_VALID_NAMES_MAX = 1 << 16


def known_qualified_name(name: str, need_domain: bool = False) -> bool:
    """Whether ``name`` was already found a valid qualified name (no need to
    check it, or to build its field path, again)."""
    return (name, need_domain) in _VALID_NAMES


def qualified_name(c: Collector, path: str, name: str, what: str, need_domain: bool = False) -> None:
    """Attribute/capacity names: ``[domain/]identifier``; the identifier is a
    C identifier of at most 32 characters, the domain a driver name."""
    if (name, need_domain) in _VALID_NAMES:
        return
    before = len(c.findings)
    _qualified_name(c, path, name, what, need_domain)
    if len(c.findings) == before and len(_VALID_NAMES) < _VALID_NAMES_MAX:
        _VALID_NAMES.add((name, need_domain))


def _qualified_name(c: Collector, path: str, name: str, what: str, need_domain: bool) -> None:
    parts = name.split("/")
    rule = "format.qualified-name"
    if len(parts) > 2:
        c.add(path, rule, f"{what} {name!r} must not contain more than one slash")
        return
    if need_domain and len(parts) == 1:
        c.add(path, rule, f"{what} {name!r} must be fully qualified (domain/name)")
        return
    if len(parts) == 2:
        if not parts[0]:
            c.add(path, rule, f"{what} {name!r}: the domain must not be empty")
        else:
            driver_name(c, path, parts[0], f"domain of {what} {name!r}")
    ident = parts[-1]
    if not ident or len(ident) > MAX_ID or not C_IDENTIFIER.match(ident):
        c.add(path, rule, f"{what} {name!r}: the part after the domain must be a "
              f"C identifier (letters, digits, '_', not starting with a digit) of at most {MAX_ID}")


def int64(c: Collector, path: str, value: int | None, what: str) -> bool:
    """Whether ``value`` fits a 64-bit integer (the API server cannot decode
    larger numbers); reports it when not."""
    if value is None or INT64_MIN <= value <= INT64_MAX:
        return True
    c.add(path, "format.int64", f"{what} {value} does not fit in a 64-bit integer "
          f"({INT64_MIN} to {INT64_MAX}); the API server cannot decode it")
    return False


def int32(c: Collector, path: str, value: int | None, what: str) -> bool:
    """Whether ``value`` fits a 32-bit integer (the API server cannot decode
    larger numbers into an int32 field); reports it when not."""
    if value is None or INT32_MIN <= value <= INT32_MAX:
        return True
    c.add(path, "format.int32", f"{what} {value} does not fit in a 32-bit integer "
          f"({INT32_MIN} to {INT32_MAX}); the API server cannot decode it")
    return False


def label_key(c: Collector, path: str, key: str, what: str) -> None:
    prefix, slash, name = key.rpartition("/")
    if slash:
        if "/" in prefix or not prefix:
            c.add(path, "format.label-key", f"{what} {key!r} must be a label key ([prefix/]name)")
            return
        dns_subdomain(c, path, prefix, f"prefix of {what} {key!r}")
    if not name or len(name) > MAX_LABEL or not LABEL_NAME.match(name):
        c.add(path, "format.label-key", f"{what} {key!r} must be a label key "
              f"([prefix/]name, name alphanumeric with '-', '_', '.', at most {MAX_LABEL})")


def label_value(c: Collector, path: str, value: str, what: str) -> None:
    if value and (len(value) > MAX_LABEL or not LABEL_NAME.match(value)):
        c.add(path, "format.label-value", f"{what} {value!r} must be a label value "
              f"(alphanumeric with '-', '_', '.', at most {MAX_LABEL})")


def extended_resource_name(name: str) -> bool:
    """Kubernetes' IsExtendedResourceName: ``domain/name`` outside the
    kubernetes.io domain, and ``requests.<name>`` a valid qualified name."""
    if "/" not in name or "kubernetes.io/" in name or name.startswith("requests."):
        return False
    prefix, _, rest = ("requests." + name).rpartition("/")
    return (0 < len(prefix) <= MAX_SUBDOMAIN and DNS_SUBDOMAIN.match(prefix) is not None
            and 0 < len(rest) <= MAX_LABEL and LABEL_NAME.match(rest) is not None)
