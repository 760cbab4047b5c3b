"""Running a solution contained: a fresh working directory, a time limit, an output limit.

A solution of someone's archive is a program the build did not write. Each run gets an
empty temporary working directory (removed after), its own process group (so a program
that forks is stopped whole), a wall-clock limit and a limit on what it may print:
standard output is read as it comes and the group is killed as soon as either limit is
passed, so a program printing without end costs at most the limit in memory. Standard
error keeps only its last lines (what an error message needs).
"""

from __future__ import annotations

import os
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Finished", "describe_size", "run_contained"]

STDERR_TAIL = 64 << 10
_CHUNK = 1 << 16


@dataclass(frozen=True)
class Finished:
    """How a contained run ended. ``returncode`` is negative for a signal (as in
    :mod:`subprocess`); ``timed_out`` and ``overflow`` say which limit stopped it."""

    stdout: bytes
    stderr: bytes
    returncode: int
    seconds: float
    timed_out: bool = False
    overflow: bool = False

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and not self.overflow

    def problem(self, time_limit: float, output_limit: int) -> str | None:
        """What went wrong, in a few words; None for a clean exit.

        >>> Finished(b"", b"boom\\n", 3, 0.1).problem(1, 10)
        'exited with status 3: boom'
        >>> Finished(b"", b"", -9, 2.0, timed_out=True).problem(1.5, 10)
        'ran longer than 1.5 s'
        """
        if self.timed_out:
            return f"ran longer than {time_limit:g} s"
        if self.overflow:
            return f"printed more than {describe_size(output_limit)}"
        if self.returncode < 0:
            try:
                name = signal.Signals(-self.returncode).name
            except ValueError:
                name = f"signal {-self.returncode}"
            return f"was killed by {name}"
        if self.returncode != 0:
            lines = self.stderr.decode("utf-8", "replace").strip().splitlines()
            return f"exited with status {self.returncode}: {lines[-1] if lines else 'no message'}"
        return None


def describe_size(n: int) -> str:
    """``n`` bytes in the largest unit that divides it.

    >>> describe_size(8 << 20), describe_size(1000), describe_size(3 << 10)
    ('8 MiB', '1000 bytes', '3 KiB')
    """
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} bytes"


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _remove(folder: str) -> None:
    """Remove a run's folder, even where the program took away write permission."""
    for path, dirs, _ in os.walk(folder):
        for name in dirs:
            try:
                os.chmod(os.path.join(path, name), 0o700)
            except OSError:
                pass
    shutil.rmtree(folder, ignore_errors=True)


def run_contained(
    argv: Sequence[str],
    stdin: bytes,
    *,
    time_limit: float,
    output_limit: int,
    env: dict[str, str] | None = None,
) -> Finished:
    """Run ``argv`` with ``stdin`` in a fresh temporary directory under both limits.

    Raises :class:`FileNotFoundError` / :class:`PermissionError` when ``argv[0]`` cannot be
    started. The directory and every process of the run's group are gone on return.

    >>> import sys
    >>> run = run_contained([sys.executable, "-c", "print(input()[::-1])"], b"abc\\n",
    ...                     time_limit=30, output_limit=100)
    >>> run.ok, run.stdout
    (True, b'cba\\n')
    >>> run_contained([sys.executable, "-c", "print('x' * 10**6)"], b"",
    ...               time_limit=30, output_limit=1000).overflow
    True
    """
    folder = tempfile.mkdtemp(prefix="perfectplay-run-")
    try:
        with tempfile.TemporaryFile() as feed:
            feed.write(stdin)
            feed.seek(0)
            start = time.perf_counter()
            proc = subprocess.Popen(
                list(argv),
                stdin=feed,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=folder,
                env=env,
                start_new_session=True,  # its own process group: killed whole
            )
            try:
                return _collect(proc, start, time_limit, output_limit)
            finally:
                _kill_group(proc)  # what it left running in the background
                proc.wait()
    finally:
        _remove(folder)


def _collect(
    proc: subprocess.Popen[bytes], start: float, time_limit: float, output_limit: int
) -> Finished:
    assert proc.stdout is not None and proc.stderr is not None
    deadline = start + time_limit
    out = bytearray()
    err = bytearray()
    timed_out = overflow = False
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ, out)
        selector.register(proc.stderr, selectors.EVENT_READ, err)
        while selector.get_map():
            left = deadline - time.perf_counter()
            if left <= 0:
                timed_out = True
                break
            for key, _ in selector.select(timeout=left):
                chunk = os.read(key.fd, _CHUNK)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                buffer: bytearray = key.data
                buffer += chunk
                if buffer is err and len(err) > STDERR_TAIL:
                    del err[: len(err) - STDERR_TAIL]
            if len(out) > output_limit:
                overflow = True
                break
    if timed_out or overflow:
        _kill_group(proc)
    else:
        try:
            proc.wait(timeout=max(0.0, deadline - time.perf_counter()))
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(proc)
    returncode = proc.wait()
    seconds = time.perf_counter() - start
    proc.stdout.close()
    proc.stderr.close()
    return Finished(bytes(out), bytes(err), returncode, seconds, timed_out, overflow)
