"""Exceptions shared by the whole package.

Every error a user can cause derives from :class:`PerfectplayError`; the command line
turns it into one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import reprlib

__all__ = [
    "PerfectplayError",
    "InputError",
    "OptionError",
    "ModelError",
    "ResourceLimitError",
    "RulesError",
    "UnknownStateError",
    "UnsupportedError",
]

_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = 40


def short_repr(value: object) -> str:
    """``repr(value)`` for a message, at most about 40 characters whatever the value is.

    Python API callers may pass a megabyte string or an integer too long for ``repr``
    (more than 4300 digits): a message shows its start or its size.

    >>> short_repr(1.5), short_repr("x" * 100), short_repr(-(10**5000))
    ('1.5', "'xxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxx'", '-<an integer of about 5,000 digits>')
    """
    if isinstance(value, int) and value.bit_length() > 160:
        sign = "-" if value < 0 else ""
        return f"{sign}<an integer of about {round(value.bit_length() * 0.30103):,} digits>"
    try:
        return _REPR.repr(value)
    except Exception:  # a user's object whose __repr__ fails
        return f"<{type(value).__name__} object>"


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


class WriteError(InputError):
    """A file the command was asked to write (``--save``, ``--export``, ``--plot``) could
    not be written: an unwritable folder, a full disk. The command exits with status 1,
    as when standard output cannot be written (bad input is 2). An :class:`InputError`
    (without a line) so that code refusing a bad path catches it as before.

    >>> str(WriteError("cannot write /no/t.npz: No such file or directory"))
    'cannot write /no/t.npz: No such file or directory'
    """


class OptionError(InputError):
    """Command-line options that do not go together or name nothing usable (``--engine
    processes`` without ``--workdir``, a ``--scheduler`` that does not answer): about the
    options, not the input, so its line carries no input file's name. Status 2.

    >>> str(OptionError("--engine processes needs --workdir DIR"))
    '--engine processes needs --workdir DIR'
    """


class ModelError(PerfectplayError):
    """A user's game model misbehaved: raised, returned something malformed, or is too large."""


class UnknownStateError(PerfectplayError, KeyError):
    """A queried state was not reached from the game's start (or is not in the table)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "unknown state"


class RulesError(ModelError, ValueError):
    """A user's rule set cannot be played: a scoring function failed or returned
    something other than an int, or the dice it asks for cannot be built."""


class ResourceLimitError(PerfectplayError, MemoryError):
    """A computation was refused because it would not fit in memory (or another set limit)."""


class UnsupportedError(PerfectplayError, NotImplementedError):
    """A solved game was asked a question its kind cannot answer (exact values of a
    Yahtzee table, an outcome distribution of a game without dice); the message says why."""


class UnsupportedObjectiveError(PerfectplayError, ValueError):
    """No solver (or not the one asked for) can answer this objective on this graph.

    The message names what fails, for instance a forced label-setting on a maximising
    objective, or a zero cost where label-setting needs positive ones.
    """
