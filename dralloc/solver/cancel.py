"""Cancelling a search from another thread, as the scheduler cancels its
allocator's context: ``allocate(..., cancel=event)`` with a
:class:`threading.Event`. The replay looks at the event at its checkpoints,
every CP-SAT search of the call is stopped by a watcher once it is set, and
the answer is Kubernetes' error for a cancelled context (:data:`CANCELLED`).
Without an event nothing changes: ``solve`` is exactly ``Solve``."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

CANCELLED = "filter operation aborted: context canceled"   # Kubernetes' words
WATCH_SECONDS = 0.02   # how often a running CP-SAT search looks at the event

_cancel: ContextVar[threading.Event | None] = ContextVar("dralloc_cancel", default=None)


@contextmanager
def cancel_on(event: threading.Event | None) -> Iterator[None]:
    """Searches started inside stop once ``event`` is set (None: never)."""
    token = _cancel.set(event)
    try:
        yield
    finally:
        _cancel.reset(token)


def cancel_requested() -> bool:
    event = _cancel.get()
    return event is not None and event.is_set()


def solve(solver: Any, model: Any) -> Any:
    """``solver.Solve(model)`` (OR-Tools CP-SAT); with a cancel event, a
    watcher thread stops the search once the event is set -- the status is
    then UNKNOWN and :func:`cancel_requested` says why."""
    event = _cancel.get()
    if event is None:
        return solver.Solve(model)
    if event.is_set():   # no search, but a response to read (UNKNOWN)
        solver.parameters.max_time_in_seconds = 0.0
        return solver.Solve(model)
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            if event.wait(WATCH_SECONDS) and not done.is_set():
                solver.StopSearch()
                return

    threading.Thread(target=watch, name="dralloc-cancel-watch", daemon=True).start()
    try:
        return solver.Solve(model)
    finally:
        done.set()
