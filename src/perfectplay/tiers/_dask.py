"""The Dask side of the dask engine (imported only where ``distributed`` is installed).

The work (the job and the store) reaches every worker through a worker plugin, also
each worker that joins or restarts later (after one was killed), so that a batch names
the work by ids only; data scattered to workers would be lost with a worker.

A task waits for the slices it reads on its worker, not as a Dask dependency: a task
sent ahead of the tier it reads (:attr:`~perfectplay.tiers.engines.Engine.chains`) is
told the slices still being computed when it was sent, and waits until it sees them on
disk or, for a work that uses them (:data:`_EVENTS`: on a cluster given by its
address), their Dask events are set (the worker that writes a slice sets its event once
the file is in place). A dependency would make the scheduler start the task only once
told the tasks it waits for are done, and its worker then fetch their results from the
workers that ran them (the hand-off between two tiers, 10 to 50 ms a worker on a
two-worker ``LocalCluster``); a task already on its worker, with its thread, starts
as soon as it sees the slice (on a shared disk, within :data:`POLL`), or after one
message to the scheduler and one back. A task that waits longer than :data:`PATIENCE`
gives its worker back to the scheduler (:class:`distributed.Reschedule`) and is sent
again, so that a batch it waits for, sent again to that worker after another worker
died, is not stuck behind it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import contextlib
import threading
import time
from typing import TYPE_CHECKING, Any, cast

from distributed import Reschedule, WorkerPlugin, get_client
from distributed import wait as distributed_wait

from perfectplay.tiers.job import Step, execute

if TYPE_CHECKING:
    from perfectplay.tiers.job import Job
    from perfectplay.tiers.store import Store

__all__ = [
    "PATIENCE",
    "POLL",
    "QUIET",
    "Install",
    "clear",
    "event",
    "run_installed",
    "wait",
    "warm",
]

#: Seconds a task waits for the slices it reads before it gives its worker back.
PATIENCE = 2.0

#: Seconds between two looks on disk for the slices a task waits for: a slice written
#: on this machine's disk is seen sooner than its event comes (one message to the
#: scheduler and one back, 5 to 30 ms on a loaded two-core machine). A look is a
#: ``stat`` a slice, made only by a worker that has nothing else to do.
POLL = 0.001

#: Dask settings for the local cluster that the engine starts: its servers' periodic
#: work that a solve has no use for, made rare. Every process of a two-worker
#: ``LocalCluster`` woke every 20 ms to check that its event loop was not blocked, the
#: workers sampled their running tasks every 10 ms for the dashboard's profile, and each
#: process read its CPU and memory every 500 ms: 12% of a core with nothing to do (the
#: driver, which runs the scheduler, 5%), taken from the workers at random moments on a
#: machine whose cores they fill; 3% with these. Each nanny (in the driver's process)
#: and each worker also read its worker's memory every 100 ms (to stop one that passes
#: its limit, which a solve, whose data is on disk, nears only by a bug): every second
#: here. (A cluster of one's own, given by its address, keeps its own settings:
#: docs/cluster.md.)
QUIET = {
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.profile.enabled": False,
    "distributed.worker.memory.monitor-interval": "1s",
}

_WORK: dict[str, tuple[Job, Store]] = {}

#: A slice: a tier and its items ``[start, stop)``.
Slice = tuple[int, int, int]


#: The works whose slices are announced by Dask events (on a cluster of one's own, whose
#: workers may see a shared filesystem late); on the engine's ``LocalCluster`` every
#: worker looks on the driver's own disk, where a slice is seen as soon as it is renamed
#: into place, and the events only cost the scheduler (in the driver's process, on the
#: cores the workers use) a message for each slice and each waiting task.
_EVENTS: set[str] = set()


class Install(WorkerPlugin):
    """Keep the work named ``name`` on each worker; ``events``: announce its slices by
    Dask events (:data:`_EVENTS`)."""

    def __init__(self, name: str, job: Job, store: Store, events: bool = True) -> None:
        self.name, self.work, self.events = name, (job, store), events

    def setup(self, worker: Any) -> None:
        self.work[0].prepare()
        _WORK[self.name] = self.work
        if self.events:
            _EVENTS.add(self.name)

    def teardown(self, worker: Any) -> None:
        _WORK.pop(self.name, None)
        _EVENTS.discard(self.name)


def warm(client: Any, timeout: float = 60.0) -> None:
    """Have each worker connect its own client to the scheduler now (what a task's
    :func:`get_client` does the first time, 20 to 60 ms on a loaded two-core machine),
    so that the first tier's tasks do not wait for it. A worker that leaves meanwhile,
    or one too slow to answer within ``timeout`` seconds, connects in its first task."""
    tasks = [
        client.submit(_connect, pure=False, workers=[addr], allow_other_workers=False)
        for addr in client.nthreads()
    ]
    with contextlib.suppress(TimeoutError):
        cast(Any, distributed_wait)(tasks, timeout=timeout)  # untyped in distributed
    client.cancel(tasks)


def _connect() -> None:
    get_client()


def event(name: str, piece: Slice) -> str:
    """The name of the event set when the slice ``piece`` of the work ``name`` is on disk.

    >>> event("w", (3, 0, 10))
    'w-3-0-10-written'
    """
    return f"{name}-{piece[0]}-{piece[1]}-{piece[2]}-written"


def run_installed(
    name: str, steps: tuple[Step, ...], waits: tuple[Slice, ...] = ()
) -> tuple[float, ...]:
    """Run a task's batches of the work installed as ``name`` (on a worker), once the
    slices ``waits`` are written (:func:`wait`), and announce each batch's slice (where
    the work uses events); each batch's seconds."""
    client = get_client() if name in _EVENTS else None
    work = _WORK[name]
    wait(client, name, work, waits)
    seconds = []
    for step in steps:  # each slice announced as soon as it is written (a chain's too)
        seconds.append(execute(work, *step))
        if client is not None:
            _announce(client, name, step[:3])
    return tuple(seconds)


