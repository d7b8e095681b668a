"""Progress of a long load on stderr: objects and megabytes read so far,
refreshed twice a second once the load has taken 2 seconds; nothing for a
short load, nor when stderr is not a terminal unless asked for."""

from __future__ import annotations

import sys
import time
from typing import TextIO

SHOW_AFTER = 2.0   # seconds before the first line
EVERY = 0.5        # seconds between refreshes


class LoadProgress:
    """Counts what a load has read; prints when it is worth it."""

    def __init__(self, total_bytes: int = 0, enabled: bool | None = None, out: TextIO | None = None) -> None:
        self.out = out or sys.stderr
        self.enabled = self.out.isatty() if enabled is None else enabled
        self.total = total_bytes
        self.start = time.monotonic()
        self.next = self.start + SHOW_AFTER
        self.done_bytes = 0      # bytes of files finished
        self.file_bytes = 0      # bytes of the current file read so far
        self.objects = 0
        self.shown = False

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

    def _tick(self) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now < self.next:
            return
        self.next = now + EVERY
        mb = (self.done_bytes + self.file_bytes) / 1e6
        of = f" of {self.total / 1e6:,.0f}" if self.total else ""
        print(f"\rloading: {self.objects:,} objects, {mb:,.0f}{of} MB, {now - self.start:.0f} s ",
              end="", file=self.out, flush=True)
        self.shown = True

    def finish(self) -> None:
        if self.shown:
            mb = (self.done_bytes + self.file_bytes) / 1e6
            print(f"\rloaded {self.objects:,} objects, {mb:,.0f} MB in {time.monotonic() - self.start:.1f} s",
                  file=self.out, flush=True)
