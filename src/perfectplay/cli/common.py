"""Helpers shared by every command: reading input, mapping errors to exit codes.

A command module does::

    def main(argv):
        parser = make_parser("alea", description, EXAMPLES)
        ...
        return run(lambda: _main(args), source_name)

and raises :class:`~perfectplay.errors.InputError` (with a line number) on bad input;
:func:`run` prints ``perfectplay: FILE:LINE: message`` on stderr and returns 2.

The rules every command's input follows are written here once, and every parser calls
them: :func:`iter_lines` (what ends a line), :func:`split_tokens` / :func:`iter_tokens`
(what separates tokens) and :func:`int_token` (what spells an integer).

Exit statuses: 0 success, 1 the output could not be written (a full disk, a closed
terminal; see :func:`guarded`), 2 bad input, a bad option or a refused computation,
130 interrupted. A reader that closes the pipe early (``| head -1``) is not an error.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Iterator
from typing import Any, AnyStr

from perfectplay.errors import InputError, PerfectplayError

STDIN_NAME = "<stdin>"
DEFAULT_MAX_INPUT_BYTES = 64 << 20


class ArgumentParser(argparse.ArgumentParser):
    """argparse that exits with status 2 and a single line (argparse's own status is 2 too)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"perfectplay {self.prog.removeprefix('perfectplay ')}: {message}\n")


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


def int_arg(text: str) -> int:
    """An argparse ``type`` for an integer option, under the rule of :func:`int_token`.

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


def path_arg(text: str) -> str:
    """An argparse ``type`` for a file name option: the empty name is refused, not ignored.

    >>> path_arg("table.npz")
    'table.npz'
    """
    if not text:
        raise argparse.ArgumentTypeError("expected a file name, got an empty string")
    return text


def make_parser(command: str, description: str, examples: str = "") -> ArgumentParser:
    """An argument parser for ``perfectplay COMMAND`` with an examples epilog."""
    return ArgumentParser(
        prog=f"perfectplay {command}",
        description=description,
        epilog=examples,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def source_name(path: str | None) -> str:
    return STDIN_NAME if path in (None, "-") else str(path)


def read_input(path: str | None, max_bytes: int = DEFAULT_MAX_INPUT_BYTES) -> str:
    """Read the whole input from ``path`` (stdin for ``None`` or ``-``) as text.

    Raises :class:`InputError` for a missing file, undecodable bytes or input larger than
    ``max_bytes`` (read is bounded, so a huge stream cannot exhaust memory).
    """
    try:
        if path in (None, "-"):
            data = sys.stdin.buffer.read(max_bytes + 1)
        else:
            with open(path, "rb") as fh:
                data = fh.read(max_bytes + 1)
    except FileNotFoundError:
        raise InputError("no such file") from None
    except IsADirectoryError:
        raise InputError("is a directory, not a file") from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}") from None
    if len(data) > max_bytes:
        raise InputError(f"input larger than the limit of {max_bytes:,} bytes")
    try:
        return data.decode("ascii")
    except UnicodeDecodeError as exc:
        line = unify_line_ends(data[: exc.start]).count(b"\n") + 1
        raise InputError("non-ASCII byte in input", line=line) from None


class _OutputError(Exception):
    """Writing the command's answer to standard output failed (not a closed pipe)."""

    def __init__(self, exc: OSError) -> None:
        super().__init__(exc.strerror or str(exc))


class _GuardedStdout:
    """``sys.stdout`` whose write errors are told apart from every other ``OSError``.

    A command may also fail to read a file or write an export: only a failure of
    standard output itself becomes "cannot write the output".
    """

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _OutputError(exc) from None

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _OutputError(exc) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _silence_stdout() -> None:
    """Point file descriptor 1 at ``/dev/null``, so the interpreter's last flush of the
    unwritten answer at exit succeeds instead of printing "Exception ignored"."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.__stdout__.fileno())  # type: ignore[union-attr]
        os.close(devnull)
    except (OSError, AttributeError, ValueError):  # no real stdout (embedded, captured)
        pass


def _write_failed(exc: _OutputError) -> int:
    _silence_stdout()
    print(f"perfectplay: cannot write the output: {exc}", file=sys.stderr)
    return 1


def guarded(body: Callable[..., int | None], *args: Any) -> int:
    """Run a whole command, ``body(*args)``, with standard output guarded; return the status.

    A write error on standard output, raised while the command prints or by the final
    flush here (before the interpreter's own flush at exit could raise it), becomes one
    line ``perfectplay: cannot write the output: REASON`` and status 1; a closed pipe
    stays quiet. ``SystemExit`` (argparse's ``--help`` and usage errors) still
    propagates, after the same flush (as ``SystemExit(1)`` when that flush fails).
    """
    saved = sys.stdout
    if not isinstance(sys.stdout, _GuardedStdout):
        sys.stdout = _GuardedStdout(sys.stdout)
    exit_: SystemExit | None = None
    try:
        try:
            status = int(body(*args) or 0)
        except SystemExit as exc:
            # argparse's --help and usage errors: flush what was printed, keep the exit.
            exit_ = exc
            sys.stdout.flush()
            raise
        sys.stdout.flush()
        return status
    except _OutputError as exc:
        status = _write_failed(exc)
        if exit_ is not None:
            raise SystemExit(status) from None
        return status
    except BrokenPipeError:
        _silence_stdout()
        if exit_ is not None:
            raise exit_ from None
        return 0
    finally:
        sys.stdout = saved


def run(body: Callable[[], int | None], name: str) -> int:
    """Run ``body``; turn a :class:`PerfectplayError` into one stderr line and status 2.

    Standard output is guarded and flushed as :func:`guarded` says.
    """
    return guarded(_report_errors, body, name)


def _report_errors(body: Callable[[], int | None], name: str) -> int:
    try:
        return int(body() or 0)
    except InputError as exc:
        where = name if exc.line is None else f"{name}:{exc.line}"
        print(f"perfectplay: {where}: {exc.message}", file=sys.stderr)
        return 2
    except PerfectplayError as exc:
        print(f"perfectplay: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("perfectplay: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
