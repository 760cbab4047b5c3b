"""Where batches run: in this process, in a local process pool, or on Dask.

Every engine runs :func:`~perfectplay.tiers.job.execute_steps` (a task: a batch, or the
batches of a chain of fused tiers, given by ids) on a worker that received the job and
the store once, and returns futures the runner waits on. ``overhead`` is what one batch
costs an engine beyond its work (seconds): the figure ``benchmarks/bench_tiers.py``
measured on the 2-core development machine under heavy load (about 14 ms a batch for
the pool, 50 ms for a two-worker ``LocalCluster``; an idle machine does better), which
the runner starts from and replaces by what it measures while running when that is
more; it sizes batches so that it stays under 5% of their work
(:func:`perfectplay.tiers.runner.batch_bounds`). ``handoff`` is what passing from a tier
to the next costs each worker (on the pool a round trip through the driver, the
benchmark's tiers of no work: about 4 ms a tier; on Dask, whose tasks wait on their
workers, 1.5 to 3.5 ms), and ``latency`` the round trip through the driver on an engine
that chains (the tiers of no work on a two-worker ``LocalCluster``: 13 to 24 ms a tier,
loaded): a tier whose work would leave the other workers idle for less than spreading
it costs them runs whole on one worker, fused with the small tiers after it
(:mod:`perfectplay.tiers.runner`).

- ``threads``: in the calling thread, one batch per tier; the kernels run their own
  threads over it (numba's parallel loops), which is the fastest way on one machine.
- ``processes``: a pool of ``workers`` processes started with ``spawn`` (no threads are
  forked), each given its share of the cores for its kernels. A worker that dies breaks
  the pool: the engine starts a new one and the runner sends the lost batches again.
- ``dask``: ``dask.distributed`` (the ``dask`` extra): a ``LocalCluster`` of ``workers``
  processes when no ``scheduler`` address is given, else the cluster at
  ``tcp://HOST:PORT``. The scheduler sends a batch whose worker died to another worker.
  It :attr:`~Engine.chains`: a tier's batches are sent while the tier they read still
  runs, and wait on their workers for the slices they read (on disk, and on a cluster
  given by its address also a Dask event a slice, :mod:`._dask`), not as tasks that
  depend on other tasks: the scheduler hands them to
  the workers ahead of time, each starts as soon as the last slice it reads is written,
  and no result travels between workers or through the driver. Where several tasks
  wait for a worker, the one with the most work left on its path of tiers goes first.
  The local cluster runs with its servers' periodic work made rare
  (:data:`._dask.QUIET`), and every worker connects to the scheduler while the engine
  starts (:func:`._dask.warm`), not in the first tier's tasks; the engine lists the
  workers then too.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import importlib
import logging
import os
import pickle
import threading
import time
import uuid
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from perfectplay.errors import InputError, OptionError, PerfectplayError
from perfectplay.tiers.job import Step, execute_steps
from perfectplay.tiers.options import ENGINES

if TYPE_CHECKING:
    from perfectplay.tiers.job import Job
    from perfectplay.tiers.store import Store

__all__ = ["RELIST", "Engine", "make_engine"]

#: Seconds the dask engine keeps the list of workers it places tasks on before asking
#: the scheduler again (a worker that joined meanwhile gets tasks from then on; one that
#: left gets none, and Dask moves those it had).
RELIST = 1.0


class Engine:
    """The in-process engine; the base of the others."""

    name = "threads"
    overhead = 0.0
    #: Seconds from a tier's last batch ending to the batches of the tier that reads it
    #: starting (every worker waits that long): what fusing a small tier into a chain
    #: of tiers on one worker saves (:mod:`.runner`). Nothing in this process (0).
    handoff = 0.0
    #: On an engine that :attr:`chains`, the seconds from a batch's end to a task that
    #: the driver sends on hearing of it starting on a worker (the round trip through
    #: the driver): a tier's readers are sent when the tier before it finishes, so a
    #: tier shorter than this leaves its workers waiting for the rest, beyond the
    #: ``handoff`` (:mod:`.runner` fuses it). 0 where every hand-off is that round trip
    #: (``handoff`` then counts it).
    latency = 0.0
    retries = 0  # lost workers survived per batch (the engine's own retries aside)
    #: Whether a batch may be sent before the batches it waits for are done (``after``):
    #: the engine starts it when they are, without a round trip through the driver.
    chains = False

    def __init__(self, workers: int | None = None) -> None:
        # One worker (a tier is one batch, run by the kernels' own threads); ``workers``
        # given is how many threads those kernels use (a shared machine's share).
        self.workers = 1
        self.threads = workers
        self._threads_before: int | None = None
        self._work: tuple[Job, Store] | None = None

    def start(self, job: Job, store: Store) -> None:
        if self.threads is not None and self._threads_before is None:
            import numba

            self._threads_before = numba.get_num_threads()
            top = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
            numba.set_num_threads(max(1, min(self.threads, top)))
        job.prepare()
        self._work = (job, store)

    def submit(
        self, steps: tuple[Step, ...], after: list[Any] | None = None, priority: int = 0
    ) -> Any:
        """Run a task: batches (each a tier, its items ``start`` to ``stop`` and the
        tiers it reads, :data:`~perfectplay.tiers.job.Step`) one after another on one
        worker, once the futures ``after`` are done on an engine that :attr:`chains`; a
        future of each batch's seconds. Where several tasks wait for a worker, one of
        higher ``priority`` goes first (the runner gives the tiers on the longest path
        of work left the highest), on an engine that orders its tasks."""
        assert self._work is not None
        fut: cf.Future[tuple[float, ...]] = cf.Future()
        try:
            fut.set_result(execute_steps(self._work, steps))
        except BaseException as exc:
            if not isinstance(exc, Exception):
                raise
            fut.set_exception(exc)
        return fut

    def wait(self, futures: Iterable[Any]) -> set[Any]:
        """Some finished futures among ``futures`` (at least one)."""
        done, _ = cf.wait(list(futures), return_when=cf.FIRST_COMPLETED)
        return set(done)

    def lost(self, exc: BaseException) -> bool:
        """Whether ``exc`` means the batch's worker died (the batch is sent again)."""
        return False

    def restart(self) -> None:
        """Start again after lost workers (the pool engine)."""

    def close(self) -> None:
        self._work = None
        if self._threads_before is not None:
            import numba

            numba.set_num_threads(self._threads_before)
            self._threads_before = None


