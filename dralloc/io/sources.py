"""Sources: where objects come from. Files, folders, stdin (``-``) and a
live cluster (:class:`dralloc.io.live.LiveSource`) all yield documents to
the one front door, :func:`dralloc.io.load` -- the same admission, duplicate
rule, warnings and errors naming the object, whatever the source -- so a
demand file and a live cluster, or a dump and the cluster it came from, are
one object set.

A source other than a path is any object with ``documents(meter)``: an
iterator of :class:`~dralloc.io.parse.RawDocument` (with its ``where``), of
:class:`~dralloc.errors.InputError` for what could not be read, and of
``str`` for a warning line about the source itself; and
``kubernetes_version``: the release the source's objects are answered for
when nobody says otherwise (a cluster's server version), or None."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Protocol, runtime_checkable

from dralloc.errors import InputError
from dralloc.io.parse import RawDocument, iter_documents
from dralloc.io.progress import LoadProgress

SUFFIXES = (".yaml", ".yml", ".json")


@runtime_checkable
class Source(Protocol):
    """A source of objects that is not a path."""

    @property
    def kubernetes_version(self) -> str | None: ...

    def documents(self, meter: LoadProgress) -> Iterator[RawDocument | InputError | str]: ...


Input = str | Path | Source


def iter_files(paths: Iterable[str | Path]) -> Iterator[Path | None]:
    """Files named by ``paths`` (directories walked recursively in name order;
    ``-`` yields None for stdin)."""
    for p in paths:
        if str(p) == "-":
            yield None
            continue
        path = Path(p)
        if path.is_dir():
            yield from sorted(f for f in path.rglob("*") if f.is_file() and f.suffix in SUFFIXES)
        else:
            yield path


def expand(inputs: Iterable[Input]) -> list[Path | None | Source]:
    """Each file (folders walked, None for stdin) and each other source, in order."""
    out: list[Path | None | Source] = []
    for item in inputs:
        if isinstance(item, (str, Path)):
            out.extend(iter_files([item]))
        else:
            out.append(item)
    return out


def size(item: Path | None | Source) -> int:
    """Bytes a file holds (0 for stdin, other sources and what cannot be read)."""
    if not isinstance(item, Path):
        return 0
    try:
        return item.stat().st_size
    except OSError:
        return 0  # reported when it is read


def documents(items: list[Path | None | Source], meter: LoadProgress) -> Iterator[RawDocument | InputError | str]:
    """Every document of every source, in order."""
    for item in items:
        if item is None or isinstance(item, Path):
            yield from iter_documents(item, meter.read)
            meter.file_done()
        else:
            yield from item.documents(meter)


def release(items: Iterable[Input | None], given: str | None) -> str | None:
    """The release to answer for: ``given``, else the first source that has
    one of its own (a cluster's), else None (the default)."""
    if given is not None:
        return given
    return next((v for i in items if i is not None and not isinstance(i, (str, Path))
                 and (v := i.kubernetes_version) is not None), None)
