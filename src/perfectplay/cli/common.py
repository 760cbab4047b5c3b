"""Helpers shared by every command: reading input, mapping errors to exit codes.

A command module does::

    def main(argv):
        parser = make_parser("alea", description, EXAMPLES)
        ...
        return run(lambda: _main(args), source_name)

and raises :class:`~perfectplay.errors.InputError` (with a line number) on bad input;
:func:`run` prints ``perfectplay: FILE:LINE: message`` on stderr and returns 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import AnyStr

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


def quote_token(token: str, limit: int = 20) -> str:
    """A token of the input for a message: quoted, and cut at ``limit`` characters.

    A token may be a whole megabyte line; a message echoes only its start.

    >>> quote_token("ABC"), quote_token("9" * 5000, limit=5)
    ("'ABC'", "'99999...'")
    """
    return repr(token) if len(token) <= limit else repr(token[:limit] + "...")


def int_arg(text: str) -> int:
    """An argparse ``type`` for an integer option: at most 18 digits, a short message.

    (argparse's own ``type=int`` echoes the whole argument, and ``int`` refuses strings
    of more than 4300 digits with a message about Python.)

    >>> int_arg("12"), int_arg("-3")
    (12, -3)
    """
    t = text.strip()
    digits = t[1:] if t[:1] in ("+", "-") else t
    if not (digits.isascii() and digits.isdigit()):
        raise argparse.ArgumentTypeError(f"expected an integer, got {quote_token(text)}")
    digits = digits.lstrip("0") or "0"
    if len(digits) > 18:
        raise argparse.ArgumentTypeError(f"{quote_token(text)} is out of range")
    return -int(digits) if t[0] == "-" else int(digits)


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


def run(body: Callable[[], int | None], name: str) -> int:
    """Run ``body``; turn a :class:`PerfectplayError` into one stderr line and status 2."""
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
