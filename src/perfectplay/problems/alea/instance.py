"""Reading Alea Iacta Est instances: the official input format and Python values.

The official format is whitespace-separated: ``d w``, then ``d`` dice of six symbols each,
then ``w`` words of ``d`` symbols each; symbols are ``A``-``Z`` and ``0``-``9``. Tokens are
read the way a contest judge reads them (any whitespace separates), but every error names
the line it was found on.

The fast path never loops over words in Python: the words are joined into one buffer and
checked as a ``uint8`` array. Line numbers are worked out only when something is wrong.

>>> inst = parse("2 1\\nAAAAAA\\nBBBBBB\\nAB\\n")
>>> inst.dice, inst.w, inst.word(0)
(('AAAAAA', 'BBBBBB'), 1, 'AB')
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from perfectplay.errors import InputError
from perfectplay.text.parse import (
    INT_LIMIT,
    WHITESPACE,
    int_token,
    quote_token,
    unify_line_ends,
)

FACES = 6
MAX_DICE = 6
MAX_WORDS = 200_000
#: The Python API accepts a few more dice than the contest when symmetry keeps them small;
#: the size check before building decides in the end.
API_MAX_DICE = 8
#: Longest count token the fast path reads as a number; anything else goes the slow path,
#: which applies the number rule of every command (:func:`perfectplay.text.parse.int_token`).
MAX_COUNT_DIGITS = 7

_VALID = np.zeros(256, dtype=np.bool_)
_VALID[ord("A") : ord("Z") + 1] = True
_VALID[ord("0") : ord("9") + 1] = True


@dataclass(frozen=True, eq=False)
class Instance:
    """Dice and dictionary of one game.

    Attributes:
        dice: one string of six face symbols per die, in input order.
        words: ``uint8[w, d]`` ASCII codes of the words (duplicates are harmless).
    """

    dice: tuple[str, ...]
    words: np.ndarray

    @property
    def d(self) -> int:
        """Number of dice."""
        return len(self.dice)

    @property
    def w(self) -> int:
        """Number of words."""
        return int(self.words.shape[0])

    def word(self, i: int) -> str:
        """Word ``i`` as a string."""
        return str(self.words[i].tobytes().decode("ascii"))

    @classmethod
    def from_strings(cls, dice: Sequence[str], words: Iterable[str]) -> Instance:
        """Validate Python strings (errors name the die or word, there are no lines).

        >>> Instance.from_strings(["ABCDEF"], ["A", "F"]).w
        2
        """
        if isinstance(dice, str):
            raise InputError("dice must be a sequence of strings, one per die, not one string")
        if not isinstance(dice, Iterable):
            raise InputError(f"dice must be a sequence of strings, one per die, not {dice!r:.40}")
        dice = tuple(dice)
        if not 1 <= len(dice) <= API_MAX_DICE:
            raise InputError(
                f"the number of dice must be from 1 to {API_MAX_DICE}, got {len(dice)}"
            )
        for i, die in enumerate(dice):
            if not isinstance(die, str):
                raise InputError(f"die {i + 1} must be a string, got {type(die).__name__}")
            problem = _die_problem(die.encode("utf-8"))
            if problem:
                raise InputError(f"die {i + 1}: {problem}")
        if isinstance(words, str):
            raise InputError("words must be an iterable of strings, not one string")
        if not isinstance(words, Iterable):
            raise InputError(f"words must be an iterable of strings, not {words!r:.40}")
        word_list = list(words)
        for i, word in enumerate(word_list):
            if not isinstance(word, str):
                raise InputError(f"word {i + 1} must be a string, got {type(word).__name__}")
        encoded = [word.encode("utf-8") for word in word_list]
        bad, problem = _words_problem(encoded, len(dice))
        if problem:
            raise InputError(f"word {bad + 1}: {problem}")
        return cls(dice, _words_array(encoded, len(dice)))


def _show(token: bytes, limit: int = 20) -> str:
    """A token for a message: quoted, and cut short when long (a line may be megabytes)."""
    return quote_token(token[: limit + 1].decode("ascii", "replace"), limit)


def _symbol_problem(token: bytes) -> str | None:
    bad = np.flatnonzero(~_VALID[np.frombuffer(token, dtype=np.uint8)])
    if bad.size == 0:
        return None
    sym = token[bad[0] : bad[0] + 1].decode("ascii", "replace")
    return f"symbol {sym!r} is not an uppercase letter A-Z or a digit 0-9"


def _die_problem(token: bytes) -> str | None:
    if len(token) != FACES:
        return (
            f"{_show(token)} must have exactly {FACES} symbols (one per face), it has {len(token)}"
        )
    problem = _symbol_problem(token)
    return f"{_show(token)}: {problem}" if problem else None


def _words_problem(words: list[bytes], d: int) -> tuple[int, str | None]:
    """Index and description of the first malformed word, or ``(-1, None)``.

    Lengths are checked with one pass of ``len`` and the symbols as one array, so a valid
    dictionary costs no per-word Python work beyond that.
    """
    if not words:
        return -1, None
    lengths = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
    wrong = np.flatnonzero(lengths != d)
    if wrong.size:
        i = int(wrong[0])
        plural = "s" if d > 1 else ""
        return i, (
            f"{_show(words[i])} must have {d} symbol{plural} (one per die), it has {len(words[i])}"
        )
    arr = np.frombuffer(b"".join(words), dtype=np.uint8).reshape(len(words), d)
    bad_rows = np.flatnonzero(~_VALID[arr].all(axis=1))
    if bad_rows.size:
        i = int(bad_rows[0])
        return i, f"{_show(words[i])}: {_symbol_problem(words[i])}"
    return -1, None


def _words_array(words: list[bytes], d: int) -> np.ndarray:
    if not words:
        return np.zeros((0, d), dtype=np.uint8)
    return np.frombuffer(b"".join(words), dtype=np.uint8).reshape(len(words), d)


#: A token: a run of bytes other than the white space of every command
#: (:data:`perfectplay.text.parse.WHITESPACE`, the bytes ``bytes.split`` separates on).
_TOKEN = re.compile(b"[^" + re.escape(WHITESPACE.encode("ascii")) + b"]+")


def _line_at(data: bytes, pos: int) -> int:
    """1-based line of byte ``pos`` (errors only)."""
    return data.count(b"\n", 0, pos) + 1


def _count(token: bytes, name: str, what: str, lo: int, hi: int) -> int:
    value = int_token(token)  # the number rule of every command
    if value is None:
        raise ValueError(
            f"{name} ({what}) must be an integer from {lo} to {hi}, got {_show(token)}"
        )
    if abs(value) >= INT_LIMIT:
        raise ValueError(f"{name} = {_show(token)} is out of range ({what}: {lo} to {hi})")
    if not lo <= value <= hi:
        raise ValueError(f"{name} = {value} is out of range ({what}: {lo} to {hi})")
    return value


def _parse_lines(data: bytes) -> Instance | None:
    """The common case, one item a line with ``\\n`` endings, as one array; else ``None``.

    Any surprise (other whitespace, a bad symbol, wrong counts) returns ``None`` and the
    token-by-token path below finds and names the problem.
    """
    head = data.split(b"\n", MAX_DICE + 1)
    first = head[0].split()
    if len(first) != 2 or not all(t.isdigit() and len(t) <= MAX_COUNT_DIGITS for t in first):
        return None
    d, w = int(first[0]), int(first[1])
    if not (1 <= d <= MAX_DICE and 1 <= w <= MAX_WORDS) or len(head) < d + 2:
        return None
    dice = head[1 : d + 1]
    if any(_die_problem(die) for die in dice):
        return None
    body = data[sum(len(line) + 1 for line in head[: d + 1]) :].rstrip(b"\n")
    if len(body) != w * (d + 1) - 1:
        return None
    rows = np.frombuffer(body + b"\n", dtype=np.uint8).reshape(w, d + 1)
    if not (rows[:, d] == ord("\n")).all() or not _VALID[rows[:, :d]].all():
        return None
    return Instance(tuple(die.decode("ascii") for die in dice), np.ascontiguousarray(rows[:, :d]))


def parse(text: str | bytes) -> Instance:
    """Parse the official input format; raise :class:`InputError` with a line number.

    >>> parse("1 2\\nABCSCC\\nC\\nA\\n").dice
    ('ABCSCC',)
    >>> parse("1 1\\nABCDEF\\nAB\\n")
    Traceback (most recent call last):
    ...
    perfectplay.errors.InputError: line 3: word 1: 'AB' must have 1 symbol (one per die), it has 2
    """
    data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    # One line-numbering rule for every command; after it only \n ends a line.
    data = unify_line_ends(data)
    fast = _parse_lines(data)
    if fast is not None:
        return fast
    # Tokens are read lazily: a bad one early in a huge input is reported at once.
    tokens = _TOKEN.finditer(data)
    last = 0  # end of the last token read (a missing token is on the line after it)

    def take() -> tuple[bytes, int] | None:
        nonlocal last
        match = next(tokens, None)
        if match is None:
            return None
        last = match.end()
        return match.group(), match.start()

    def ends(message: str) -> InputError:
        line = _line_at(data, last) + 1 if last else 1
        return InputError(message, line=line)

    first = take()
    if first is None:
        raise InputError("empty input: expected 'd w' (number of dice, number of words)", line=1)
    try:
        d = _count(first[0], "d", "number of dice", 1, MAX_DICE)
    except ValueError as exc:
        raise InputError(str(exc), line=_line_at(data, first[1])) from None
    second = take()
    if second is None:
        raise ends(f"expected the number of words w after d = {d}")
    try:
        w = _count(second[0], "w", "number of words", 1, MAX_WORDS)
    except ValueError as exc:
        raise InputError(str(exc), line=_line_at(data, second[1])) from None

    w_line = _line_at(data, second[1])
    dice_tokens: list[bytes] = []
    while len(dice_tokens) < d and (item := take()) is not None:
        problem = _die_problem(item[0])
        if problem:
            line = _line_at(data, item[1])
            if line == w_line:  # tokens may share a line, but this one is more likely a typo
                problem += " (it follows d and w on their line; the dice start on the next line)"
            raise InputError(f"die {len(dice_tokens) + 1}: {problem}", line=line)
        dice_tokens.append(item[0])
    if len(dice_tokens) < d:
        raise ends(f"expected {d} dice, the input ends after {len(dice_tokens)}")

    words: list[bytes] = []
    starts: list[int] = []
    while len(words) < w and (item := take()) is not None:
        words.append(item[0])
        starts.append(item[1])
    bad, problem = _words_problem(words, d)
    if problem:
        raise InputError(f"word {bad + 1}: {problem}", line=_line_at(data, starts[bad]))
    if len(words) < w:
        raise ends(f"expected {w} words, the input ends after {len(words)}")
    extra = take()
    if extra is not None:
        raise InputError(
            f"unexpected {_show(extra[0])} after the last word (the first line announced w = {w})",
            line=_line_at(data, extra[1]),
        )
    dice = tuple(t.decode("ascii") for t in dice_tokens)
    return Instance(dice, _words_array(words, d))
