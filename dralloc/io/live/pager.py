"""Listing one resource in pages, as client-go's pager does
(``k8s.io/client-go/tools/pager``): the first request asks for ``limit``
items, each next one passes the ``continue`` token the previous answer
carried, so every page reads the snapshot of the first one. When a token
has expired (the server compacted that snapshot away: ``410 Gone`` with a
Status of reason ``Expired``) on page 2 or later, what was read is dropped
and the list is read again whole, without a limit, as the pager's
``FullListIfExpired`` does; an expired first page is an error like any other.

Pages are kept as the bytes the server sent until the list is complete (a
restart must not leave half of an older snapshot among the objects), then
parsed one at a time: the raw items of one page are held at once, not of
the whole list."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from dralloc.errors import InputError
from dralloc.io.live.connect import Connection, StatusError

DEFAULT_PAGE = 500   # client-go's pager and kubectl's --chunk-size


@dataclass
class Listing:
    """One resource listed: its pages' bytes (until :meth:`items` has
    handed them on), how many requests were made, the bytes received and
    how many times an expired token restarted the list."""

    pages: list[bytes] = field(default_factory=list)
    requests: int = 0
    restarts: int = 0
    size: int = 0
    resource_version: str = ""

    def items(self) -> Iterator[Any]:
        """Every item, in the server's order, one page parsed at a time;
        each page's bytes are let go once it is parsed."""
        while self.pages:
            page = orjson.loads(self.pages.pop(0))
            yield from page.get("items") or []


def _page(conn: Connection, path: str, data: bytes) -> dict[str, Any]:
    try:
        page = orjson.loads(data)
    except orjson.JSONDecodeError:
        page = None
    if not isinstance(page, dict) or not isinstance(page.get("items", []), list):
        raise InputError(f"the API server {conn.server} ({conn.label}) answered GET {path} with something that "
                         "is not a list")
    return page


def list_all(conn: Connection, path: str, limit: int = DEFAULT_PAGE,
             progress: Callable[[int], None] | None = None) -> Listing:
    """Every item of the list at ``path``, read in pages of ``limit`` (0:
    one request); ``progress`` is told the bytes read so far."""
    out = Listing()
    token = ""
    while True:
        query: list[tuple[str, str | int]] = [("limit", limit)] if limit > 0 else []
        if token:
            query.append(("continue", token))
        out.requests += 1
        try:
            data = conn.get(path, query)
        except StatusError as e:
            if not (token and e.code == 410 and e.reason == "Expired"):
                raise
            out.restarts += 1
            out.requests += 1
            data = conn.get(path)   # the whole list again, at the newest snapshot
            page = _page(conn, path, data)
            out.pages = [data]
            out.size += len(data)
            out.resource_version = str((page.get("metadata") or {}).get("resourceVersion") or "")
            break
        page = _page(conn, path, data)
        meta = page.get("metadata") or {}
        if not out.pages:
            out.resource_version = str(meta.get("resourceVersion") or "")
        out.pages.append(data)
        out.size += len(data)
        if progress is not None:
            progress(out.size)
        token, previous = str(meta.get("continue") or ""), token
        if not token:
            break
        if token == previous:
            raise InputError(f"the API server {conn.server} ({conn.label}) answered GET {path} with the same "
                             "continue token twice; the list does not advance")
    if progress is not None:
        progress(out.size)
    return out
