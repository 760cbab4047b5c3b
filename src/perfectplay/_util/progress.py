"""Progress reports on stderr for long work.

Nothing is printed for work that finishes within ``delay`` seconds, so short runs stay
quiet; after that a line is printed at most every ``interval`` seconds. Reports go to
stderr only, never stdout, so they never mix with a command's answer. Set
``PERFECTPLAY_QUIET=1`` to silence them.
"""

from __future__ import annotations

import os
import sys
import time


class Progress:
    """Throttled progress printer.

    >>> p = Progress("exploring", delay=3600)
    >>> p.update(10, "states")  # silent: the delay has not passed
    >>> p.done()
    """

    def __init__(self, task: str, delay: float = 1.0, interval: float = 1.0) -> None:
        self.task = task
        self.delay = delay
        self.interval = interval
        self.start = time.monotonic()
        self._last = self.start + delay - interval
        self._printed = False
        self._quiet = bool(os.environ.get("PERFECTPLAY_QUIET"))

    def update(self, count: int, unit: str = "", total: int | None = None) -> None:
        now = time.monotonic()
        if self._quiet or now - self._last < self.interval or now - self.start < self.delay:
            return
        self._last = now
        self._printed = True
        of = f" of {total:,}" if total is not None else ""
        print(
            f"perfectplay: {self.task}: {count:,}{of} {unit} ({now - self.start:.1f} s)",
            file=sys.stderr,
            flush=True,
        )

    def done(self, message: str = "") -> None:
        if self._printed and not self._quiet:
            elapsed = time.monotonic() - self.start
            extra = f": {message}" if message else ""
            print(f"perfectplay: {self.task} done in {elapsed:.1f} s{extra}", file=sys.stderr)