class ProcessEngine(Engine):
    name = "processes"
    overhead = 0.015
    handoff = 0.004
    retries = 3

    def __init__(self, workers: int | None = None) -> None:
        super().__init__()
        self.workers = max(1, workers or os.cpu_count() or 1)
        self._pool: cf.ProcessPoolExecutor | None = None
        self._payload = b""

    def start(self, job: Job, store: Store) -> None:
        self._payload = _dumps((job, store))
        self.restart()

    def restart(self) -> None:
        import multiprocessing

        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        threads = max(1, (os.cpu_count() or 1) // self.workers)
        context = multiprocessing.get_context("spawn")
        meet = context.Barrier(self.workers)
        self._pool = cf.ProcessPoolExecutor(
            self.workers,
            mp_context=context,
            initializer=_init_worker,
            initargs=(self._payload, threads, meet),
        )
        # Start every worker and load the work on each now, so that their start-up is
        # not charged to the first tiers' batches and estimates. The pool starts a worker
        # for each task sent while none is idle; each of these tasks waits until one runs
        # on every worker (a worker quick to load would take them all otherwise, and the
        # first tiers' batches too, while the others still loaded).
        cf.wait([self._pool.submit(_meet) for _ in range(self.workers)])

    def submit(
        self, steps: tuple[Step, ...], after: list[Any] | None = None, priority: int = 0
    ) -> Any:
        assert self._pool is not None
        return self._pool.submit(_execute_here, steps)

    def lost(self, exc: BaseException) -> bool:
        from concurrent.futures.process import BrokenProcessPool

        return isinstance(exc, BrokenProcessPool)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


class DaskEngine(Engine):
    name = "dask"
    overhead = 0.050
    # Measured on a two-worker LocalCluster (docs/cluster.md): a task that waits on its
    # worker starts 1.5 to 3 ms after the last slice it reads is written; a task sent by
    # the driver on hearing of a batch's end starts 15 to 25 ms after that end.
    handoff = 0.003
    latency = 0.020
    chains = True
    retries = 3  # a task whose worker went (:meth:`wait`), sent again

    def __init__(self, workers: int | None = None, scheduler: str | None = None) -> None:
        super().__init__()
        from perfectplay._util.extras import require

        require("dask", "the dask engine")
        self.scheduler = scheduler
        self.workers = max(1, workers or os.cpu_count() or 1)
        self._client: Any = None
        self._cluster: Any = None
        self._name = ""
        self._slices: dict[str, tuple[tuple[int, int, int], ...]] = {}  # task -> its slices
        self._placed: dict[int, int] = {}  # tier -> its tasks placed so far
        self._threads: list[str] = []  # each worker's address, once a thread
        self._listed = 0.0  # when (time.monotonic) the scheduler last listed them
        self._events = True  # whether slices are announced by Dask events (_dask.Install)
        self._where: dict[str, tuple[str, ...]] = {}  # task -> the workers it was placed on
        self._keys: dict[str, str] = {}  # a task's name -> its key, when sent again
        self._cancelled: set[str] = set()  # keys of the tasks :meth:`wait` cancelled

    def start(self, job: Job, store: Store) -> None:
        distributed: Any = importlib.import_module("distributed")
        Client, LocalCluster = distributed.Client, distributed.LocalCluster
        from perfectplay.tiers import _dask

        if self.scheduler is None:
            threads = max(1, (os.cpu_count() or 1) // self.workers)
            dask_config = importlib.import_module("dask").config
            with dask_config.set(_dask.QUIET), _workers_ignore_ctrl_c():
                self._cluster = LocalCluster(
                    n_workers=self.workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    # The driver says what failed, in one line; the workers' own logs
                    # (a failed task's traceback, a task cancelled at the end) would
                    # only repeat it in pages.
                    silence_logs=logging.CRITICAL,
                    env={"NUMBA_NUM_THREADS": str(threads)},
                )
            self._client = Client(self._cluster)
        else:
            self._client = _connect(Client, self.scheduler)
            self.workers = max(1, sum(self._client.nthreads().values()))
        # Installed once on every worker (and on any that joins later); each batch then
        # names the work by ids only.
        self._name = f"perfectplay-tiers-{uuid.uuid4().hex}"
        events = self.scheduler is not None  # a LocalCluster's workers share this disk
        self._events = events
        install = _dask.Install(self._name, job, store, events)
        self._client.register_plugin(install, name=self._name)
        _dask.warm(self._client)
        self._list()  # now, not in the first tier's release

    def submit(
        self, steps: tuple[Step, ...], after: list[Any] | None = None, priority: int = 0
    ) -> Any:
        from perfectplay.tiers._dask import run_installed

        tier, start, stop, _ = steps[0]  # a task's name: its first batch's
        # The task waits on its worker for the slices that the tasks ``after`` write
        # (their events, :mod:`._dask`), not as a Dask dependency: nothing travels
        # between workers, and the scheduler may hand it to a worker ahead of time.
        waits = tuple(s for f in after or () for s in self._slices[f.key])
        fut = self._client.submit(
            run_installed,
            self._name,
            steps,
            waits,
            pure=False,
            key=self._key(f"{self._name}-{tier}-{start}-{stop}"),
            priority=priority,
            workers=(where := self._place(tier)),
            allow_other_workers=True,
        )
        self._slices[fut.key] = tuple(step[:3] for step in steps)
        if where is not None:
            self._where[fut.key] = tuple(where)
        return fut

    def _key(self, name: str) -> str:
        """The task's key: its name, or where a task of that name was cancelled (its
        worker gone: :meth:`wait`), a new one: the scheduler may still be forgetting the
        old key, and answers it as cancelled (a task sent again while it still runs
        keeps its key, and Dask runs it once)."""
        key = self._keys.get(name, name)
        if key in self._cancelled:
            key = self._keys[name] = f"{name}-again{len(self._cancelled)}"
        return key

    def _place(self, tier: int) -> list[str] | None:
        """The worker for a task of ``tier``: its batches in turn on each worker thread
        of the cluster (as the scheduler listed them last: when the engine started,
        then at most every :data:`RELIST` seconds, when a tier's first batch goes).
        A task that waits for its slices holds its worker's thread: left to the
        scheduler (which sends a task to the least busy worker), both tasks of a tier
        went to the worker that had just finished the tier before while the other still
        ran it alone, its thread then held by the next tier's waiting task, and so on:
        the two workers took turns, a tier each (overhead +107%, one run in ten). Dask
        still sends a task elsewhere when its worker is gone or idle
        workers take it (``allow_other_workers``); ``None`` (no worker yet): anywhere.
        (Listing them is a round trip of the driver's, 1 to 3 ms, which every tier paid
        when they were listed for each.)"""
        k = self._placed[tier] = self._placed.get(tier, -1) + 1
        if k == 0 and (not self._threads or time.monotonic() - self._listed > RELIST):
            self._list()
        return [self._threads[k % len(self._threads)]] if self._threads else None

    def _list(self) -> None:
        """Ask the scheduler for the workers' threads (for :meth:`_place`)."""
        threads = sorted(self._client.nthreads().items())
        self._threads = [addr for addr, n in threads for _ in range(n)]
        self._listed = time.monotonic()

    def wait(self, futures: Iterable[Any]) -> set[Any]:
        """Some finished futures; or, where a task's worker has gone, that task cancelled
        (:meth:`lost`: the runner sends it again, placed on a worker that is there). A
        task placed on a worker keeps that place as a loose restriction, and when the
        worker dies, even one its nanny restarts at a new address, Dask's scheduler can
        leave the task waiting for a worker ("no-worker") for ever: one worker's cluster
        then hung."""
        distributed: Any = importlib.import_module("distributed")
        pending = list(futures)
        while True:
            try:
                done, _ = distributed.wait(pending, timeout=RELIST, return_when="FIRST_COMPLETED")
                return set(done)
            except Exception as exc:  # noqa: BLE001 (two kinds below, by name)
                if type(exc).__name__ == "FuturesCancelledError":
                    return {f for f in pending if f.status != "pending"}
                if not isinstance(exc, TimeoutError):
                    raise
                self._list()
                live = set(self._threads)
                stranded = [
                    f
                    for f in pending
                    if f.status == "pending" and not live & set(self._where.get(f.key, live))
                ]
                if stranded:
                    self._cancelled.update(f.key for f in stranded)
                    self._client.cancel(stranded)
                    return set(stranded)

    def lost(self, exc: BaseException) -> bool:
        # A task :meth:`wait` cancelled, its worker gone (distributed raises either
        # name, as its versions go).
        return type(exc).__name__ in ("CancelledError", "FutureCancelledError")

    def close(self) -> None:
        if self._client is not None:
            from perfectplay.tiers._dask import clear

            with contextlib.suppress(Exception):  # the cluster may be gone already
                if self._events:
                    pieces = tuple(s for v in self._slices.values() for s in v)
                    clear(self._client, self._name, pieces)
                self._client.unregister_worker_plugin(self._name)
            self._slices.clear()
            self._client.close()
        if self._cluster is not None:
            self._cluster.close()
        self._client = self._cluster = None


def make_engine(
    name: str = "threads", *, workers: int | None = None, scheduler: str | None = None
) -> Engine:
    """The engine called ``name`` (one of :data:`ENGINES`).

    >>> make_engine("threads").workers        # a tier is one batch, on the kernels' threads
    1
    >>> make_engine("threads", workers=2).threads
    2
    """
    if scheduler is not None and name != "dask":
        raise OptionError(f"--scheduler is for the dask engine, not {name}")
    if name == "threads":
        return Engine(workers)
    if name == "processes":
        return ProcessEngine(workers)
    if name == "dask":
        return DaskEngine(workers, scheduler)
    raise InputError(f"unknown engine {name!r}: one of {', '.join(ENGINES)}")


# -- the pool's workers ------------------------------------------------------------------------

_WORK: tuple[Job, Store] | None = None


def _dumps(obj: object) -> bytes:
    """Pickled for the pool's workers: with cloudpickle where it is installed (it comes
    with dask), which also sends functions defined in a script or a notebook."""
    try:
        cloudpickle: Any = importlib.import_module("cloudpickle")
        data: bytes = cloudpickle.dumps(obj)
        return data
    except ImportError:
        pass
    try:
        return pickle.dumps(obj)
    except (pickle.PicklingError, AttributeError, TypeError) as exc:
        raise InputError(
            f"the work cannot be sent to other processes ({exc}); define the rules' "
            "functions at module level, or install dask (its cloudpickle sends them)"
        ) from None


_BROKEN: str | None = None  # why this worker could not load the work
_MEET: Any = None  # the pool's barrier: every worker started and loaded


def _init_worker(payload: bytes, threads: int, meet: Any) -> None:
    global _WORK, _BROKEN, _MEET
    _MEET = meet
    try:
        import numba

        numba.set_num_threads(min(threads, numba.get_num_threads()))
    except ImportError:
        pass
    # A failing initializer would only break the pool ("a child process terminated
    # abruptly"), and the runner would start it again and again: each batch says why.
    try:
        _WORK = pickle.loads(payload)
        _WORK[0].prepare()
    except Exception as exc:
        _BROKEN = f"{type(exc).__name__}: {exc}"


@contextlib.contextmanager
def _workers_ignore_ctrl_c() -> Iterator[None]:
    """While the local cluster starts its worker processes, SIGINT ignored: they inherit
    that (Python leaves an ignored SIGINT ignored), so a Ctrl-C, which the terminal sends
    to the whole process group, stops the driver alone, which closes the cluster, and no
    worker prints its own tracebacks (69 lines before "perfectplay: interrupted"). A
    Ctrl-C during the start itself (a few seconds) is lost; the next one stops."""
    import signal

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def _connect(client_class: Any, address: str, seconds: float = 30.0) -> Any:
    """A client of the scheduler at ``address``, or an :class:`OptionError` saying why not
    within ``seconds``: Dask's own timeout covers an address that refuses or does not
    answer, not a server of another kind that accepts the connection and never speaks
    Dask (an HTTP server, say), where the handshake waits for ever."""
    out: dict[str, Any] = {}

    def attempt() -> None:
        try:
            out["client"] = client_class(address, timeout=seconds)
        except BaseException as exc:  # handed to the caller's thread below
            out["error"] = exc

    thread = threading.Thread(target=attempt, daemon=True, name="perfectplay-connect")
    thread.start()
    thread.join(seconds + 5.0)
    if "client" in out:
        return out["client"]
    exc = out.get("error")
    if exc is None:
        why = f"no Dask scheduler answered within {seconds:.0f} s"
    elif isinstance(exc, OSError | TimeoutError | ValueError):
        why = f"cannot connect ({exc})"
    else:
        raise exc
    raise OptionError(f"--scheduler {address}: {why}")


def _meet() -> None:
    """Wait until every worker of the pool runs this (see ``ProcessEngine.restart``); a
    worker that never comes (it died: the pool then breaks) holds the others 5 minutes
    at most."""
    with contextlib.suppress(threading.BrokenBarrierError):
        _MEET.wait(timeout=300)


def _execute_here(steps: tuple[Step, ...]) -> tuple[float, ...]:
    if _BROKEN is not None:
        raise PerfectplayError(f"a worker of the process pool cannot load the work ({_BROKEN})")
    assert _WORK is not None
    return execute_steps(_WORK, steps)
