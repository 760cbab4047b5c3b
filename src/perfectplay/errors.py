"""Exceptions shared by the whole package.

Every error a user can cause derives from :class:`PerfectplayError`; the command line
turns it into one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations


class PerfectplayError(Exception):
    """Base class of the errors a user can cause (bad input, a faulty model, a size limit)."""


class InputError(PerfectplayError, ValueError):
    """Malformed or out-of-range input text.

    ``line`` is the 1-based line number the problem was found on (``None`` when the
    problem is about the input as a whole, such as an empty file).

    >>> str(InputError("expected 6 symbols, got 5", line=3))
    'line 3: expected 6 symbols, got 5'
    """

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line

    def __str__(self) -> str:
        return self.message if self.line is None else f"line {self.line}: {self.message}"


class ModelError(PerfectplayError):
    """A user's game model misbehaved: raised, returned something malformed, or is too large."""


class ResourceLimitError(PerfectplayError, MemoryError):
    """A computation was refused because it would not fit in memory (or another set limit)."""
