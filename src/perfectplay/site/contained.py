"""Running a solution contained: a fresh working directory, a time limit, an output limit.

A solution of someone's archive is a program the build did not write. Each run gets an
empty temporary working directory (removed after), its own process group (so a program
that forks is stopped whole), the sandbox of its :class:`~perfectplay.site.sandbox.Jail`
when given one, a wall-clock limit and a limit on what it may print:
standard output is read as it comes and the group is killed as soon as either limit is
passed, so a program printing without end costs at most the limit in memory. Standard
error keeps only its last lines (what an error message needs).

Every run in progress is known (:func:`stop_all`), so an interrupted build kills them all
at once instead of waiting for their time limits.
"""

from __future__ import annotations

import dataclasses
import math
import os
import selectors
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

from perfectplay.site.sandbox import ENVIRONMENT, Jail, Limits

__all__ = [
    "Finished",
    "Stopped",
    "describe_size",
    "resume",
    "run_contained",
    "run_interactive",
    "stop_all",
]

STDERR_TAIL = 64 << 10
#: What a program that could not allocate memory prints as it stops (C++, Python, Java and
#: the JVM, Rust, Go, C's perror, Haskell's runtime).
OUT_OF_MEMORY = (
    b"std::bad_alloc",
    b"MemoryError",
    b"java.lang.OutOfMemoryError",
    b"memory allocation of ",
    b"runtime: out of memory",
    b"fatal error: out of memory",
    b"Cannot allocate memory",
    b"out of memory (requested",
)
_WATCH = 0.2  # seconds between two counts of a sandboxed run's processes
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
    forked: bool = False  # started more processes than its sandbox allows

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and not self.overflow and not self.forked

    def problem(
        self, time_limit: float, output_limit: int, memory_limit: int | None = None
    ) -> str | None:
        """What went wrong, in a few words, with the last line of its standard error; None
        for a clean exit. ``memory_limit`` (MB; None: the sandbox's) is named when the
        program failed for want of memory (:meth:`out_of_memory`).

        >>> Finished(b"", b"boom\\n", 3, 0.1).problem(1, 10)
        'exited with status 3: boom'
        >>> Finished(b"", b"", -9, 2.0, timed_out=True).problem(1.5, 10)
        'ran longer than 1.5 s'
        >>> bad_alloc = b"terminate called after throwing an instance of 'std::bad_alloc'\\n"
        >>> Finished(b"", bad_alloc, -6, 0.1).problem(1, 10, 256)[:52]
        'ran out of memory (memory_limit 256 MB): terminate c'
        """
        if self.timed_out:
            return f"ran longer than {time_limit:g} s"
        if self.overflow:
            return f"printed more than {describe_size(output_limit)}"
        if self.forked:
            return "started more processes than its sandbox allows"
        lines = self.stderr.decode("utf-8", "replace").strip().splitlines()
        said = f": {lines[-1].strip()}" if lines else ""
        if self.out_of_memory():
            limit = memory_limit if memory_limit is not None else Limits(1).memory >> 20
            return f"ran out of memory (memory_limit {limit} MB){said}"
        if self.returncode < 0:
            try:
                name = signal.Signals(-self.returncode).name
            except ValueError:
                name = f"signal {-self.returncode}"
            return f"was killed by {name}{said}"
        if self.returncode != 0:
            return f"exited with status {self.returncode}{said or ': no message'}"
        return None

    def out_of_memory(self) -> bool:
        """Whether the run failed for want of memory: under a limit on its address space an
        allocation fails, and each language says so in its own words before it stops
        (``std::bad_alloc`` then SIGABRT, ``MemoryError``, ``OutOfMemoryError``...).

        >>> Finished(b"", b"Traceback ...\\nMemoryError\\n", 1, 0.1).out_of_memory()
        True
        """
        if self.returncode == 0:
            return False
        tail = self.stderr[-4096:]
        return any(marker in tail for marker in OUT_OF_MEMORY)


def describe_size(n: int) -> str:
    """``n`` bytes in the largest unit that divides it.

    >>> describe_size(8 << 20), describe_size(1000), describe_size(3 << 10)
    ('8 MiB', '1000 bytes', '3 KiB')
    """
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} bytes"


class Stopped(Exception):
    """A run asked for after :func:`stop_all` (the build is being interrupted)."""


_live: set[subprocess.Popen[bytes]] = set()
_lock = threading.Lock()
_stopping = False


def stop_all() -> None:
    """Kill every run in progress and refuse new ones until :func:`resume`."""
    global _stopping
    with _lock:
        _stopping = True
        for proc in list(_live):
            _kill_group(proc)


def resume() -> None:
    """Allow runs again (the interrupted build has let go of its threads)."""
    global _stopping
    with _lock:
        _stopping = False


