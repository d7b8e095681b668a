"""The one progress reporter: what long work is doing, on stderr.

Engines never print. A step that can take more than a couple of seconds at
a thousand nodes takes a ``progress`` callback (:class:`Progress`) and calls
it with where it is -- ``progress("column generation: iteration", 3, note="LP 203.4")``
-- and the command line passes a :class:`Reporter`, which decides what to
show and how:

* nothing in the first :data:`SHOW_AFTER` seconds (short work stays quiet),
  and nothing at all unless stderr is a terminal or ``--progress`` asks;
* on a terminal, one line rewritten in place (``\\r``), refreshed at most
  every :data:`EVERY` seconds, with the seconds spent in the current step
  ticking while a step runs long without news (a CP-SAT search);
* elsewhere (a pipe, a log file), one line per update, at most one every
  :data:`LOG_EVERY` seconds, plus one whenever the step changes.

It is thread-safe (searches report from their own threads) and clears its
in-place line before the answer is printed (:func:`clear_line`)."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Protocol, TextIO

SHOW_AFTER = 2.0   # seconds before the first line
EVERY = 0.5        # seconds between refreshes of the line on a terminal
LOG_EVERY = 5.0    # seconds between lines elsewhere (a new step is shown at once)
TICK = 1.0         # a terminal line's clock is refreshed this often while nothing else is said


class Progress(Protocol):
    """What engines call: the step they are in, how far (``done`` of
    ``total``, either may be None) and a short ``note``."""

    def __call__(self, step: str, done: int | None = None, total: int | None = None, note: str = "") -> None: ...


def counter(progress: Progress | None, step: str) -> Callable[[int, int], None] | None:
    """``progress`` as a ``(done, total)`` callback for one step (None: None)."""
    if progress is None:
        return None
    return lambda done, total: progress(step, done, total)


_active: Reporter | None = None   # the reporter whose line is on the terminal
_active_lock = threading.Lock()


def clear_line() -> None:
    """Erase the in-place progress line (before the answer is printed)."""
    with _active_lock:
        rep = _active
    if rep is not None:
        rep.clear()


class Reporter:
    """Progress lines on ``out`` (stderr). ``enabled``: True always (the
    ``--progress`` option), False never, None when ``out`` is a terminal.
    ``tty`` overrides the terminal test for the way lines are written."""

    def __init__(self, enabled: bool | None = None, out: TextIO | None = None, tty: bool | None = None) -> None:
        self.out = out or sys.stderr
        is_tty = _isatty(self.out)
        self.enabled = is_tty if enabled is None else enabled
        self.tty = is_tty if tty is None else tty
        self.start = time.monotonic()
        self._lock = threading.RLock()
        self._step = ""
        self._text = ""              # the current step's line, without its clock
        self._step_start = self.start
        self._next = 0.0             # earliest time for the next line
        self._width = 0              # of the in-place line on the terminal
        self._shown = False
        self._ticker: threading.Thread | None = None
        self._stop = threading.Event()

    def __call__(self, step: str, done: int | None = None, total: int | None = None, note: str = "") -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        with self._lock:
            new = step != self._step
            if new:
                self._step, self._step_start = step, now
            self._text = _text(step, done, total, note)
            if now - self.start < SHOW_AFTER or (not new and now < self._next):
                return
            self._write(now)

    def _write(self, now: float) -> None:
        line = self._text
        spent = now - self._step_start
        if spent >= 2 * TICK:
            line += f", {spent:.0f} s"
        if self.tty:
            pad = max(0, self._width - len(line))
            self.out.write("\r" + line + " " * pad)
            self._width = len(line)
            self._next = now + EVERY
            self._start_ticker()
        else:
            self.out.write(line + "\n")
            self._next = now + LOG_EVERY
        self.out.flush()
        if not self._shown:
            global _active
            self._shown = True
            with _active_lock:
                _active = self

    def _start_ticker(self) -> None:
        if self._ticker is None:
            self._ticker = threading.Thread(target=self._tick, name="dralloc-progress", daemon=True)
            self._ticker.start()

    def _tick(self) -> None:
        while not self._stop.wait(TICK):
            with self._lock:
                now = time.monotonic()
                if self._width and now >= self._next:
                    self._write(now)

    @property
    def shown(self) -> bool:
        """Something was written."""
        return self._shown

    def line(self, text: str) -> None:
        """A line that stays (a summary at the end of a step)."""
        if not self.enabled:
            return
        with self._lock:
            self.clear()
            self.out.write(text + "\n")
            self.out.flush()

    def clear(self) -> None:
        """Erase the in-place line (the next update writes a new one)."""
        with self._lock:
            if self._width:
                self.out.write("\r" + " " * self._width + "\r")
                self.out.flush()
                self._width = 0

    def finish(self) -> None:
        self._stop.set()
        self.clear()
        global _active
        with _active_lock:
            if _active is self:
                _active = None


def _text(step: str, done: int | None, total: int | None, note: str) -> str:
    """``step done/total (note)``, or ``step: note`` without a count."""
    if done is None:
        return f"{step}: {note}" if note else step
    out = f"{step} {done:,}" + (f"/{total:,}" if total is not None else "")
    return f"{out} ({note})" if note else out


def _isatty(out: TextIO) -> bool:
    try:
        return out.isatty()
    except (AttributeError, ValueError):
        return False


class LoadProgress:
    """Counts what a load has read; reports objects and megabytes through a
    :class:`Reporter`, and a last line once a shown load is done."""

    def __init__(self, total_bytes: int = 0, enabled: bool | None = None, out: TextIO | None = None) -> None:
        self.reporter = Reporter(enabled, out)
        self.total = total_bytes
        self.start = time.monotonic()
        self.done_bytes = 0      # bytes of files finished
        self.file_bytes = 0      # bytes of the current file read so far
        self.objects = 0

    def read(self, n: int) -> None:
        """The current file has been read up to ``n`` bytes."""
        self.file_bytes = n
        self._tick()

    def file_done(self) -> None:
        self.done_bytes += self.file_bytes
        self.file_bytes = 0

    def object(self) -> None:
        self.objects += 1
        if not self.objects % 256:
            self._tick()

    def _mb(self) -> float:
        return (self.done_bytes + self.file_bytes) / 1e6

    def _tick(self) -> None:
        of = f" of {self.total / 1e6:,.0f}" if self.total else ""
        self.reporter("loading", note=f"{self.objects:,} objects, {self._mb():,.0f}{of} MB")

    def finish(self) -> None:
        if self.reporter.shown:
            self.reporter.line(f"loaded {self.objects:,} objects, {self._mb():,.0f} MB in "
                               f"{time.monotonic() - self.start:.1f} s")
        self.reporter.finish()
