"""The command line's own rules: its arguments, its quiet mode, its error rules.

The mechanics every command shares (the argument parser, reading ``FILE`` or stdin, the
error rule ``perfectplay: FILE:LINE: message`` with status 2, the guarded standard
output) live in :mod:`perfectplay._util.command`, where the site's command reads them
too; the rules of input text and numbers live in the library (:mod:`perfectplay.text`).
This module re-exports both under their old names for one release, and adds what only
the ``perfectplay`` command line decides: :func:`add_quiet` and :func:`quiet_mode`.

>>> int_token("+007"), quote_token("ABC")
(7, "'ABC'")
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from contextlib import contextmanager

from perfectplay._util.command import (
    DEFAULT_MAX_INPUT_BYTES,
    STDIN_NAME,
    ArgumentParser,
    guarded,
    make_parser,
    read_input,
    run,
    source_name,
    stdin_is_terminal,
)
from perfectplay._util.progress import reporting
from perfectplay.text.arguments import digits_arg, int_arg, path_arg, positive_arg
from perfectplay.text.parse import (
    INT_DIGITS,
    INT_LIMIT,
    WHITESPACE,
    input_lines,
    int_in_range,
    int_token,
    iter_lines,
    iter_tokens,
    quote_token,
    split_tokens,
    unify_line_ends,
)

__all__ = [
    "DEFAULT_MAX_INPUT_BYTES",
    "INT_DIGITS",
    "INT_LIMIT",
    "QUIET_ENV",
    "STDIN_NAME",
    "WHITESPACE",
    "ArgumentParser",
    "add_quiet",
    "all_or_nothing",
    "digits_arg",
    "guarded",
    "input_lines",
    "int_arg",
    "int_in_range",
    "int_token",
    "iter_lines",
    "iter_tokens",
    "make_parser",
    "path_arg",
    "positive_arg",
    "quiet_mode",
    "quote_token",
    "read_input",
    "run",
    "source_name",
    "split_tokens",
    "stdin_is_terminal",
    "unify_line_ends",
]

#: Set to a non-empty value, silences every command as ``-q`` does.
QUIET_ENV = "PERFECTPLAY_QUIET"


def add_quiet(parser: argparse.ArgumentParser) -> None:
    """``-q`` / ``--quiet``: nothing but the answer and errors."""
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help=f"print nothing but the answer and errors (no progress, timings or notes; "
        f"{QUIET_ENV}=1 does the same)",
    )


@contextmanager
def all_or_nothing() -> Iterator[None]:
    """Print what the block prints only if it ends without an error: a command that
    answers several queries refuses a bad one with its line alone, not after the others'
    answers (the exit status would say the output is no answer)."""
    import contextlib
    import io
    import sys

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        yield
    sys.stdout.write(buffer.getvalue())


@contextmanager
def quiet_mode(quiet: bool) -> Iterator[bool]:
    """Within the block, progress reports and notes are off when ``quiet`` (``-q``) or
    :data:`QUIET_ENV` is set; yields whether the command is quiet.

    Every report on stderr other than an error goes through
    :mod:`perfectplay._util.progress`, so turning it off here silences all of them, the
    exact evaluation's included.

    >>> with quiet_mode(True) as quiet:
    ...     quiet
    True
    """
    quiet = quiet or bool(os.environ.get(QUIET_ENV))
    with reporting(not quiet):
        yield quiet
