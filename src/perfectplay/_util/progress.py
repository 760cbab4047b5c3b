"""Progress reports on stderr for long work, printed only when asked for.

The library prints nothing by itself: reports are off until :func:`enable_progress` turns
them on (the ``perfectplay`` command does, unless ``-q``; a program may too, and
:func:`perfectplay.models.solve_model` does for one call given ``progress=True``). When on,
nothing is printed for work that finishes within ``delay`` seconds, so short runs stay
quiet; after that a line is printed at most every ``interval`` seconds. Reports go to
stderr only, never stdout, so they never mix with a command's answer. Set
``PERFECTPLAY_QUIET=1`` to silence them even then.

>>> progress_enabled()
False
>>> with reporting(True):
...     progress_enabled()
True
>>> enable_progress(); progress_enabled()
True
>>> enable_progress(False)
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["Progress", "enable_progress", "note", "notice", "progress_enabled", "reporting"]

_enabled = False


def enable_progress(on: bool = True) -> None:
    """Turn progress reports on stderr on (or off) for the rest of the process."""
    global _enabled
    _enabled = on


def progress_enabled() -> bool:
    """Whether progress reports are on (see :func:`enable_progress`)."""
    return _enabled


def notice(message: str) -> bool:
    """Print a one-line notice on stderr if reports are on (and ``PERFECTPLAY_QUIET`` is
    not set); return whether it was printed.

    >>> notice("perfectplay: not shown, reports are off")
    False
    """
    if not _enabled or os.environ.get("PERFECTPLAY_QUIET"):
        return False
    print(message, file=sys.stderr, flush=True)
    return True


@contextmanager
def reporting(on: bool) -> Iterator[None]:
    """Progress reports on or off within a ``with`` block, as before it afterwards."""
    before = _enabled
    enable_progress(on)
    try:
        yield
    finally:
        enable_progress(before)


def _quiet_env() -> bool:
    return bool(os.environ.get("PERFECTPLAY_QUIET"))


def _quiet() -> bool:
    return not _enabled or _quiet_env()


def note(message: str) -> None:
    """One line ``perfectplay: message`` on stderr when reports are on: what a command
    did besides its answer (a table written, a file saved), silenced like progress.

    >>> note("wrote table.npz")  # reports are off: nothing is printed
    """
    if not _quiet():
        print(f"perfectplay: {message}", file=sys.stderr, flush=True)


class Progress:
    """Throttled progress printer.

    >>> p = Progress("exploring", delay=3600, enabled=True)
    >>> p.update(10, "states")  # silent: the delay has not passed
    >>> p.done()
    >>> Progress("simulating", eta=True)._eta(250, 1000, 5.0)
    ', about 15 s left'
    """

    def __init__(
        self,
        task: str,
        delay: float = 1.0,
        interval: float = 1.0,
        enabled: bool | None = None,
        *,
        eta: bool = False,
    ) -> None:
        """``enabled``: report even when reports are off (``True``), never (``False``),
        or as :func:`enable_progress` says (``None``); ``eta``: each line also estimates
        the time left (from the rate so far, when ``total`` is given)."""
        self.task = task
        self.delay = delay
        self.interval = interval
        self.eta = eta
        self.start = time.monotonic()
        self._last = self.start + delay - interval
        self._printed = False
        on = _enabled if enabled is None else enabled
        self._quiet = not on or _quiet_env()

    def update(self, count: int, unit: str = "", total: int | None = None) -> None:
        now = time.monotonic()
        if self._quiet or now - self._last < self.interval or now - self.start < self.delay:
            return
        self._last = now
        self._printed = True
        of = f" of {total:,}" if total is not None else ""
        left = self._eta(count, total, now - self.start) if self.eta else ""
        print(
            f"perfectplay: {self.task}: {count:,}{of} {unit} ({now - self.start:.1f} s{left})",
            file=sys.stderr,
            flush=True,
        )

    @staticmethod
    def _eta(count: int, total: int | None, elapsed: float) -> str:
        """``, about N s left`` at the rate so far (empty before any progress)."""
        if total is None or count <= 0 or count >= total:
            return ""
        left = elapsed * (total - count) / count
        shown = f"{left:,.0f} s" if left < 3600 else f"{left / 3600:,.1f} h"
        return f", about {shown} left"

    def done(self, message: str = "") -> None:
        if self._printed and not self._quiet:
            elapsed = time.monotonic() - self.start
            extra = f": {message}" if message else ""
            print(f"perfectplay: {self.task} done in {elapsed:.1f} s{extra}", file=sys.stderr)
