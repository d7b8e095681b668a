"""What nodes of one type have in common, stored once.

Nodes of one type publish the same devices under other names: the same
capacity maps, counter consumptions, attribute values, often whole attribute
maps (every MIG device of a GPU carries its GPU's) and whole devices (a NIC
without per-node addresses). While a load runs (:func:`sharing`), the builder
(:mod:`dralloc.io.build`) looks each of these up here by its raw value and
reuses the model built the first time: memory grows with what differs
between nodes (names, UUIDs, addresses), not with the devices.

Shared objects are frozen models and the maps and lists inside them; nothing
in dralloc changes them in place (a model is changed by copying it), and
neither may a caller: a map changed in place would change on every device
that shares it.

Models are built here without pydantic's validation where the builder has
already validated every part (:class:`Assembler`): the same fields, values
and fields set as validation gives, with one fields-set object per
combination of fields instead of one per instance (a device: 550 bytes
instead of 950, and a third faster than validating its parts)."""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from dralloc.models.base import K8sModel

M = TypeVar("M", bound=K8sModel)
LIMIT = 1 << 20   # entries per table; beyond it objects are built without being remembered

_set = object.__setattr__


class Tables:
    """One load's shared objects, keyed by their raw value (or by the
    identities of their shared parts)."""

    def __init__(self) -> None:
        self.attributes: dict[Any, Any] = {}  # attribute values
        self.bases: dict[tuple[Any, ...], Any] = {}   # attribute names -> the first map of them (raw, types, built)
        self.maps: dict[str, dict[Any, Any]] = {   # by the field they fill: maps and lists
            "attributes": {}, "capacity": {}, "consumes_counters": {}, "bodies": {}}
        self.devices: dict[Any, Any] = {}    # whole devices
        self.origin: dict[int, int] = {}     # id(map) -> the slice that first built it
        self.first: dict[int, list[Any]] = {}   # id(attribute map) -> devices built in that slice
        self.slice = 0                       # the slice being built (a serial number)
        self.templates: Any = None           # earlier slices later ones are built from (dralloc.io.template)
        self.derived: dict[int, Any] = {}    # id(slice) -> (slice, how its devices were derived)

    def remember(self, table: dict[Any, Any], key: Any, value: Any) -> Any:
        if len(table) < LIMIT:
            table[key] = value
        return value


_CURRENT: contextvars.ContextVar[Tables | None] = contextvars.ContextVar("dralloc_share", default=None)


@contextmanager
def sharing() -> Iterator[Tables]:
    """Objects built inside share what is identical (a nested call joins the
    outer one); the tables are dropped at the end, the objects stay shared."""
    outer = _CURRENT.get()
    if outer is not None:
        yield outer
        return
    tables = Tables()
    token = _CURRENT.set(tables)
    try:
        yield tables
    finally:
        _CURRENT.reset(token)


def current() -> Tables:
    """The tables of the running load, or fresh ones (sharing within one
    object) outside any."""
    got = _CURRENT.get()
    return got if got is not None else Tables()


class Assembler:
    """Builds instances of one model from already validated field values."""

    def __init__(self, model: type[M]) -> None:
        self.model = model
        self.fields = tuple(model.model_fields)
        self.alias = {(f.alias or name): name for name, f in model.model_fields.items()}
        self.defaults = {name: f.get_default(call_default_factory=True) for name, f in model.model_fields.items()}
        self._sets: dict[tuple[str, ...], set[str]] = {}

    def fields_set(self, names: tuple[str, ...]) -> set[str]:
        """One set object per combination of fields given (never changed:
        the models are frozen)."""
        got = self._sets.get(names)
        if got is None:
            got = self._sets[names] = set(names)
        return got

    def maker(self, given: tuple[str, ...]) -> Any:
        """``lambda values: self(values, given)``, faster (for a hot loop)."""
        model, defaults, fields_set, setter = self.model, self.defaults, self.fields_set(given), _set
        new = model.__new__

        def make(values: dict[str, Any]) -> Any:
            obj = new(model)
            setter(obj, "__dict__", {**defaults, **values})
            setter(obj, "__pydantic_fields_set__", fields_set)
            setter(obj, "__pydantic_extra__", None)
            setter(obj, "__pydantic_private__", None)
            return obj
        return make

    def __call__(self, values: dict[str, Any], given: tuple[str, ...]) -> Any:
        """An instance with ``values`` (by field name; missing fields take
        their defaults) and ``given`` as its fields set."""
        obj = self.model.__new__(self.model)
        _set(obj, "__dict__", {**self.defaults, **values})
        _set(obj, "__pydantic_fields_set__", self.fields_set(given))
        _set(obj, "__pydantic_extra__", None)
        _set(obj, "__pydantic_private__", None)
        return obj
