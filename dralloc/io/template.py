"""A slice built from an earlier slice of the same shape.

Nodes of one type publish the same slices again: the same device names, the
same capacities and counter consumptions, attribute maps that differ in a
UUID or a PCI address. So within a load (:mod:`.share`) the first slice of
each list of device names is kept, raw and built, as a *template*, and a later
slice with the same names (or, failing that, the latest slice of its driver
with as many devices) is built from it when its devices have the template's
fields and hold the same values in every field but names and attributes: each
device is then the template's model with its own attribute map (shared, as
the builder shares maps, by its JSON: the devices of a GPU's partitions
share their GPU's map) and, where it differs, its own name.

Equality is JSON's, not Python's (which finds ``1 == 1.0 == True``): the
fields are compared as the bytes orjson writes for the whole slice at once,
the attribute maps are looked up by theirs. Anything else -- a device whose
capacity, consumption, taints, node selection or mixins differ, a shape this
does not know -- sends the whole slice back to the builder's ordinary path
(:mod:`.build`), which gives the same models.

A derived slice's changes are recorded (:class:`Derived`) so that admission
checks only what changed (:mod:`dralloc.validation.slices`): per device, the
attribute names whose values differ from the template device's."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import compress
from operator import is_not, itemgetter, methodcaller, ne
from typing import Any

from dralloc.io import parts
from dralloc.io.parts import KEY_ERRORS, dumps, intern

MAX_TEMPLATES = 256          # device-name lists kept per load (each holds its raw slice)
MAX_BY_SIZE = 256            # (driver, device count) -> the latest slice, for names that differ per node
_NAME = itemgetter("name")
_OWN = frozenset({"name", "attributes"})
_ATTRIBUTES = methodcaller("get", "attributes")   # the fields a derived device has of its own
_set = object.__setattr__


class Template:
    """A slice's devices as parsed and as built, and their shared fields' JSON."""

    __slots__ = ("_rows", "built", "keys", "names", "raw", "rows")

    def __init__(self, raw: list[dict[str, Any]], built: list[Any], names: tuple[str, ...]) -> None:
        self.raw, self.built, self.names = raw, built, names
        self.keys = list(map(dict.keys, raw))
        shared = [k for k in dict.fromkeys(k for d in raw for k in d) if k not in _OWN]
        # every device's other fields, in one row each (a missing field is told apart by the keys)
        if not shared:
            self.rows: Any = None
        elif all(d.keys() >= set(shared) for d in raw):
            self.rows = itemgetter(*shared)
        else:
            self.rows = lambda d: tuple(map(d.get, shared))
        self._rows: bytes | None = None

    def rows_json(self) -> bytes:
        if self._rows is None:
            self._rows = dumps(list(map(self.rows, self.raw))) if self.rows is not None else b""
        return self._rows


@dataclass(eq=False)
class Derived:
    """How a slice's devices were built from a template's: ``changes[i]`` is
    the attribute names whose values device ``i`` has of its own (an empty
    tuple: the template's device itself), or None where more differs (its
    name)."""

    template: list[Any]
    changes: list[tuple[str, ...] | None]
    built: list[Any]     # this slice's devices as built (the template of slices built from it)


class Templates:
    """One load's templates (part of :class:`dralloc.io.share.Tables`)."""

    def __init__(self) -> None:
        self.by_names: dict[tuple[str, ...], Template] = {}
        self.by_size: dict[tuple[Any, int], Template] = {}
        # (id(map), id(template map)) -> (map, template map, the names whose values differ)
        self.changes: dict[tuple[int, int], tuple[Any, Any, tuple[str, ...] | None]] = {}
        self.types: dict[int, tuple[Any, list[type] | None]] = {}     # id(template map) -> (map, its raw types)

    def find(self, driver: Any, devices: list[Any]) -> tuple[Template | None, tuple[str, ...] | None]:
        try:
            names = tuple(map(_NAME, devices))
            hit = self.by_names.get(names)
            if hit is None:
                hit = self.by_size.get((driver, len(devices)))
        except (TypeError, KeyError):
            return None, None    # a device that is not a mapping, a name or driver that is not hashable
        return hit, names

    def add(self, driver: Any, names: tuple[str, ...] | None, raw: list[Any], built: list[Any]) -> None:
        if names is None or not raw or not all(type(n) is str for n in names) \
                or any(type(d) is not dict for d in raw):
            return
        tpl = Template(raw, built, names)
        if len(self.by_names) < MAX_TEMPLATES:
            self.by_names.setdefault(names, tpl)
        key = (driver, len(raw))
        if key in self.by_size or len(self.by_size) < MAX_BY_SIZE:
            self.by_size[key] = tpl

    def changed(self, amap: Any, tmap: Any) -> tuple[str, ...] | None:
        """The names whose values differ between the built maps ``amap`` and
        ``tmap`` (values are shared by their JSON, so a different object is a
        different value); None when the names differ."""
        hit = self.changes.get((id(amap), id(tmap)))
        if hit is not None and hit[0] is amap and hit[1] is tmap:
            return hit[2]
        if type(amap) is not dict or type(tmap) is not dict or tuple(amap) != tuple(tmap):
            names = None
        else:
            names = tuple(compress(amap, map(is_not, amap.values(), tmap.values())))
        self._remember(amap, tmap, names)
        return names

    def _remember(self, amap: Any, tmap: Any, names: tuple[str, ...] | None) -> None:
        if len(self.changes) < parts.CACHE_LIMIT:
            self.changes[(id(amap), id(tmap))] = (amap, tmap, names)   # (both held: their ids are not reused)


    def new_map(self, raw: Any, traw: Any, tmap: Any, key: bytes,
                tables: Any) -> tuple[Any, tuple[str, ...] | None] | None:
        """An attribute map new to the load: the template device's map with
        the entries that differ built from their values (equal entries are
        the template's when their values are of its types: 1, 1.0 and true
        stay apart), remembered by its JSON ``key`` like every map."""
        if type(raw) is not dict:
            return None
        kept = self.types.get(id(tmap))
        if kept is None or kept[0] is not tmap:
            ok = type(traw) is dict and type(tmap) is dict and bool(traw) and set(map(len, traw.values())) == {1}
            kept = self.types[id(tmap)] = (tmap, parts.types_of(traw) if ok else None)
        ttypes = kept[1]
        if ttypes is None or dict in ttypes or tuple(raw) != tuple(traw) \
                or parts.types_of(raw) != ttypes:
            got = parts.shared(raw, "attributes", parts.attributes, tables, key)
            return got, self.changed(got, tmap)
        names = tuple(compress(raw, map(ne, raw.values(), traw.values())))
        seen = tables.attributes
        out = dict(tmap)
        for name in names:
            attr = raw[name]
            try:
                ((kind, value),) = attr.items()
                out[name] = seen[(kind, type(value), value)]
            except (AttributeError, ValueError, KeyError, TypeError):
                out[name] = parts.ATTRIBUTES(attr, seen)
        if b"null" not in key:
            tables.remember(tables.maps["attributes"], parts.compact(key), out)
            tables.origin[id(out)] = tables.slice
        self._remember(out, tmap, names)
        return out, names


