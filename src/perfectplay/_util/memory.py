"""Memory estimates before large allocations.

A solver that is about to allocate arrays whose size depends on the input calls
:func:`require` first; when the estimate does not fit, the user gets a clear
:class:`~perfectplay.errors.ResourceLimitError` instead of the operating system's
out-of-memory killer.

The budget is the smaller of the ``PERFECTPLAY_MEMORY_LIMIT`` environment variable
(bytes, or with a ``K``/``M``/``G`` suffix) and 80% of the memory the kernel reports as
available.
"""

from __future__ import annotations

import os

from perfectplay.errors import ResourceLimitError

__all__ = ["available_bytes", "format_bytes", "require"]

_SUFFIX = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def _parse_size(text: str) -> int:
    text = text.strip().upper().removesuffix("B")
    if text and text[-1] in _SUFFIX:
        return int(float(text[:-1]) * _SUFFIX[text[-1]])
    return int(text)


def available_bytes() -> int:
    """Bytes the process may still allocate: MemAvailable (80%), capped by the env limit.

    >>> available_bytes() > 0
    True
    """
    budget = None
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    budget = int(int(line.split()[1]) * 1024 * 0.8)
                    break
    except OSError:
        pass
    if budget is None:
        budget = 4 << 30
    env = os.environ.get("PERFECTPLAY_MEMORY_LIMIT")
    if env:
        try:
            budget = min(budget, _parse_size(env))
        except ValueError:
            raise ResourceLimitError(f"PERFECTPLAY_MEMORY_LIMIT={env!r} is not a size") from None
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
    budget = available_bytes()
    if nbytes > budget:
        raise ResourceLimitError(
            f"{what} needs about {format_bytes(nbytes)} of memory, "
            f"but only {format_bytes(budget)} is available"
        )
