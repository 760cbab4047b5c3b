"""Integers of any length as text, where the values are the user's own.

Python refuses to convert integers of more than 4300 digits to or from text, to bound the
quadratic cost of parsing untrusted numbers. A user's model may hold larger integers in its
states and moves; printing them, exporting them and reading the export back must keep them
whole. Gallery input is never read under :func:`long_ints` (its parsers cap numbers at 19
digits, see :func:`perfectplay.text.parse.int_token`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["long_ints"]


@contextmanager
def long_ints() -> Iterator[None]:
    """Within the block, integers of any length convert to and from text.

    The interpreter's limit is restored on leaving, also on an exception.

    >>> with long_ints():
    ...     len(repr(10**5000))
    5001
    >>> sys.get_int_max_str_digits() != 0
    True
    """
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(old)
