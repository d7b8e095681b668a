"""Detecting each document's format and translating everything to v1 objects
(the functions :mod:`dralloc.formats` exports)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from dralloc.errors import InputError
from dralloc.formats import DEFAULT_DRIVER, DEFAULT_NODE
from dralloc.formats.capacity_pools import is_pools_document, parse_pools, translate_pools
from dralloc.formats.common import Translation
from dralloc.formats.composite import set_slice_counts, translate_slice
from dralloc.formats.composite_parse import (
    MissingReference,
    cross_slice_hint,
    defined_names,
    is_composite_slice,
    is_fragment,
    parse_composite,
)
from dralloc.formats.evolution import (
    explain_other,
    is_evolution_other,
    is_evolution_pool,
    translate_evolution_pool,
)
from dralloc.formats.k8srm import is_prototype_pod, translate_prototype
from dralloc.formats.k8srm_pools import is_prototype
from dralloc.io.loader import ObjectSet, RawDocument, iter_files, parse_object, read_documents
from dralloc.models import TypedObject


def detect_format(doc: Any) -> str:
    """``capacity-pools``, ``composite``, ``dra-evolution``, ``k8srm`` or ``v1``
    (everything else, left to the loader)."""
    if is_pools_document(doc):
        return "capacity-pools"
    if is_composite_slice(doc) or is_fragment(doc):
        return "composite"
    if is_prototype(doc) or is_prototype_pod(doc):
        return "k8srm"
    if is_evolution_pool(doc) or is_evolution_other(doc):
        return "dra-evolution"
    return "v1"


def _raw(docs: Iterable[RawDocument | Any]) -> list[RawDocument]:
    """Raw documents; a document that is a bare YAML list of objects (as the
    dra-evolution DGX data is written) is read item by item."""
    out: list[RawDocument] = []
    for i, d in enumerate(docs):
        r = d if isinstance(d, RawDocument) else RawDocument(f"document {i}", i, d)
        if isinstance(r.data, list) and r.data and all(isinstance(x, dict) and "kind" in x for x in r.data):
            out.extend(RawDocument(r.source, r.index, x, j) for j, x in enumerate(r.data))
        else:
            out.append(r)
    return out


def _composite(docs: list[RawDocument], driver: str, pool: str | None, node: str,
               tr: Translation) -> list[tuple[str, dict[str, Any]]]:
    known = [(d.where, defined_names(d.data)) for d in docs]
    out: list[tuple[str, dict[str, Any]]] = []
    declared: dict[tuple[str, str], tuple[int, int]] = {}
    fragments = 0
    for d in docs:
        defaults = {"driver": driver, "node": node, "pool": pool or node}
        if is_fragment(d.data) or (is_pools_document(d.data) and "kind" not in d.data):
            fragments += 1
            if fragments > 1:
                defaults["pool"] = f"{defaults['pool']}-{fragments}"
        if is_pools_document(d.data):
            p = parse_pools(d.data, d.where, defaults)
            s, produced = p.header, translate_pools(p, tr)
        else:
            try:
                s = parse_composite(d.data, d.where, defaults)
            except MissingReference as e:
                raise cross_slice_hint(e, [(w, n) for w, n in known if w != d.where]) from None
            produced = translate_slice(s, tr)
        count, read = declared.get((s.driver, s.pool), (s.slice_count, 0))
        declared[(s.driver, s.pool)] = (count, read + 1)
        out.extend((d.where, x) for x in produced)
    set_slice_counts([x for _, x in out], declared)
    return out


def translate(docs: Iterable[RawDocument | Any], driver: str = DEFAULT_DRIVER, pool: str | None = None,
              node: str = DEFAULT_NODE, skip_unknown: bool = True) -> Translation:
    """Translate every document to v1 objects, with notes on what changed.

    ``driver``, ``pool`` (default: the node name) and ``node`` apply to bare
    KEP fragments, which carry none of them. Raises :class:`InputError` on
    the first document that cannot be translated."""
    raw = _raw(docs)
    tr = Translation()
    produced: list[tuple[str, dict[str, Any]]] = []
    produced += _composite([d for d in raw if detect_format(d.data) in ("composite", "capacity-pools")],
                           driver, pool, node, tr)
    produced += [(d.where, x) for d in raw if is_evolution_pool(d.data)
                 for x in translate_evolution_pool(d.data, d.where, tr)]
    for d in raw:
        if is_evolution_other(d.data):
            explain_other(d.data, tr)
    for d in raw:
        if detect_format(d.data) != "v1":
            continue
        obj = parse_object(d.data, d.where, skip_unknown)
        if obj is not None:
            tr.objects.append(obj)
    for where, doc in produced:
        obj = parse_object(doc, where)
        if obj is not None:
            tr.objects.append(obj)
    proto = [d for d in raw if detect_format(d.data) == "k8srm"]
    if proto:
        tr.extend(translate_prototype(proto))
    return tr


def convert_documents(raw_docs: Iterable[RawDocument | Any], driver: str = DEFAULT_DRIVER,
                      pool: str | None = None, node: str = DEFAULT_NODE) -> list[TypedObject]:
    """The v1 objects for ``raw_docs`` (parsed YAML documents or the loader's
    :class:`RawDocument` s) in any format dralloc reads."""
    return translate(raw_docs, driver=driver, pool=pool, node=node).objects


def load_any(paths: Iterable[str | Path], driver: str = DEFAULT_DRIVER, pool: str | None = None,
             node: str = DEFAULT_NODE) -> tuple[ObjectSet, Translation]:
    """Like :func:`dralloc.io.load`, but the files may hold pre-v1 formats
    too; all files are translated together (a prototype pod may name a claim
    from another file). Problems are collected in ``ObjectSet.errors``."""
    objs = ObjectSet()
    raw: list[RawDocument] = []
    for path in iter_files(paths):
        docs, errors = read_documents(path)
        objs.errors.extend(errors)
        raw.extend(docs)
    try:
        tr = translate(raw, driver=driver, pool=pool, node=node)
    except InputError as e:
        objs.errors.append(e)
        return objs, Translation()
    for obj in tr.objects:
        objs.add(obj)
    return objs, tr
