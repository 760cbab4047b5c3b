"""The rules every input follows: what ends a line, what separates tokens, what spells
an integer.

Every parser of the package (the gallery problems' ``instance.py``, the command line's
integer options) calls these, so two inputs are read the same way whatever reads them:
:func:`iter_lines` (what ends a line), :func:`split_tokens` / :func:`iter_tokens` (what
separates tokens) and :func:`int_token` (what spells an integer), with
:func:`int_in_range` and :func:`quote_token` for the messages of
:class:`~perfectplay.errors.InputError`. Only the standard library is imported.

>>> [token for token, line in iter_tokens("3\\n 1 +02\\n")], int_in_range("+07", "N", 1, 50)
(['3', '1', '+02'], 7)
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import AnyStr

from perfectplay.errors import InputError

__all__ = [
    "INT_DIGITS",
    "INT_LIMIT",
    "WHITESPACE",
    "input_lines",
    "int_in_range",
    "int_token",
    "iter_lines",
    "iter_tokens",
    "quote_token",
    "split_tokens",
    "unify_line_ends",
]


def unify_line_ends(text: AnyStr) -> AnyStr:
    r"""``text`` with every line end written ``\n``: the rule every command numbers lines by.

    A line ends at ``\n``, ``\r\n`` or a lone ``\r`` (old Mac files), and nowhere else:
    ``str.splitlines`` would also end lines at form feeds and other separators, so two
    commands would number the same file differently. Text without ``\r`` is returned as
    it is, so the common case costs one scan.

    >>> unify_line_ends("a\r\nb\rc\x0cd\n"), unify_line_ends(b"x\ry")
    ('a\nb\nc\x0cd\n', b'x\ny')
    """
    cr, lf = ("\r", "\n") if isinstance(text, str) else (b"\r", b"\n")
    if cr not in text:
        return text
    return text.replace(cr + lf, lf).replace(cr, lf)


def input_lines(text: str) -> list[str]:
    r"""The lines of an input text, for line numbers in messages (see :func:`unify_line_ends`).

    >>> input_lines("a\r\nb\rc\x0cd\n")
    ['a', 'b', 'c\x0cd']
    """
    lines = unify_line_ends(text).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def iter_lines(text: str) -> Iterator[tuple[int, str]]:
    r"""``(number, line)`` for each line of ``text``, 1-based, one at a time.

    Lines end as :func:`unify_line_ends` says. Lazy, so a parser that stops at a bad
    line has used memory for the lines it read, not a list of every line of the input.

    >>> list(iter_lines("a\r\nb\rc\x0cd\n"))
    [(1, 'a'), (2, 'b'), (3, 'c\x0cd')]
    """
    text = unify_line_ends(text)
    start, number, end = 0, 1, len(text)
    while start < end:
        stop = text.find("\n", start)
        if stop < 0:
            stop = end
        yield number, text[start:stop]
        start, number = stop + 1, number + 1


#: The white space that separates tokens: space, tab, vertical tab and form feed (with
#: the line ends).
WHITESPACE = " \t\n\r\x0b\x0c"
_NOT_WHITESPACE = re.compile(f"[^{re.escape(WHITESPACE)}]+")
_OTHER_SPACE = re.compile("[\x1c-\x1f\x85\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")


def split_tokens(line: str) -> list[str]:
    r"""The tokens of one line: runs of characters other than :data:`WHITESPACE`.

    These are the bytes C's ``isspace`` and Python's ``bytes.split`` separate on. Python's
    ``str.split`` also splits on the ASCII separators ``\x1c``-``\x1f``; here they, like
    every other control byte, are part of a token (which then is not a number).

    >>> split_tokens(" 1\t+2\x0b3\x0c4 "), split_tokens("5\x1f6")
    (['1', '+2', '3', '4'], ['5\x1f6'])
    """
    if _OTHER_SPACE.search(line) is None:
        return line.split()  # same result, faster
    return _NOT_WHITESPACE.findall(line)


def iter_tokens(text: str) -> Iterator[tuple[str, int]]:
    r"""``(token, line number)`` for each token of ``text``, lazily (see :func:`iter_lines`).

    >>> list(iter_tokens("3\n\n+1 02\n"))
    [('3', 1), ('+1', 3), ('02', 3)]
    """
    for number, line in iter_lines(text):
        for token in split_tokens(line):
            yield token, number


#: Most digits a number token may have, leading zeros included (enough for 10**18).
INT_DIGITS = 19
#: The magnitude :func:`int_token` gives a token of more than :data:`INT_DIGITS` digits:
#: above every limit any command accepts.
INT_LIMIT = 10**INT_DIGITS
_INT_TOKEN = re.compile("[+-]?[0-9]+")


def int_token(token: str | bytes) -> int | None:
    """The integer ``token`` spells under the one number rule, or ``None`` if it is none.

    The rule, for every command's input and every integer option: an optional sign ``+``
    or ``-``, then one or more ASCII digits ``0``-``9``, and nothing else (no spaces, no
    ``_``, no other scripts' digits). Leading zeros are allowed; but a token of more than
    :data:`INT_DIGITS` (19) digits, leading zeros included, is out of range whatever its
    value: it comes back as ``±INT_LIMIT``, which every caller's range check refuses, so
    no token costs more than 19 digits of conversion (``int`` refuses over 4300 digits,
    with a message about Python).

    >>> [int_token(t) for t in ("7", "+007", "-0", "00", b"42", "1_0", "", "+", "٣", " 1")]
    [7, 7, 0, 0, 42, None, None, None, None, None]
    >>> int_token("9" * 5000) == INT_LIMIT, int_token("-" + "0" * 19 + "5") == -INT_LIMIT
    (True, True)
    >>> int_token("0" * 18 + "5"), int_token("1" + "0" * 18) == 10**18
    (5, True)
    """
    if isinstance(token, bytes):
        token = token.decode("ascii", "replace")
    if _INT_TOKEN.fullmatch(token) is None:
        return None
    negative = token[0] == "-"
    digits = token.lstrip("+-")
    value = INT_LIMIT if len(digits) > INT_DIGITS else int(digits)
    return -value if negative else value


def int_in_range(token: str, what: str, lo: int, hi: int, line: int | None = None) -> int:
    """The integer ``token`` spells (the one number rule, :func:`int_token`), which must lie
    in ``lo..hi``; otherwise :class:`~perfectplay.errors.InputError` naming ``what`` and
    the line.

    >>> int_in_range("+07", "N", 1, 50)
    7
    >>> int_in_range("51", "N", 1, 50, line=3)
    Traceback (most recent call last):
    ...
    perfectplay.errors.InputError: line 3: N must be from 1 to 50, got 51
    """
    value = int_token(token)
    if value is None:
        raise InputError(f"{what} must be an integer, got {quote_token(token)}", line=line)
    if not lo <= value <= hi:
        shown = token if len(token) <= 20 else token[:20] + "..."
        raise InputError(f"{what} must be from {lo} to {hi}, got {shown}", line=line)
    return value


def quote_token(token: str, limit: int = 20) -> str:
    """A token of the input for a message: quoted, and cut at ``limit`` characters.

    A token may be a whole megabyte line; a message echoes only its start.

    >>> quote_token("ABC"), quote_token("9" * 5000, limit=5)
    ("'ABC'", "'99999...'")
    """
    return repr(token) if len(token) <= limit else repr(token[:limit] + "...")
