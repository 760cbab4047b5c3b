"""argparse types for the options a person types, under the rules of :mod:`.parse`.

Every integer option of every command is read by :func:`int_arg` (the one number rule of
:func:`~perfectplay.text.parse.int_token`, so ``--top 007`` and a token ``007`` of an input
file mean the same) and every file name by :func:`path_arg`. Only the standard library is
imported, so a problem's flags cost nothing to declare.

>>> int_arg(" +007 "), positive_arg("3"), digits_arg("12"), path_arg("table.npz")
(7, 3, 12, 'table.npz')
"""

from __future__ import annotations

import argparse

from perfectplay.text.numbers import MAX_DIGITS
from perfectplay.text.parse import INT_LIMIT, int_token, quote_token, split_tokens

__all__ = ["digits_arg", "int_arg", "path_arg", "positive_arg"]


def int_arg(text: str) -> int:
    """An argparse ``type`` for an integer option, under the rule of
    :func:`~perfectplay.text.parse.int_token`.

    White space around the value is allowed, as around a token of an input file. (argparse's
    own ``type=int`` echoes the whole argument, and ``int`` refuses strings of more than
    4300 digits with a message about Python.)

    >>> int_arg("12"), int_arg("-3"), int_arg(" +007 ")
    (12, -3, 7)
    """
    tokens = split_tokens(text)
    value = int_token(tokens[0]) if len(tokens) == 1 else None
    if value is None:
        raise argparse.ArgumentTypeError(f"expected an integer, got {quote_token(text)}")
    if abs(value) >= INT_LIMIT:
        raise argparse.ArgumentTypeError(f"{quote_token(text)} is out of range")
    return value


def positive_arg(text: str) -> int:
    """An argparse ``type`` for a count: an integer of at least 1.

    >>> positive_arg("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a positive integer, got 0
    """
    try:
        value = int_arg(text)
    except argparse.ArgumentTypeError:
        shown = quote_token(text)
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {shown}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def digits_arg(text: str) -> int:
    """An argparse ``type`` for ``--digits N``: decimals of a float, ``0..MAX_DIGITS``.

    >>> digits_arg("18")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected 0 to 17 decimals, got 18
    """
    value = int_arg(text)
    if not 0 <= value <= MAX_DIGITS:
        raise argparse.ArgumentTypeError(f"expected 0 to {MAX_DIGITS} decimals, got {value}")
    return value


def path_arg(text: str) -> str:
    """An argparse ``type`` for a file name option: the empty name is refused, not ignored.

    >>> path_arg("table.npz")
    'table.npz'
    """
    if not text:
        raise argparse.ArgumentTypeError("expected a file name, got an empty string")
    return text
