"""What every command of the package shares: its arguments, its input, its error rules.

The ``perfectplay`` command line (:mod:`perfectplay.cli`) and the site's command
(:mod:`perfectplay.site.cli`) both run through these, so they read input and report
errors the same way. A command does::

    def main(argv):
        parser = make_parser("alea", description, EXAMPLES)
        ...
        return run(lambda: _main(args), source_name)

and raises :class:`~perfectplay.errors.InputError` (with a line number) on bad input;
:func:`run` prints ``perfectplay: FILE:LINE: message`` on stderr and returns 2.

Exit statuses: 0 success, 1 the output or a file asked for (``--save``, ``--export``,
``--plot``) could not be written (a full disk, an unwritable folder, a closed terminal;
see :func:`guarded` and :class:`~perfectplay.errors.WriteError`), 2 bad input, a bad
option or a refused computation, 130 interrupted. A reader that closes the pipe early
(``| head -1``) is not an error. Only the standard library is imported.

>>> parser = make_parser("demo", "A demo command.")
>>> isinstance(parser, ArgumentParser), parser.prog
(True, 'perfectplay demo')
>>> source_name(None), source_name("-"), source_name("cases.in")
('<stdin>', '<stdin>', 'cases.in')
>>> read_input("no/such/file")
Traceback (most recent call last):
...
perfectplay.errors.InputError: no such file
>>> def body():
...     raise InputError("expected a number", line=3)
>>> run(body, "cases.in")  # and on stderr: perfectplay: cases.in:3: expected a number
2
>>> guarded(lambda: print("answer"))
answer
0
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from collections.abc import Callable
from typing import Any, cast

from perfectplay._util.interrupts import deferrable
from perfectplay.errors import InputError, OptionError, PerfectplayError, WriteError
from perfectplay.text.parse import unify_line_ends

__all__ = [
    "DEFAULT_MAX_INPUT_BYTES",
    "STDIN_NAME",
    "ArgumentParser",
    "guarded",
    "make_parser",
    "read_input",
    "run",
    "source_name",
    "stdin_is_terminal",
]

STDIN_NAME = "<stdin>"
DEFAULT_MAX_INPUT_BYTES = 64 << 20


class ArgumentParser(argparse.ArgumentParser):
    """argparse that exits with status 2 and a single line (argparse's own status is 2 too)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"perfectplay {self.prog.removeprefix('perfectplay ')}: {message}\n")


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


def stdin_is_terminal() -> bool:
    """Whether standard input is a terminal (False when it is closed: ``<&-``).

    >>> import io, sys
    >>> saved, sys.stdin = sys.stdin, io.StringIO("1 2\\n")
    >>> stdin_is_terminal()
    False
    >>> sys.stdin = saved
    """
    return sys.stdin is not None and sys.stdin.isatty()


def read_input(path: str | None, max_bytes: int = DEFAULT_MAX_INPUT_BYTES) -> str:
    """Read the whole input from ``path`` (stdin for ``None`` or ``-``) as text.

    Raises :class:`InputError` for a missing file, undecodable bytes or input larger than
    ``max_bytes`` (read is bounded, so a huge stream cannot exhaust memory).
    """
    try:
        if path in (None, "-"):
            if sys.stdin is None:  # started with standard input closed (`<&-`)
                raise InputError("standard input is closed: give FILE or pipe the input")
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
    # A byte-order mark that an editor put first carries nothing: read past it.
    data = data.removeprefix(b"\xef\xbb\xbf")
    try:
        return data.decode("ascii")
    except UnicodeDecodeError as exc:
        line = unify_line_ends(data[: exc.start]).count(b"\n") + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError(
            f"non-ASCII byte 0x{data[exc.start]:02x} in input (column {column}); the input "
            "is plain ASCII",
            line=line,
        ) from None


class _OutputError(Exception):
    """Writing the command's answer to standard output failed (not a closed pipe)."""

    def __init__(self, exc: OSError) -> None:
        super().__init__(exc.strerror or str(exc))


class _ClosedStdout:
    """Standard output of a process started with it closed (``>&-``), where Python sets
    ``sys.stdout`` to ``None``: writing fails as a write to a closed descriptor does."""

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "standard output is closed")

    def flush(self) -> None:
        pass  # nothing was written

    def isatty(self) -> bool:
        return False


class _GuardedStdout:
    """``sys.stdout`` whose write errors are told apart from every other ``OSError``.

    A command may also fail to read a file or write an export: only a failure of
    standard output itself becomes "cannot write the output".
    """

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return cast(int, self._stream.write(text))
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


class Terminated(KeyboardInterrupt):
    """A ``TERM`` signal, raised as an interrupt: the same clean-up runs as for Ctrl-C
    (temporary files removed), then status 143."""


@deferrable  # compiled kernels hold it until they return, as they hold Ctrl-C
def _terminate(signum: int, frame: Any) -> None:
    raise Terminated


def stop_on_term() -> None:
    """Make ``TERM`` (``kill``, ``timeout``) stop the command as Ctrl-C does, where the
    signal is still the default (it killed the process before any clean-up: a solve left
    its temporary work directory behind)."""
    import signal

    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _terminate)


def guarded(body: Callable[..., int | None], *args: Any) -> int:
    """Run a whole command, ``body(*args)``, with standard output guarded; return the status.

    A write error on standard output, raised while the command prints or by the final
    flush here (before the interpreter's own flush at exit could raise it), becomes one
    line ``perfectplay: cannot write the output: REASON`` and status 1; a closed pipe
    stays quiet. ``SystemExit`` (argparse's ``--help`` and usage errors) still
    propagates, after the same flush (as ``SystemExit(1)`` when that flush fails).
    """
    if sys.stderr is None:
        # Started with standard error closed (`2>&-`): print(..., file=sys.stderr) would
        # then write errors and notes to standard output, into the answer.
        sys.stderr = open(os.devnull, "w")  # for the rest of the process
    saved = sys.stdout
    if not isinstance(sys.stdout, _GuardedStdout):
        sys.stdout = _GuardedStdout(_ClosedStdout() if sys.stdout is None else sys.stdout)
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
    """Run ``body``; turn a :class:`PerfectplayError` (or a ``MemoryError``) into one
    stderr line and status 2.

    Standard output is guarded and flushed as :func:`guarded` says.
    """
    return guarded(_report_errors, body, name)


def _report_errors(body: Callable[[], int | None], name: str) -> int:
    try:
        return int(body() or 0)
    except WriteError as exc:  # a file asked for was not written: not the input's fault
        print(f"perfectplay: {exc.message}", file=sys.stderr)
        return 1
    except OptionError as exc:  # the options' fault, not the input's: no file named
        print(f"perfectplay: {exc.message}", file=sys.stderr)
        return 2
    except InputError as exc:
        where = name if exc.line is None else f"{name}:{exc.line}"
        print(f"perfectplay: {where}: {exc.message}", file=sys.stderr)
        return 2
    except PerfectplayError as exc:
        print(f"perfectplay: {exc}", file=sys.stderr)
        return 2
    except MemoryError as exc:
        # An allocation the estimates did not foresee failed (numba's kernels raise it
        # too): a refused computation, in one line.
        why = str(exc) or "an allocation failed"
        print(f"perfectplay: out of memory ({why})", file=sys.stderr)
        return 2
    except Terminated:
        print("perfectplay: terminated", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("perfectplay: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