def wait(client: Any | None, name: str, work: tuple[Job, Store], waits: tuple[Slice, ...]) -> None:
    """Return once every slice of ``waits`` is done: those on disk at once (no message),
    the others when they appear on disk (looked for every :data:`POLL` seconds) or their
    events are set (given a ``client``; ``None``: the disk alone), whichever this worker
    learns first; after :data:`PATIENCE` seconds, or when every event is set but a slice
    is not seen yet (a network filesystem's cache), give the worker back
    (:class:`distributed.Reschedule`): the task is sent again, and looks again (also
    what an event lost on the way would need)."""
    job, store = work
    missing = [p for p in waits if not job.batch_done(*p, store)]
    if not missing:
        return
    told: cf.Future[list[Any]] | None = None  # the events' answer
    if client is not None:
        told = cf.Future()
        asking = (told, client, name, tuple(missing))
        threading.Thread(target=_ask, args=asking, daemon=True).start()
    deadline = time.monotonic() + PATIENCE  # the disk alone: as long as an event's wait
    while missing:
        if told.done() if told is not None else time.monotonic() > deadline:
            missing = [p for p in missing if not job.batch_done(*p, store)]  # a last look
            if missing:
                time.sleep(0.05)  # not a loop through the scheduler as fast as it goes
                raise Reschedule()
            return
        time.sleep(POLL)
        missing = [p for p in missing if not job.batch_done(*p, store)]


def _ask(told: cf.Future[list[Any]], client: Any, name: str, pieces: tuple[Slice, ...]) -> None:
    """Wait for the events of ``pieces`` (on a thread of its own while :func:`wait`
    looks on disk), at most :data:`PATIENCE` seconds; the answer goes to ``told``."""
    try:
        told.set_result(_each(client, "event_wait", name, pieces, timeout=PATIENCE))
    except BaseException as exc:
        told.set_exception(exc)


def _announce(client: Any, name: str, piece: Slice) -> None:
    """Set the event of ``piece``, without waiting for the scheduler's answer: the next
    task starts meanwhile, and a reader that misses the event finds the slice on disk
    when it is sent again (:func:`wait`)."""
    handler = client.scheduler.event_set
    client.loop.add_callback(handler, name=event(name, piece))


def clear(client: Any, name: str, pieces: tuple[Slice, ...]) -> None:
    """Forget the events of ``pieces`` on the scheduler (at the end of a solve: a
    scheduler that outlives it keeps no trace)."""
    if pieces:
        _each(client, "event_clear", name, pieces)


def _each(client: Any, call: str, name: str, pieces: tuple[Slice, ...], **kw: Any) -> list[Any]:
    """The scheduler's event ``call`` (what :class:`distributed.Event` sends) on the
    event of each slice of ``pieces``, all at once: one round trip, not one a slice."""
    handler = getattr(client.scheduler, call)

    async def each() -> list[Any]:
        return list(await asyncio.gather(*(handler(name=event(name, p), **kw) for p in pieces)))

    result: list[Any] = client.sync(each)
    return result