def _unless_stopped(program: str) -> None:
    """Raise :class:`Stopped` when the build was interrupted while a run was going: the run
    may have been killed by :func:`stop_all`, and how it ended is then no verdict (a build
    that saved it would judge the program "killed by SIGKILL" until ``--force``).
    :func:`resume` comes only once every thread of the interrupted build has returned."""
    with _lock:
        if _stopping:
            raise Stopped(program)


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
    jail: Jail | None = None,
    read_only: Sequence[str] = (),
    writable: Sequence[str] = (),
    memory_limit: int | None = None,
) -> Finished:
    """Run ``argv`` with ``stdin`` in a fresh temporary directory under both limits.

    With a ``jail``, the run is sandboxed (see :mod:`~perfectplay.site.sandbox`): ``env``
    is then all it sets in the environment, and ``read_only`` folders are what it sees
    beyond the system, the interpreter and the repository (``writable`` ones may be written),
    and ``memory_limit`` (MB) replaces the sandbox's limit on its address space.

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
    command, env, process_limit = _prepare(
        argv, folder, time_limit, env, jail, read_only, writable, memory_limit
    )
    try:
        with tempfile.TemporaryFile() as feed:
            feed.write(stdin)
            feed.seek(0)
            with _lock:
                if _stopping:
                    raise Stopped(command[0])
                start = time.perf_counter()
                proc = subprocess.Popen(
                    command,
                    stdin=feed,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    cwd=folder,
                    env=env,
                    start_new_session=True,  # its own process group: killed whole
                )
                _live.add(proc)
            try:
                finished = _collect(proc, start, time_limit, output_limit, process_limit)
                _unless_stopped(command[0])
                return _signalled(finished, jail)
            finally:
                _kill_group(proc)  # what it left running in the background
                proc.wait()
                with _lock:
                    _live.discard(proc)
    finally:
        _remove(folder)


def _prepare(
    argv: Sequence[str],
    folder: str,
    time_limit: float,
    env: dict[str, str] | None,
    jail: Jail | None,
    read_only: Sequence[str],
    writable: Sequence[str],
    memory_limit: int | None,
) -> tuple[list[str], dict[str, str] | None, int | None]:
    """The command line of a run in ``folder`` (in the sandbox of ``jail``, if any), the
    environment to start it with, and the most processes it may have (None: unchecked)."""
    command = list(argv)
    if jail is None:
        return command, env, None
    env = jail.env(env or {})
    if not jail.sandboxed:
        return command, env, None
    if shutil.which(command[0], path=ENVIRONMENT["PATH"]) is None:
        raise FileNotFoundError(command[0])  # as Popen says it without a sandbox
    limits = Limits(cpu_seconds=math.ceil(time_limit) + 1)
    if memory_limit is not None:
        limits = dataclasses.replace(limits, memory=memory_limit << 20)
    command = jail.wrap(command, folder, limits, env, read_only, writable)
    # bwrap's own environment; the program's is given by --setenv.
    return command, {"PATH": ENVIRONMENT["PATH"]}, limits.processes


def _signalled(finished: Finished, jail: Jail | None) -> Finished:
    """bwrap reports a program killed by signal N as status 128 + N: as :mod:`subprocess`
    does, a negative status."""
    if jail is not None and jail.sandboxed and 128 < finished.returncode < 160:
        return dataclasses.replace(finished, returncode=128 - finished.returncode)
    return finished


def run_interactive(
    program: Sequence[str],
    interactor: Sequence[str],
    *,
    time_limit: float,
    env: dict[str, str] | None = None,
    jail: Jail | None = None,
    read_only: Sequence[str] = (),
    judge_read_only: Sequence[str] = (),
    judge_writable: Sequence[str] = (),
    memory_limit: int | None = None,
) -> tuple[Finished, Finished]:
    """Run ``program`` and ``interactor`` together, each one's standard output the other's
    standard input, each contained as :func:`run_contained` runs one (``judge_*``: the
    interactor's folders), under one wall-clock limit; how each ended (their ``stdout`` is
    empty: it went to the other).

    >>> import sys
    >>> ask = "print(3, flush=True); print('ok' if input() == '9' else 'no', file=sys.stderr)"
    >>> run, judge = run_interactive(
    ...     [sys.executable, "-c", "n = int(input()); print(n * n)"],
    ...     [sys.executable, "-c", f"import sys; {ask}"], time_limit=30)
    >>> run.ok, judge.ok, judge.stderr
    (True, True, b'ok\\n')
    """
    folders = [tempfile.mkdtemp(prefix="perfectplay-run-") for _ in range(2)]
    procs: list[subprocess.Popen[bytes]] = []
    pipes = os.pipe(), os.pipe()  # program -> interactor, interactor -> program
    unclosed = [fd for pair in pipes for fd in pair]  # the parent's ends, closed once started
    try:
        prepared = [
            _prepare(program, folders[0], time_limit, env, jail, read_only, (), memory_limit),
            _prepare(
                interactor,
                folders[1],
                time_limit,
                env,
                jail,
                judge_read_only,
                judge_writable,
                memory_limit,
            ),
        ]
        ends = ((pipes[1][0], pipes[0][1]), (pipes[0][0], pipes[1][1]))
        with _lock:
            if _stopping:
                raise Stopped(program[0])
            start = time.perf_counter()
            for (command, run_env, _), folder, (stdin, stdout) in zip(
                prepared, folders, ends, strict=True
            ):
                procs.append(
                    subprocess.Popen(
                        command,
                        stdin=stdin,
                        stdout=stdout,
                        stderr=subprocess.PIPE,
                        cwd=folder,
                        env=run_env,
                        start_new_session=True,
                    )
                )
                _live.add(procs[-1])
        while unclosed:
            os.close(unclosed.pop())
        limits = [p[2] for p in prepared]
        pair = _collect_pair(procs, start, time_limit, limits, jail)
        _unless_stopped(program[0])
        return pair
    finally:
        while unclosed:
            os.close(unclosed.pop())
        for proc in procs:
            _kill_group(proc)
            proc.wait()
            with _lock:
                _live.discard(proc)
        for folder in folders:
            _remove(folder)


def _collect_pair(
    procs: list[subprocess.Popen[bytes]],
    start: float,
    time_limit: float,
    process_limits: list[int | None],
    jail: Jail | None,
) -> tuple[Finished, Finished]:
    """Wait for both runs of :func:`run_interactive`, reading their standard errors."""
    deadline = start + time_limit
    errors = [bytearray(), bytearray()]
    timed_out, forked = [False, False], [False, False]
    with selectors.DefaultSelector() as selector:
        for proc, err in zip(procs, errors, strict=True):
            assert proc.stderr is not None
            selector.register(proc.stderr, selectors.EVENT_READ, err)
        while selector.get_map() or any(p.poll() is None for p in procs):
            left = deadline - time.perf_counter()
            if left <= 0:
                timed_out = [p.poll() is None for p in procs]
                break
            for i, (proc, limit) in enumerate(zip(procs, process_limits, strict=True)):
                if limit is not None and count_processes(proc.pid) > limit:
                    forked[i] = True
            if any(forked):
                break
            if not selector.get_map():
                time.sleep(min(left, _WATCH / 4))
                continue
            for key, _ in selector.select(timeout=min(left, _WATCH)):
                chunk = os.read(key.fd, _CHUNK)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                buffer: bytearray = key.data
                buffer += chunk
                del buffer[: max(0, len(buffer) - STDERR_TAIL)]
    seconds = time.perf_counter() - start
    found = []
    for i, proc in enumerate(procs):
        if timed_out[i] or forked[i]:
            _kill_group(proc)
        returncode = proc.wait()
        assert proc.stderr is not None
        proc.stderr.close()
        finished = Finished(
            b"", bytes(errors[i]), returncode, seconds, timed_out[i], False, forked[i]
        )
        found.append(_signalled(finished, jail))
    return found[0], found[1]


def count_processes(pid: int) -> int:
    """How many processes ``pid`` and its descendants are, from ``/proc`` (0: it is gone).

    >>> count_processes(os.getpid()) >= 1
    True
    """
    count, todo = 0, [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        count += 1
        for task in tasks:
            try:
                with open(f"/proc/{parent}/task/{task}/children") as f:
                    todo += [int(child) for child in f.read().split()]
            except OSError:
                pass
    return count


def _collect(
    proc: subprocess.Popen[bytes],
    start: float,
    time_limit: float,
    output_limit: int,
    process_limit: int | None = None,
) -> Finished:
    assert proc.stdout is not None and proc.stderr is not None
    deadline = start + time_limit
    out = bytearray()
    err = bytearray()
    timed_out = overflow = forked = False
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ, out)
        selector.register(proc.stderr, selectors.EVENT_READ, err)
        while selector.get_map():
            left = deadline - time.perf_counter()
            if left <= 0:
                timed_out = True
                break
            if process_limit is not None:
                # RLIMIT_NPROC does not hold a builder running as root: count instead.
                if count_processes(proc.pid) > process_limit:
                    forked = True
                    break
                left = min(left, _WATCH)
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
    if timed_out or overflow or forked:
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
    return Finished(bytes(out), bytes(err), returncode, seconds, timed_out, overflow, forked)
