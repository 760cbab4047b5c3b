"""Reading Yeetzhee input: the official format and the checks on one instance.

The official input is ``T``, then for each case a line ``N M K`` and ``K`` lines with the
group sizes ``A_1 <= ... <= A_K``. Tokens are read the way a judge reads them (any
whitespace separates them), but every error names the case and the line it was found on.
Tokens and numbers follow the rules of every command (:mod:`perfectplay.text.parse`).

>>> [(c.n, c.m, c.groups) for c in parse("2\\n3 6 2\\n1\\n2\\n5 2 1\\n5\\n")]
[(3, 6, (1, 2)), (5, 2, (5,))]
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from dataclasses import dataclass

from perfectplay.errors import InputError, short_repr
from perfectplay.text.parse import INT_LIMIT, int_token, iter_lines, quote_token, split_tokens

#: The contest's limits, enforced on the command line's official input.
MAX_CASES = 100
MIN_N, MAX_N = 2, 50
MIN_M, MAX_M = 2, 50


@dataclass(frozen=True)
class Instance:
    """One game: ``n`` dice with ``m`` faces must end as groups of sizes ``groups``.

    ``groups`` is sorted (non-decreasing); ``line`` is the input line of the case's header
    (0 for instances that did not come from text).
    """

    n: int
    m: int
    groups: tuple[int, ...]
    line: int = 0

    @property
    def k(self) -> int:
        """Number of groups (distinct values) in the target."""
        return len(self.groups)


def check_instance(n: int, m: int, groups: Iterable[int]) -> tuple[int, ...]:
    """Validate an instance given as Python values; return the sizes sorted.

    The Python API is more permissive than the contest: any ``n, m >= 1`` and the group
    sizes in any order. ``len(groups) > m`` is allowed (the target is then impossible and
    the expected number of rolls is infinite); memory is checked later, when building.

    >>> check_instance(5, 6, [3, 1, 1])
    (1, 1, 3)
    >>> check_instance(5, 6, [3, 1])
    Traceback (most recent call last):
    ...
    perfectplay.errors.InputError: the group sizes sum to 4, not n = 5
    """
    if isinstance(groups, str | bytes) or not isinstance(groups, Iterable):
        raise InputError(f"the group sizes are a list of integers, not {short_repr(groups)}")
    sizes = tuple(sorted(_as_int(a, "a group size") for a in groups))
    n, m = _as_int(n, "n"), _as_int(m, "m")
    if n < 1:
        raise InputError(f"n = {n} must be at least 1")
    if m < 1:
        raise InputError(f"m = {m} must be at least 1")
    if n > MAX_API or m > MAX_API:
        # Weights are int64 and n dice make at most n * m edges per grouping.
        raise InputError(
            f"n and m must be at most {MAX_API:,} (n = {short_repr(n)}, m = {short_repr(m)})"
        )
    if not sizes:
        raise InputError("there must be at least one group")
    if sizes[0] < 1:
        raise InputError(f"group size {sizes[0]} must be at least 1")
    if sum(sizes) != n:
        raise InputError(f"the group sizes sum to {sum(sizes)}, not n = {n}")
    return sizes


#: Largest n or m the Python API accepts (the contest's limit is 50).
MAX_API = 10**6


def _as_int(value: object, name: str) -> int:
    # operator.index accepts Python and numpy integers but not floats or strings.
    if isinstance(value, bool):
        raise InputError(f"{name} must be an integer, not {value!r}")
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise InputError(f"{name} must be an integer, not {short_repr(value)}") from None


class _Tokens:
    """Whitespace-separated tokens with their line numbers, read lazily (a bad token
    early in a huge input is reported without tokenising the rest)."""

    def __init__(self, text: str) -> None:
        self._lines = iter_lines(text)
        self._line_tokens: list[str] = []
        self._line = 0
        self.last_line = 1

    def peek(self) -> tuple[str, int] | None:
        """The next token and its line, not consumed; ``None`` at the end of the input."""
        while not self._line_tokens:
            nxt = next(self._lines, None)
            if nxt is None:
                return None
            self._line, line = nxt
            self.last_line = self._line
            self._line_tokens = split_tokens(line)[::-1]
        return self._line_tokens[-1], self._line

    def next_int(self, what: str, case: str) -> tuple[int, int]:
        item = self.peek()
        if item is None:
            raise InputError(f"{case}the input ends where {what} was expected", self.last_line)
        self._line_tokens.pop()
        token, line = item
        value = int_token(token)
        if value is None:
            raise InputError(f"{case}expected an integer {what}, got {quote_token(token)}", line)
        if abs(value) >= INT_LIMIT:
            shown = token if len(token) <= 20 else token[:20] + "..."
            raise InputError(f"{case}{what} = {shown} is out of range", line)
        return value, line


def _in_range(value: int, lo: int, hi: int, what: str, line: int, case: str = "") -> None:
    if not lo <= value <= hi:
        raise InputError(f"{case}{what} = {value} is out of range {lo}..{hi}", line)


def parse(text: str) -> list[Instance]:
    """Parse the official input (``T`` cases) into instances, within the contest's limits.

    Raises :class:`~perfectplay.errors.InputError` naming the case and the line for a
    non-integer token, a count out of range, sizes that decrease or do not sum to ``N``,
    input that ends early, or text after the last case.

    >>> parse("1\\n4 3 2\\n1\\n1\\n")
    Traceback (most recent call last):
    ...
    perfectplay.errors.InputError: line 4: case 1: the group sizes sum to 2, not N = 4
    """
    tokens = _Tokens(text)
    if tokens.peek() is None:
        raise InputError("empty input: expected the number of cases T", line=1)
    t, line = tokens.next_int("T", "")
    _in_range(t, 1, MAX_CASES, "T", line)
    cases: list[Instance] = []
    for index in range(1, t + 1):
        case = f"case {index}: "
        n, header = tokens.next_int("N", case)
        _in_range(n, MIN_N, MAX_N, "N", header, case)
        m, line = tokens.next_int("M", case)
        _in_range(m, MIN_M, MAX_M, "M", line, case)
        k, line = tokens.next_int("K", case)
        try:
            _in_range(k, 1, min(n, m), "K", line, case)
            sizes = _sizes(tokens, n, k, case)
        except InputError as exc:
            if line == header:
                raise
            # Tokens may span lines, so a header line short of a number takes K (or M)
            # from the next line and the case goes wrong later: say where it started.
            raise InputError(
                f"{exc.message} (the case's 'N M K' was read from lines {header} to {line}: "
                f"is a number missing on line {header}?)",
                exc.line,
            ) from None
        cases.append(Instance(n=n, m=m, groups=tuple(sizes), line=header))
    extra = tokens.peek()
    if extra is not None:
        token, line = extra
        raise InputError(f"unexpected {quote_token(token)} after the last case (T = {t})", line)
    return cases


def _sizes(tokens: _Tokens, n: int, k: int, case: str) -> list[int]:
    """The ``k`` group sizes of a case, non-decreasing and adding up to ``n``."""
    sizes: list[int] = []
    line = tokens.last_line
    for i in range(1, k + 1):
        a, line = tokens.next_int(f"A_{i}", case)
        _in_range(a, 1, n, f"A_{i}", line, case)
        if sizes and a < sizes[-1]:
            raise InputError(
                f"{case}A_{i} = {a} is smaller than A_{i - 1} = {sizes[-1]} "
                "(sizes must be non-decreasing)",
                line,
            )
        sizes.append(a)
    if sum(sizes) != n:
        raise InputError(f"{case}the group sizes sum to {sum(sizes)}, not N = {n}", line)
    return sizes
