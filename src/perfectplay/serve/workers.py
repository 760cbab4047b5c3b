"""Several server processes over one set of solved games (``perfectplay serve --workers N``).

The games are built once, in the first process, before any worker exists; each worker is
then a :func:`os.fork` of it, so every worker serves the same games from the same memory:
the tables' arrays are shared copy-on-write and never written, so they stay in memory once
whatever the number of workers. (Uvicorn's own multi-worker mode starts each worker anew
from an import string and would build, or solve, every game once per worker.)

Each worker listens on its own socket bound to the same address with ``SO_REUSEPORT``
(Linux): the kernel spreads new connections evenly over the workers. One socket shared by
all would let the first worker to wake accept a whole burst of connections and keep them
(a browser or a load test keeps its connections open). Where ``SO_REUSEPORT`` is missing
the workers share one socket; where :func:`os.fork` is missing (Windows) one process
serves.

``SO_REUSEPORT`` would also let these sockets join another process's on the same port
(another ``perfectplay serve``, any server of the same user that set it): the two would
split the requests without a word. So the address is first bound by a plain socket,
without ``SO_REUSEPORT``, which fails while anyone listens there; only then are the
workers' sockets bound (a free port, when none is given, is the one the probe got). A
server that binds the port in the instant between the probe and the workers' sockets is
not seen; every ``perfectplay serve`` probes first, so two of them never share a port
they did not both start on at that instant.

The first process only supervises: it forwards ``SIGTERM``/``SIGINT`` to the workers and
waits for them, and starts a worker again if one dies (a worker is also stopped if the
first process is killed, on Linux).

>>> socks = listening_sockets("127.0.0.1", 0, 2)
>>> len(socks), len({s.getsockname()[1] for s in socks})   # two sockets, one port
(2, 1)
>>> for s in socks:
...     s.close()
"""

from __future__ import annotations

import gc
import os
import signal
import socket
import sys
import time
from collections.abc import Callable

__all__ = ["can_fork", "default_workers", "listening_sockets", "run_workers"]

#: A worker that dies sooner than this after its start is not started again (a fault that
#: would repeat); the server stops instead.
MIN_LIFE = 2.0


def can_fork() -> bool:
    """Whether workers can be forked here (not on Windows)."""
    return hasattr(os, "fork")


def default_workers() -> int:
    """The number of cores this process may run on (``--workers``'s default)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS, Windows
        return max(1, os.cpu_count() or 1)


def _shares_port() -> bool:
    return sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


def listening_sockets(host: str, port: int, count: int) -> list[socket.socket]:
    """``count`` listening sockets on ``host:port`` (a free port when 0), all on one port:
    one per worker with ``SO_REUSEPORT`` on Linux, else a single socket; :class:`OSError`
    when the address cannot be bound."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    shared = count > 1 and _shares_port()
    if shared:
        port = _free_port(family, host, port)
    socks: list[socket.socket] = []
    try:
        for _ in range(count if shared else 1):
            # IPPROTO_TCP named: asyncio turns Nagle's algorithm off (TCP_NODELAY) only on
            # sockets that say so, and a response written in two parts would otherwise
            # wait 40 ms for the client's delayed acknowledgement.
            sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
            socks.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if shared:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            sock.bind((host, port))
            port = sock.getsockname()[1]  # the free port the first one got, for the rest
            sock.listen(2048)  # connections made once the address is printed wait
    except OSError:
        for sock in socks:
            sock.close()
        raise
    return socks


def _free_port(family: int, host: str, port: int) -> int:
    """``port`` (a free one when 0) after binding it with a plain socket, without
    ``SO_REUSEPORT``: :class:`OSError` (address in use) while any process listens on it,
    ``SO_REUSEPORT`` or not. The probe is closed before the workers' sockets bind."""
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        # SO_REUSEADDR as the workers' sockets have it: a port left in TIME_WAIT by an
        # earlier run is free, a listening one is not.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))
        return int(probe.getsockname()[1])


def _die_with_parent() -> None:
    """Ask Linux to send this process ``SIGTERM`` when its parent dies (a killed
    supervisor leaves no worker behind); nothing elsewhere."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - an unusual libc
        pass


def _fork(
    serve: Callable[[socket.socket], None],
    sock: socket.socket,
    others: list[socket.socket],
    say: Callable[[str], None],
) -> int:
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        return pid
    # The worker: serve until told to stop, never return into the supervisor's code.
    status = 1
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        _die_with_parent()
        for other in others:
            if other is not sock:
                other.close()
        serve(sock)
        status = 0
    except KeyboardInterrupt:
        status = 0
    except BaseException as exc:  # noqa: BLE001 - the worker says why it stopped, then exits
        say(f"a worker stopped: {type(exc).__name__}: {exc}")
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    return 0  # pragma: no cover - os._exit does not return


def run_workers(
    serve: Callable[[socket.socket], None],
    sockets: list[socket.socket],
    count: int,
    say: Callable[[str], None],
    started: Callable[[], None] = lambda: None,
) -> int:
    """Fork ``count`` workers, each running ``serve(socket)`` on its socket (one each, or
    all the same one), call ``started()`` (threads are started only after the forks),
    and supervise them until ``SIGTERM`` or ``SIGINT``; the exit status."""
    slots = [sockets[i % len(sockets)] for i in range(count)]
    workers: dict[int, tuple[int, float]] = {}  # pid -> (slot, start time)
    stopping = False

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True
        for pid in list(workers):
            _signal(pid, signal.SIGTERM)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    status = 0
    # The objects built so far (the games, the imported libraries) are left alone by the
    # workers' garbage collector: its bookkeeping would otherwise write to, and so copy,
    # every page that holds one.
    gc.collect()
    gc.freeze()
    try:
        for slot, sock in enumerate(slots):
            workers[_fork(serve, sock, sockets, say)] = (slot, time.monotonic())
        started()
        while workers:
            try:
                pid, code = os.wait()
            except ChildProcessError:  # pragma: no cover - none left
                break
            except InterruptedError:  # pragma: no cover - PEP 475 retries wait() itself
                continue
            if pid not in workers:
                continue
            slot, born = workers.pop(pid)
            if stopping:
                continue
            if time.monotonic() - born < MIN_LIFE:
                say(f"a worker failed at its start ({_how(code)}); stopping")
                stop(signal.SIGTERM, None)
                status = 1
                continue
            say(f"worker {pid} ended ({_how(code)}); starting another")
            workers[_fork(serve, slots[slot], sockets, say)] = (slot, time.monotonic())
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for sock in sockets:
            sock.close()
    return status


def _how(status: int) -> str:
    """A wait status in words: ``exit status 1``, ``killed by signal 9``."""
    code = os.waitstatus_to_exitcode(status)
    return f"killed by signal {-code}" if code < 0 else f"exit status {code}"


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:  # it ended already
        pass
