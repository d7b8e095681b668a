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

MAX_LABEL, MAX_SUBDOMAIN, MAX_ID = 63, 253, 64


def dns_label(c: Collector, path: str, value: str | None, what: str, required: bool = True) -> None:
    if not value:
        if required:
            c.add(path, "format.required", f"{what} is required")
        return
    if len(value) > MAX_LABEL or not DNS_LABEL.match(value):
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


def qualified_name(c: Collector, path: str, name: str, what: str, need_domain: bool = False) -> None:
    """Attribute/capacity names: ``[domain/]identifier``; the identifier is a
    C identifier of at most 64 characters, the domain a DNS subdomain."""
    domain, slash, ident = name.rpartition("/")
    if need_domain and not slash:
        c.add(path, "format.qualified-name", f"{what} {name!r} must be fully qualified (domain/name)")
        return
    if slash:
        dns_subdomain(c, path, domain, f"domain of {what} {name!r}", most=MAX_SUBDOMAIN)
    if not ident or len(ident) > MAX_ID or not C_IDENTIFIER.match(ident):
        c.add(path, "format.qualified-name", f"{what} {name!r}: the part after the domain must be a "
              f"C identifier (letters, digits, '_', not starting with a digit) of at most {MAX_ID}")


def label_key(c: Collector, path: str, key: str, what: str) -> None:
    prefix, slash, name = key.rpartition("/")
    if slash:
        dns_subdomain(c, path, prefix, f"prefix of {what} {key!r}")
    if not name or len(name) > MAX_LABEL or not LABEL_NAME.match(name):
        c.add(path, "format.label-key", f"{what} {key!r} must be a label key "
              f"([prefix/]name, name alphanumeric with '-', '_', '.', at most {MAX_LABEL})")


def label_value(c: Collector, path: str, value: str, what: str) -> None:
    if value and (len(value) > MAX_LABEL or not LABEL_NAME.match(value)):
        c.add(path, "format.label-value", f"{what} {value!r} must be a label value "
              f"(alphanumeric with '-', '_', '.', at most {MAX_LABEL})")
