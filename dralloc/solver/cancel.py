"""Stopping a running search: the one way a search is interrupted.

* **A cancel event**, as the scheduler cancels its allocator's context:
  ``allocate(..., cancel=event)`` with a :class:`threading.Event`. The replay
  looks at the event at its checkpoints, every CP-SAT search of the call is
  stopped by a watcher once it is set, and the answer is Kubernetes' error for
  a cancelled context (:data:`CANCELLED`).
* **SIGINT** (Ctrl-C), inside :func:`interrupts` (the command line runs every
  command in it): every running CP-SAT search stops at once and the main
  thread raises ``KeyboardInterrupt`` as soon as the search has returned
  ("interrupted", exit 130). CP-SAT's own SIGINT handler is never installed
  (``catch_sigint_signal`` off, :func:`dralloc.solver.search.run`): it
  swallows the first Ctrl-C and, once a search has run, leaves the default
  handler behind, so that a later Ctrl-C killed the process with no word.
  While a search runs, the main thread is inside OR-Tools and Python cannot
  run its handler; the signal reaches a watcher thread through
  :func:`signal.set_wakeup_fd`, which calls the searches' ``StopSearch``.

Without an event, outside :func:`interrupts`, nothing changes: a search is
exactly ``Solve``."""

from __future__ import annotations

import signal
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

CANCELLED = "filter operation aborted: context canceled"   # Kubernetes' words
WATCH_SECONDS = 0.02   # how often a running CP-SAT search looks at the event
RESTOP_SECONDS = 1.0   # after SIGINT, searches starting meanwhile are stopped again for this long

_cancel: ContextVar[threading.Event | None] = ContextVar("dralloc_cancel", default=None)
_running: dict[int, Any] = {}          # id(solver) -> solver, every CP-SAT search running now
_lock = threading.Lock()
_interrupted = threading.Event()       # SIGINT seen inside :func:`interrupts`
_worker_watch: list[Any] = []          # a worker process's watcher (:func:`in_worker`)


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


def interrupted() -> bool:
    """SIGINT arrived (inside :func:`interrupts`)."""
    return _interrupted.is_set()


def stop_requested() -> bool:
    """The caller cancelled, or Ctrl-C was pressed: stop and say so."""
    return cancel_requested() or interrupted()


def solve(solver: Any, model: Any, callback: Any = None) -> Any:
    """``solver.solve(model, callback)`` (OR-Tools CP-SAT), stopped by a
    set cancel event or by SIGINT. Callers use :func:`dralloc.solver.search.run`."""
    if stop_requested():   # no search, but a response to read (UNKNOWN)
        solver.parameters.max_time_in_seconds = 0.0
        return solver.solve(model, callback)
    key = id(solver)
    with _lock:
        _running[key] = solver
    done = threading.Event()
    event = _cancel.get()
    if event is not None:
        threading.Thread(target=_watch_event, args=(solver, event, done), name="dralloc-cancel-watch",
                         daemon=True).start()
    try:
        if interrupted():   # SIGINT between the check above and the registration
            solver.parameters.max_time_in_seconds = 0.0
        return solver.solve(model, callback)
    finally:
        done.set()
        with _lock:
            _running.pop(key, None)


def _watch_event(solver: Any, event: threading.Event, done: threading.Event) -> None:
    while not done.is_set():
        if event.wait(WATCH_SECONDS) and not done.is_set():
            solver.stop_search()
            return


def _stop_all() -> None:
    with _lock:
        solvers = list(_running.values())
    for s in solvers:
        s.stop_search()


@contextmanager
def interrupts() -> Iterator[None]:
    """Inside, SIGINT stops every running CP-SAT search within milliseconds;
    Python's own handler then raises ``KeyboardInterrupt`` in the main
    thread, as it does anywhere else. Only in the main thread with Python's
    default SIGINT handler (elsewhere nothing changes)."""
    if threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    started = _start_watcher()
    if started is None:
        yield
        return
    old, reader, writer, closing, watcher = started
    try:
        yield
    finally:
        signal.set_wakeup_fd(old)
        closing.set()
        writer.close()        # the watcher reads end-of-file and ends
        watcher.join(1.0)
        reader.close()
        _interrupted.clear()


def _start_watcher() -> tuple[int, socket.socket, socket.socket, threading.Event, threading.Thread] | None:
    reader, writer = socket.socketpair()
    writer.setblocking(False)
    try:
        old = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    except ValueError:   # not the main interpreter
        reader.close()
        writer.close()
        return None
    _interrupted.clear()
    closing = threading.Event()
    watcher = threading.Thread(target=_watch_signals, args=(reader, closing), name="dralloc-sigint-watch",
                               daemon=True)
    watcher.start()
    return old, reader, writer, closing, watcher


def in_worker() -> None:
    """The initializer of a worker process (sweeps, ``check --jobs``): for
    its whole life, SIGINT (which Ctrl-C sends to every process of the
    group) stops its running searches too, so that its task ends at once."""
    if threading.current_thread() is threading.main_thread() \
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        _worker_watch[:] = [_start_watcher()]   # kept: a closed socket would be a dead wakeup fd


@contextmanager
def process_pool(workers: int | None) -> Iterator[ProcessPoolExecutor]:
    """A process pool whose workers stop with Ctrl-C (:func:`in_worker`);
    on ``KeyboardInterrupt`` the tasks not started are cancelled and the
    workers ended instead of waited for (a SIGINT sent to this process alone
    does not reach them)."""
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(max_workers=workers, initializer=in_worker)
    interrupted = False
    try:
        yield pool
    except KeyboardInterrupt:
        interrupted = True
        for proc in list((getattr(pool, "_processes", None) or {}).values()):
            proc.terminate()
        raise
    finally:
        pool.shutdown(wait=not interrupted, cancel_futures=interrupted)


def _watch_signals(reader: socket.socket, closing: threading.Event) -> None:
    while not closing.is_set():
        try:
            data = reader.recv(64)
        except OSError:
            return
        if not data:
            return
        if signal.SIGINT in data:
            _interrupted.set()
            end = time.monotonic() + RESTOP_SECONDS
            while time.monotonic() < end and not closing.is_set():   # a search may have registered
                _stop_all()                                          # before it could be stopped
                closing.wait(WATCH_SECONDS)
