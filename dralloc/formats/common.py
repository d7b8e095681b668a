"""Shared pieces of the pre-v1 format translations: the result type, name
sanitising (v1 wants DNS labels and C identifiers where the old designs
allowed anything), typed attribute values and quantities."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from dralloc.errors import InputError
from dralloc.models import TypedObject
from dralloc.quantity import Quantity, QuantityError

DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
C_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
MAX_LABEL, MAX_ID, MAX_SUBDOMAIN = 63, 64, 253
_SEMVERISH = re.compile(r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?([-+].*)?$")


@dataclass
class Translation:
    """What a conversion produced: v1 objects in input order, and notes on
    every place where the translation had to change something the user wrote
    (renamed devices, repaired references, fields without a v1 equivalent)."""

    objects: list[TypedObject] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    explanations: dict[str, str] = field(default_factory=dict)  # object ref -> why not translated
    cannot_allocate: dict[str, str] = field(default_factory=dict)  # claim ref -> why no pool can satisfy it

    def extend(self, other: Translation) -> None:
        self.objects.extend(other.objects)
        self.notes.extend(other.notes)
        self.explanations.update(other.explanations)
        self.cannot_allocate.update(other.cannot_allocate)


def dns_label(name: str) -> str:
    """``name`` made into a DNS label: lower case, anything else than
    letters, digits and '-' replaced by '-', trimmed to 63 characters."""
    s = re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")
    s = s[:MAX_LABEL].strip("-")
    return s or "x"


def dns_subdomain(name: str) -> str:
    parts = [dns_label(p) for p in re.split(r"[./]+", name) if p]
    return ".".join(parts)[:MAX_SUBDOMAIN].strip(".-") or "x"


def c_identifier(name: str) -> str:
    """The identifier part of an attribute or capacity name made into a C
    identifier ('-' and '.' become '_'); a domain prefix is kept."""
    domain, slash, ident = name.rpartition("/")
    s = re.sub(r"[^A-Za-z0-9_]", "_", ident)
    if not s or s[0].isdigit():
        s = "_" + s
    return f"{domain}{slash}{s[:MAX_ID]}"


class Namer:
    """Hands out unique names, remembering what each original became."""

    def __init__(self, fix: Any, what: str, notes: list[str], where: str) -> None:
        self.fix, self.what, self.notes, self.where = fix, what, notes, where
        self.given: dict[str, str] = {}
        self.used: set[str] = set()

    def __call__(self, original: str) -> str:
        if original in self.given:
            return self.given[original]
        base = self.fix(original)
        name, k = base, 1
        while name in self.used:
            k += 1
            suffix = f"-{k}" if self.fix is not c_identifier else f"_{k}"
            name = base[: MAX_LABEL - len(suffix)] + suffix
        self.used.add(name)
        self.given[original] = name
        if name != original:
            self.notes.append(f"{self.where}: {self.what} {original!r} is {name!r} in v1 "
                              f"(v1 requires {'a C identifier' if self.fix is c_identifier else 'a DNS label'})")
        return name


def normalize_version(text: str) -> str:
    """A version the old formats allowed ("12.6", "560.35.03") as semantic
    version ("12.6.0", "560.35.3"); anything else is kept as written."""
    m = _SEMVERISH.match(text.strip())
    if not m:
        return text
    nums = [str(int(g)) if g is not None else "0" for g in m.groups()[:3]]
    return ".".join(nums) + (m.group(4) or "")


def quantity(value: Any, where: str, obj: str, fieldp: str) -> Quantity:
    """A quantity from the old forms: a bare value, ``{quantity: X}``
    (v1alpha3) or ``{value: X}`` (v1)."""
    if isinstance(value, dict):
        inner = value.get("quantity", value.get("value"))
        if inner is None:
            raise InputError("expected {quantity: ...} or {value: ...}", source=where, obj=obj, field=fieldp)
        value = inner
    try:
        return Quantity.parse(value)
    except QuantityError as e:
        raise InputError(str(e), source=where, obj=obj, field=fieldp) from None


def as_mapping(value: Any, where: str, obj: str, fieldp: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InputError(f"expected a mapping, got {type(value).__name__}", source=where, obj=obj, field=fieldp)
    return value


def as_list(value: Any, where: str, obj: str, fieldp: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(f"expected a list, got {type(value).__name__}", source=where, obj=obj, field=fieldp)
    return value


def ref_name(entry: Any, where: str, obj: str, fieldp: str) -> str:
    """The name in a ``{name: X}`` reference (a bare string is accepted too)."""
    if isinstance(entry, str) and entry:
        return entry
    if isinstance(entry, dict) and isinstance(entry.get("name"), str) and entry["name"]:
        return str(entry["name"])
    raise InputError("expected a reference {name: ...}", source=where, obj=obj, field=fieldp)