def derive(devices: list[Any], tpl: Template, names: tuple[str, ...] | None,
           tables: Any) -> tuple[list[Any], Derived | None] | None:
    """The devices of a slice built from ``tpl`` (and how, when its
    attributes are all that differs), or None when a device differs in a way
    only the ordinary path builds."""
    raw_t, built = tpl.raw, tpl.built
    if len(devices) != len(raw_t):
        return None
    try:
        if list(map(dict.keys, devices)) != tpl.keys:
            return None
        if tpl.rows is not None and dumps(list(map(tpl.rows, devices))) != tpl.rows_json():
            return None
    except (TypeError, *KEY_ERRORS):
        return None   # a device that is not a mapping, a value JSON cannot carry
    same_names = names == tpl.names
    try:
        keys = list(map(dumps, map(_ATTRIBUTES, devices)))   # each attribute map's JSON, in one C-level pass
    except KEY_ERRORS:
        return None
    amap, templates = tables.maps["attributes"], tables.templates
    out: list[Any] = []
    changes: list[tuple[str, ...] | None] = []
    for d, td, md, key in zip(devices, raw_t, built, keys, strict=True):
        tmap = md.attributes
        got = amap.get(key)
        if got is tmap:
            names_changed: tuple[str, ...] | None = ()
        elif got is not None:
            names_changed = templates.changed(got, tmap)
        elif key == b"null":
            if tmap is not None:
                return None
            names_changed = ()
        else:
            new = templates.new_map(d["attributes"], td.get("attributes"), tmap, key, tables)
            if new is None:
                return None
            got, names_changed = new
        values = {} if got is tmap else {"attributes": got}
        if not same_names and d["name"] != td["name"]:
            if type(d["name"]) is not str:
                return None
            values["name"] = intern(d["name"])
            names_changed = None
        if not values:
            out.append(md)
            changes.append(())
            continue
        out.append(_replaced(md, values))
        changes.append(names_changed)
    return out, Derived(built, changes, out)


def _replaced(md: Any, values: dict[str, Any]) -> Any:
    """The model ``md`` with ``values`` (by field name) instead of its own."""
    dev = md.__class__.__new__(md.__class__)
    _set(dev, "__dict__", {**md.__dict__, **values})
    _set(dev, "__pydantic_fields_set__", md.__pydantic_fields_set__)
    _set(dev, "__pydantic_extra__", md.__pydantic_extra__)
    _set(dev, "__pydantic_private__", md.__pydantic_private__)
    return dev
