"""A live cluster as a source of objects (:mod:`dralloc.io.sources`): every
kind dralloc reads, listed through the official ``kubernetes`` client in
the version discovery picks (:mod:`dralloc.io.live.discovery`), page by page
(:mod:`dralloc.io.live.pager`), at the cluster scope or in one namespace;
cluster-scoped kinds (nodes, slices, classes) always whole. Each item gets
the ``apiVersion`` and ``kind`` its list carries (the API server leaves them
out of list items) and is named ``context NAME: resource namespace/name`` in
messages; from there it goes through the loader like a document of a file.

The server's version (``/version``) is the release answered for unless one
is given: a release dralloc answers for as itself, a newer one as the newest
dralloc knows (with a note), an older one is an input error asking for
``--kubernetes-version``."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from dralloc.errors import InputError
from dralloc.io.live.connect import DEFAULT_TIMEOUT, Connection, StatusError
from dralloc.io.live.discovery import Served, discover
from dralloc.io.live.pager import DEFAULT_PAGE, Listing, list_all
from dralloc.io.parse import RawDocument
from dralloc.io.progress import LoadProgress
from dralloc.release import RELEASES, minor, release


@dataclass
class ClusterDocument(RawDocument):
    """One object of a cluster's list, named by its resource and key."""

    label: str = ""

    @property
    def where(self) -> str:
        return self.label


def server_release(info: Any) -> tuple[str, str | None]:
    """The release to answer for a server whose ``/version`` is ``info``,
    and a note when it is not the server's own; an input error for a server
    older than every release dralloc answers for."""
    info = info if isinstance(info, dict) else {}
    git = str(info.get("gitVersion") or "")
    text = git or f"{info.get('major', '')}.{str(info.get('minor', '')).rstrip('+')}"
    try:
        return release(text).version, None
    except InputError:
        pass
    try:
        found = int(text.lstrip("v").split(".")[1].split("-")[0].rstrip("+"))
    except (IndexError, ValueError):
        raise InputError(f"the API server's version {text or '(none)'} is not a Kubernetes version; give "
                         "--kubernetes-version") from None
    shown = f"1.{found}" + (f" ({git})" if git else "")
    span = f"{RELEASES[0]}-{RELEASES[-1]}"
    if found > minor(RELEASES[-1]):
        return RELEASES[-1], (f"the server runs Kubernetes {shown}; dralloc answers for {span}, so as "
                              f"{RELEASES[-1]} (--kubernetes-version chooses)")
    raise InputError(f"the server runs Kubernetes {shown}; dralloc answers for {span}: give --kubernetes-version "
                     "to answer as one of them")


class LiveSource:
    """The objects of a live cluster: ``kubeconfig`` (default: ``$KUBECONFIG``,
    else ``~/.kube/config``), ``context`` (default: the current one),
    ``namespace`` (default: every namespace), lists read in pages of
    ``chunk_size`` objects (0: one request each), each request given
    ``request_timeout`` seconds. Nothing is sent before it is read (or its
    version asked); then ``listings`` holds what each kind took. Several
    threads may read one source: each read is a fresh list."""

    def __init__(self, kubeconfig: str | None = None, context: str | None = None,
                 namespace: str | None = None, chunk_size: int = DEFAULT_PAGE,
                 request_timeout: float | None = DEFAULT_TIMEOUT) -> None:
        if chunk_size < 0:
            raise InputError(f"the chunk size is {chunk_size}; give 0 (no paging) or more")
        self.kubeconfig, self.context, self.namespace = kubeconfig, context, namespace
        self.chunk_size, self.request_timeout = chunk_size, request_timeout
        self.listings: dict[str, Listing] = {}
        self._lock = threading.Lock()
        self._conn: Connection | None = None
        self._release: tuple[str, str | None] | None = None
        self._git_version = ""
        self._note: str | None = None   # on the release taken as the default

    def connection(self) -> Connection:
        """The connection (the kubeconfig read and the context chosen once)."""
        with self._lock:
            if self._conn is None:
                self._conn = Connection(self.kubeconfig, self.context, self.request_timeout)
            return self._conn

    @property
    def label(self) -> str:
        return self.connection().label

    def _version(self) -> tuple[str, str | None]:
        conn = self.connection()
        with self._lock:
            if self._release is None:
                info = conn.get_json("/version")
                self._git_version = str(info.get("gitVersion") or "") if isinstance(info, dict) else ""
                self._release = server_release(info)
            return self._release

    @property
    def server_version(self) -> str:
        """The server's ``gitVersion`` (``v1.37.2``)."""
        self._version()
        return self._git_version

    @property
    def kubernetes_version(self) -> str:
        """The release answered for when none is given: the server's (asked
        once; when it is not the server's own, :meth:`documents` says so)."""
        version, note = self._version()
        self._note = note
        return version

    def documents(self, meter: LoadProgress) -> Iterator[RawDocument | InputError | str]:
        """Every object of the kinds dralloc reads, then notes (:mod:`dralloc.io.sources`)."""
        conn = self.connection()
        if self._note:
            yield f"{conn.label}: {self._note}"
        served, notes = discover(conn)
        yield from notes
        if self.namespace is not None:
            yield (f"{conn.label}: namespace {self.namespace} only: claims of other namespaces are not read, "
                   "so the devices they hold count as free (read every namespace for the cluster's state)")
        for s in served:
            listing = self._list(conn, s, meter)
            self.listings[s.kind] = listing
            for item in listing.items():
                yield self._document(conn, s, item)

    def save(self, path: Path) -> list[str]:
        """Write the cluster's objects to ``path`` as one List (JSON, as
        ``kubectl get -o json`` writes it), for readers of files (a plan
        sweep's workers); the notes on the cluster are returned."""
        notes: list[str] = []
        with path.open("wb") as out:
            out.write(b'{"apiVersion":"v1","kind":"List","metadata":{},"items":[')
            first = True
            for doc in self.documents(LoadProgress(enabled=False)):
                if isinstance(doc, str):
                    notes.append(doc)
                elif isinstance(doc, RawDocument):
                    out.write((b"" if first else b",\n") + orjson.dumps(doc.data))
                    first = False
            out.write(b"]}\n")
        return notes

    def _list(self, conn: Connection, s: Served, meter: LoadProgress) -> Listing:
        namespace = self.namespace if s.namespaced else None
        try:
            listing = list_all(conn, s.path(namespace), self.chunk_size, meter.read)
        except StatusError as e:
            if e.code == 403 and s.namespaced and namespace is None:
                raise InputError(f"{e.message}; give -n NAMESPACE to read one namespace") from None
            raise
        meter.file_done()
        return listing

    @staticmethod
    def _document(conn: Connection, s: Served, item: Any) -> ClusterDocument:
        if isinstance(item, dict):
            item["apiVersion"], item["kind"] = s.api_version, s.kind
            meta: Any = item.get("metadata") if isinstance(item.get("metadata"), dict) else {}
            ns, name = meta.get("namespace"), meta.get("name")
            key = f"{ns}/{name}" if ns and s.namespaced else str(name)
        else:
            key = "(not an object)"
        return ClusterDocument(conn.label, 0, item, label=f"{conn.label}: {s.resource} {key}")
