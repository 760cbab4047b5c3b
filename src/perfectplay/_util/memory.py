"""Memory estimates before large allocations.

A solver that is about to allocate arrays whose size depends on the input calls
:func:`require` first; when the estimate does not fit, the user gets a clear
:class:`~perfectplay.errors.ResourceLimitError` instead of the operating system's
out-of-memory killer.

The budget is the smaller of the ``PERFECTPLAY_MEMORY_LIMIT`` environment variable
(bytes, or a plain decimal number with a ``K``/``M``/``G``/``T`` suffix, powers
of 1024; anything else, such as ``infG`` or ``-1G``, is refused with one line naming it) and 80% of
the memory the kernel reports as available (and of the address space left under
``ulimit -v``, where one is set).
"""

from __future__ import annotations

import math
import os
import re
import time
from fractions import Fraction
from typing import Any

from perfectplay.errors import ResourceLimitError

__all__ = ["available_bytes", "format_bytes", "require"]

_SUFFIX = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
# A plain decimal number (no sign, exponent, inf or nan), then an optional binary suffix.
_SIZE = re.compile(r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)([KMGT]?)I?B?")
_ENV = "PERFECTPLAY_MEMORY_LIMIT"


def _parse_size(text: str) -> int:
    """Bytes in a size such as ``4G``, ``512M``, ``1.5GiB`` or ``1000000`` (suffixes are x1024).

    Only plain decimal numbers are sizes: a sign, an exponent, ``inf`` or ``nan`` is refused
    with :class:`ValueError`, so a typo cannot become an unlimited or negative budget. The
    arithmetic is exact (no float), so any number of digits is safe.

    >>> _parse_size("4G"), _parse_size(" 1.5kib "), _parse_size("1000")
    (4294967296, 1536, 1000)
    >>> _parse_size("infG")
    Traceback (most recent call last):
    ...
    ValueError: not a size
    """
    match = _SIZE.fullmatch(text.strip().upper())
    if match is None:
        raise ValueError("not a size")
    number, suffix = match.groups()
    return int(Fraction(number) * _SUFFIX[suffix])


def available_bytes() -> int:
    """Bytes the process may still allocate: MemAvailable (80%), capped by the env limit.

    >>> available_bytes() > 0
    True
    """
    return _budget(_meminfo_available())


def _meminfo_available() -> int | None:
    """80% of MemAvailable, read now, and of the address space the process may still
    map where ``ulimit -v`` limits it (``None`` where the kernel says neither)."""
    budget = None
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    budget = int(int(line.split()[1]) * 1024 * 0.8)
                    break
    except OSError:
        pass
    room = _address_space_room()
    if room is not None:
        # Past the limit an allocation fails (a MemoryError from deep inside a kernel)
        # however much memory the machine has free.
        budget = int(room * 0.8) if budget is None else min(budget, int(room * 0.8))
    _last_reading[:] = [time.monotonic(), budget]
    return budget


def _address_space_room() -> int | None:
    """Bytes of address space left below ``RLIMIT_AS`` (``ulimit -v``), ``None`` when
    it is unlimited or unknown.

    >>> room = _address_space_room()
    >>> room is None or room >= 0
    True
    """
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft == resource.RLIM_INFINITY or soft < 0:
            return None
        used = 0
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    used = int(line.split()[1]) * 1024
                    break
    except (ImportError, OSError, ValueError):
        return None
    return max(0, soft - used)


# (when, what) of the last reading of /proc/meminfo.
_last_reading: list[Any] = [-math.inf, None]
#: A reading younger than this answers a request below an eighth of it: a file of many
#: small instances asks before each one, and reading the file costs more than they do.
REUSE_SECONDS = 1.0


def recent_available_bytes(nbytes: int = 0) -> int:
    """:func:`available_bytes`, from the last reading where it is younger than
    :data:`REUSE_SECONDS` and ``nbytes`` (what is about to be asked for) is below an
    eighth of it: for callers that ask many times a second.

    >>> recent_available_bytes() > 0
    True
    """
    when, meminfo = _last_reading
    if meminfo is None or nbytes > meminfo // 8 or time.monotonic() - when > REUSE_SECONDS:
        meminfo = _meminfo_available()
    return _budget(meminfo)


def _budget(meminfo: int | None) -> int:
    budget = 4 << 30 if meminfo is None else meminfo
    env = os.environ.get(_ENV)
    if env:
        try:
            budget = min(budget, _parse_size(env))
        except ValueError:
            shown = repr(env) if len(env) <= 40 else repr(env[:40] + "...")
            raise ResourceLimitError(
                f"{_ENV}={shown} is not a size (bytes, or a number with K, M, G or T, such as 4G)"
            ) from None
    return budget


def format_bytes(n: float) -> str:
    """Human-readable size.

    >>> format_bytes(3 * 2**30)
    '3.0 GiB'
    """
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"  # pragma: no cover


def require(nbytes: int, what: str) -> None:
    """Raise :class:`ResourceLimitError` if ``nbytes`` for ``what`` will not fit.

    >>> require(1024, "a small table")
    """
    budget = recent_available_bytes(nbytes)
    if nbytes > budget:
        raise ResourceLimitError(
            f"{what} needs about {format_bytes(nbytes)} of memory, "
            f"but only {format_bytes(budget)} is available"
        )
